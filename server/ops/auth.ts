/**
 * Player authentication: a pluggable verifier the arena room's static `onAuth` calls during
 * matchmaking, before any room is created or seat reserved. Without one the server is open (local
 * play). `jwtVerifier` checks a signed JWT (jose): HS256 with a shared secret, or EdDSA with an
 * Ed25519 public key, with optional issuer and audience, expiry enforced.
 *
 * A client sends its token as `Authorization: Bearer <jwt>` (Colyseus SDK: `client.auth.token = jwt`).
 * A refused token gets matchmaking error code 525 (ErrorCode.AUTH_FAILED) and a message saying why
 * ("token expired", "token signature invalid", "token missing", ...).
 */
import { createPublicKey } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { AuthEnv, TokenVerifier } from './authTypes';
import { HS256_SECRET_MIN_BYTES } from './ranges';

export type { AuthEnv, PlayerIdentity, TokenVerifier } from './authTypes';

/** Thrown by a verifier: `message` is sent to the client, `reason` is a short code for logs and metrics. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

export interface JwtVerifierOptions {
  /** HS256 shared secret, at least 32 bytes. */
  secret?: string | Uint8Array;
  /** Ed25519 public key as PEM (EdDSA tokens). */
  publicKeyPem?: string;
  issuer?: string;
  audience?: string;
  /** Seconds of clock difference tolerated on exp/nbf. Default 5. */
  clockToleranceSeconds?: number;
}

export function jwtVerifier(o: JwtVerifierOptions): TokenVerifier {
  if ((o.secret === undefined) === (o.publicKeyPem === undefined)) throw new Error('jwtVerifier: give exactly one of secret (HS256) or publicKeyPem (EdDSA)');
  const key = o.secret !== undefined ? (typeof o.secret === 'string' ? new TextEncoder().encode(o.secret) : o.secret) : createPublicKey(o.publicKeyPem!);
  if (key instanceof Uint8Array && key.length < HS256_SECRET_MIN_BYTES) throw new Error(`jwtVerifier: an HS256 secret needs at least ${HS256_SECRET_MIN_BYTES} bytes`);
  const algorithms = o.secret !== undefined ? ['HS256'] : ['EdDSA', 'Ed25519'];
  return async (token) => {
    if (token === undefined || token === '') throw new AuthError('token_missing', 'token missing: send Authorization: Bearer <jwt>');
    if (token.length > 8192) throw new AuthError('token_invalid', 'token too long');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms, issuer: o.issuer, audience: o.audience, clockTolerance: o.clockToleranceSeconds ?? 5, requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      if (e instanceof errors.JWTExpired) throw new AuthError('token_expired', 'token expired');
      if (e instanceof errors.JWSSignatureVerificationFailed) throw new AuthError('token_signature', 'token signature invalid');
      if (e instanceof errors.JWTClaimValidationFailed) throw new AuthError('token_claims', `token refused: ${e.message}`);
      if (e instanceof errors.JOSEAlgNotAllowed) throw new AuthError('token_algorithm', 'token algorithm not accepted');
      throw new AuthError('token_invalid', 'token malformed');
    }
    const name = typeof payload.name === 'string' ? payload.name.slice(0, 24) : undefined;
    return { id: String(payload.sub), ...(name !== undefined ? { name } : {}), claims: payload };
  };
}

/** The verifier the environment asks for, or null (open server). */
export function verifierFromEnv(a: AuthEnv | null): TokenVerifier | null {
  if (a === null) return null;
  return jwtVerifier({ secret: a.secret, publicKeyPem: a.publicKeyPem, issuer: a.issuer, audience: a.audience });
}
