/**
 * The types player authentication shares with the options, the environment and the room: who a
 * verified token says the player is, the verifier createGameServer takes, and the auth settings
 * the environment gives. Types only, so every module can import them without importing the others.
 */
import type { JWTPayload } from 'jose';

/** Who a verified token says the player is; lands in the room as `client.auth`. */
export interface PlayerIdentity {
  /** The token's subject ("sub"). */
  id: string;
  /** Optional display name ("name" claim). */
  name?: string;
  claims: JWTPayload;
}

/** Verifies the bearer token of a matchmaking request (undefined when none was sent). */
export type TokenVerifier = (token: string | undefined) => Promise<PlayerIdentity>;

/** Auth as the environment asks for it (server/ops/env.ts); exactly one of secret and publicKeyPem. */
export interface AuthEnv {
  /** HS256 shared secret (at least 32 bytes). */
  secret?: string;
  /** PEM of an Ed25519 public key (EdDSA tokens). */
  publicKeyPem?: string;
  issuer?: string;
  audience?: string;
}
