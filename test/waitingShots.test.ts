/**
 * Weapon messages waiting for their inputs (server/arena/waitingShots.ts): judged in arrival order
 * once the inputs sent before them are taken, each with its arrival time and stream floor; a leaving
 * slot's messages all go at once; bytes are copied on arrival.
 */
import { describe, expect, it } from 'vitest';
import { WaitingShots } from '../server/arena/waitingShots';
import type { ArenaPlayer as Slot } from '../server/arena/player';

function fakeSlot(name: string): Slot & { name: string } {
  return { name, inputs: { pushed: 0, taken: 0 } } as unknown as Slot & { name: string };
}

describe('WaitingShots', () => {
  it('judges ready messages in arrival order, keeps each client in its own order, copies bytes', () => {
    const w = new WaitingShots();
    const a = fakeSlot('a'), b = fakeSlot('b');
    const judged: string[] = [];
    const judge = (s: Slot, bytes: unknown, at: number, floor: number): void => void judged.push(`${(s as Slot & { name: string }).name}:${(bytes as Uint8Array)[0]}@${at}/${floor}`);
    a.inputs.pushed = 3;
    const buf = new Uint8Array([1]);
    w.push(a, buf, 10, 1010); // after a's 3 inputs
    buf[0] = 9; // the socket reuses its buffer
    b.inputs.pushed = 1;
    w.push(b, new Uint8Array([2]), 11, 1011); // after b's 1 input
    a.inputs.pushed = 4;
    w.push(a, new Uint8Array([3]), 12, 1012); // after a's 4 inputs
    expect(w.holds(a)).toBe(true);
    w.drain(null, judge);
    expect(judged).toEqual([]);
    b.inputs.taken = 1;
    a.inputs.taken = 4; // both of a's are ready now
    w.drain(null, judge);
    expect(judged).toEqual(['a:1@10/1010', 'b:2@11/1011', 'a:3@12/1012']);
    expect(w.length).toBe(0);
    // Not ready until the last input before it is taken.
    a.inputs.pushed = 6;
    w.push(a, new Uint8Array([4]), 13, 1013);
    w.push(a, new Uint8Array([5]), 14, 1014);
    a.inputs.taken = 5;
    w.drain(null, judge);
    expect(judged.length).toBe(3);
    // A leaving slot: all its messages at once, in order.
    w.drain(a, judge);
    expect(judged.slice(3)).toEqual(['a:4@13/1013', 'a:5@14/1014']);
    expect(w.holds(a)).toBe(false);
  });
});
