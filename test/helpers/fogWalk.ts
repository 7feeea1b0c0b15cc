/**
 * The fog tests' walk on the test level: player C walks out past the end of the wall (x > 6) and
 * back behind it (x < 0), `rounds` times, waiting after each leg for the watcher to take in what
 * followed (its own snapshots, or the page's).
 */
import { createInputMessage } from '../../shared/protocol/input';
import { waitFor, type TestPlayer } from './server';

const walk = (x: number) => ({ ...createInputMessage(), wishX: x, wishZ: 0, viewX: 0, viewY: 0, viewZ: 1 });

export async function walkPastWallAndBack(c: TestPlayer, cx: () => number, afterOut: () => Promise<unknown>, afterBack: () => Promise<unknown>, rounds = 2): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    c.holdInput(walk(1));
    await waitFor(() => cx() > 6, 'C past the end of the wall', 10_000);
    c.stopInputs();
    await afterOut();
    c.holdInput(walk(-1));
    await waitFor(() => cx() < 0, 'C back behind the wall', 10_000);
    c.stopInputs();
    await afterBack();
  }
}
