/**
 * `npm run audit -- <log or directory> --store [target]`: the audit command line's part that records
 * every audited log in the evidence store. A target is a `postgres://` URL or a SQLite file
 * (`*.sqlite`, `*.sqlite3`, `*.db`); a bare `--store` means DATABASE_URL when it is set, else
 * ./evidence.sqlite. Logs that cannot be evidence (a failed audit, a log that ends early unless
 * --store-incomplete) are audited and reported as usual but not recorded; the summary line says
 * how many were recorded, were there already, or were left out and why.
 */
import type { AuditResult } from '../behaviour/audit';
import { isPostgresUrl } from './db';
import { evidenceFromAudit, notEvidence } from './evidence';
import { defaultStoreTarget, EvidenceStore } from './store';

/** Looks like a store target (not a log or a directory to audit). */
export function isStoreTarget(s: string): boolean {
  return isPostgresUrl(s) || /\.(sqlite3?|db)$/i.test(s);
}

/**
 * argv with a bare `--store` given its default value, so the option parser can take `--store` with
 * or without one: the word after `--store` is its value only when it looks like a store target.
 */
export function withStoreDefault(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] !== '--store') continue;
    const next = argv[i + 1];
    if (next === undefined || !isStoreTarget(next)) out.push(defaultStoreTarget(env));
  }
  return out;
}

export interface StoreTally {
  recorded: number;
  already: number;
  /** Logs audited but not taken as evidence, with why. */
  left: { path: string; why: string }[];
  /** Writes that failed. */
  errors: { path: string; error: string }[];
}

/** Records audited logs one after another as they come (`add`), and says how it went (`finish`). */
export class StoreRecorder {
  private chain: Promise<void> = Promise.resolve();
  readonly tally: StoreTally = { recorded: 0, already: 0, left: [], errors: [] };

  private constructor(readonly store: EvidenceStore, private readonly incomplete: boolean) {}

  static async open(target: string, incomplete: boolean): Promise<StoreRecorder> {
    return new StoreRecorder(await EvidenceStore.open(target), incomplete);
  }

  /** Queues the result's evidence for writing. Takes what it needs from `r` at once (its bytes may be reused after). */
  add(r: AuditResult): void {
    const why = notEvidence(r, { incomplete: this.incomplete });
    if (why !== null) {
      this.tally.left.push({ path: r.logPath, why });
      return;
    }
    const e = evidenceFromAudit(r);
    this.chain = this.chain.then(async () => {
      try {
        const { recorded } = await this.store.record(e);
        if (recorded) this.tally.recorded++;
        else this.tally.already++;
      } catch (err) {
        this.tally.errors.push({ path: e.path, error: (err as Error).message.split('\n', 1)[0]! });
      }
    });
  }

  /** Waits for the writes, closes the store; the lines to print. */
  async finish(): Promise<string[]> {
    await this.chain;
    await this.store.close();
    const t = this.tally;
    const lines = [`store ${this.store.where}: ${t.recorded} recorded, ${t.already} already there, ${t.left.length} not evidence${t.errors.length ? `, ${t.errors.length} FAILED TO WRITE` : ''}`];
    for (const l of t.left.slice(0, 20)) lines.push(`  not recorded: ${l.path}: ${l.why}`);
    for (const e of t.errors.slice(0, 20)) lines.push(`  write failed: ${e.path}: ${e.error}`);
    return lines;
  }
}
