/**
 * The clock of a group of light load players (lightBots.ts, lightRockets.ts): every player ticked
 * every 4 ms while started, and closing leaves each room (2 s at most per player).
 */
export interface TickedPlayer {
  tick(now: number): void;
  readonly room: { leave(consented?: boolean): Promise<unknown> };
}

export interface TickLoop {
  start(): void;
  stop(): void;
  close(): Promise<void>;
}

export function tickLoop(players: readonly TickedPlayer[]): TickLoop {
  let timer: ReturnType<typeof setInterval> | null = null;
  const stop = (): void => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };
  return {
    start() {
      timer ??= setInterval(() => {
        const now = performance.now();
        for (const p of players) p.tick(now);
      }, 4);
    },
    stop,
    async close() {
      stop();
      await Promise.all(players.map((p) => Promise.race([p.room.leave(true).catch(() => undefined), new Promise((r) => setTimeout(r, 2000))])));
    },
  };
}
