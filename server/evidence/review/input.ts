/**
 * What the review page's JSON endpoints accept, checked before anything reaches the store: a player
 * key from a request path, a ranking limit, and a label body. Every check returns the value or a
 * one-line reason (the endpoint answers 400 with it); nothing here throws on any input.
 */
import { playerIdBytes } from '../../../shared/matchlog/identityRecord';
import { LABELS, type Label } from '../store';
import type { PlayerKey } from '../evidence';

/** Longest note kept with a label, characters. */
export const MAX_NOTE_CHARS = 2000;
/** Longest reviewer name, characters. */
export const MAX_REVIEWER_CHARS = 64;
/** Players the ranking returns at most. */
export const MAX_RANK_LIMIT = 1000;

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };
const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** A lone surrogate: text that has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** A player id as the match log keeps it: 1..128 UTF-8 bytes, no control characters. */
function checkPlayerId(id: unknown): string | null {
  if (typeof id !== 'string') return 'playerId: give a string';
  if (!wellFormed(id)) return 'playerId: not valid Unicode (a lone surrogate)';
  return playerIdBytes(id) === null ? 'playerId: 1..128 bytes of UTF-8 without control characters' : null;
}

function checkVerified(v: string | null): boolean | null {
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return null;
}

/** `<encoded id>` of /review/api/player/<encoded id> and the `verified` query parameter (true/false, 1/0). */
export function playerKeyFrom(encodedId: string, verified: string | null): Checked<PlayerKey> {
  let playerId: string;
  try {
    playerId = decodeURIComponent(encodedId);
  } catch {
    return fail('the player id in the path is not valid percent-encoding');
  }
  const bad = checkPlayerId(playerId);
  if (bad !== null) return fail(bad);
  const v = checkVerified(verified);
  if (v === null) return fail('verified: give true or false');
  return { ok: true, value: { playerId, verified: v } };
}

/** The ranking's `limit` query parameter: an integer 1..MAX_RANK_LIMIT, default 100. */
export function rankLimitFrom(limit: string | null): Checked<number> {
  if (limit === null) return { ok: true, value: 100 };
  if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_RANK_LIMIT) return fail(`limit: give an integer 1..${MAX_RANK_LIMIT}`);
  return { ok: true, value: Number(limit) };
}

/** Control characters other than tab and line breaks. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROL_OR_BREAK = /[\u0000-\u001f\u007f]/;

export interface LabelInput extends PlayerKey {
  label: Label;
  /** The name the reviewer gave, trimmed; null when none (the signed-in user stands for it). */
  reviewer: string | null;
  note: string | null;
}

const LABEL_KEYS = new Set(['playerId', 'verified', 'label', 'note', 'reviewer']);

/**
 * A POST label body: JSON `{ playerId, verified, label, note?, reviewer? }` and nothing else;
 * `label` one of cheater, clean, unsure; `note` at most MAX_NOTE_CHARS (line breaks allowed, other
 * control characters not); `reviewer` 1..MAX_REVIEWER_CHARS on one line. An empty note or name is none.
 */
export function labelFrom(body: string): Checked<LabelInput> {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return fail('the body is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('the body is not a JSON object');
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !LABEL_KEYS.has(k));
  if (extra.length > 0) return fail(`unknown field ${JSON.stringify(extra[0]!.slice(0, 40))}: give playerId, verified, label, note, reviewer`);
  const badId = checkPlayerId(o.playerId);
  if (badId !== null) return fail(badId);
  if (typeof o.verified !== 'boolean') return fail('verified: give true or false');
  if (typeof o.label !== 'string' || !(LABELS as readonly string[]).includes(o.label)) return fail(`label: give one of ${LABELS.join(', ')}`);
  let note: string | null = null;
  if (o.note !== undefined && o.note !== null) {
    if (typeof o.note !== 'string') return fail('note: give a string');
    if (o.note.length > MAX_NOTE_CHARS) return fail(`note: at most ${MAX_NOTE_CHARS} characters (${o.note.length} given)`);
    if (CONTROL.test(o.note) || !wellFormed(o.note)) return fail('note: text without control characters (but tab and line breaks) and valid Unicode');
    note = o.note.trim() === '' ? null : o.note;
  }
  let reviewer: string | null = null;
  if (o.reviewer !== undefined && o.reviewer !== null) {
    if (typeof o.reviewer !== 'string') return fail('reviewer: give a string');
    const r = o.reviewer.trim();
    if (r.length > MAX_REVIEWER_CHARS) return fail(`reviewer: at most ${MAX_REVIEWER_CHARS} characters`);
    if (CONTROL_OR_BREAK.test(r) || !wellFormed(r)) return fail('reviewer: one line of valid Unicode, no control characters');
    reviewer = r === '' ? null : r;
  }
  return { ok: true, value: { playerId: o.playerId as string, verified: o.verified, label: o.label as Label, reviewer, note } };
}
