/**
 * Each triangle's ancestor a few levels above its leaf in a BVH (the root where the tree is
 * shallower). A shadow ray that last met a triangle tries that subtree before the whole tree
 * (./traverse bvhAnyHitCached): the next blocker of a line that moved a little is usually a
 * neighbour in space, and a subtree a few levels deep costs a fraction of a walk from the root.
 */
import type { BvhArrays } from './traverse';

/** The node `up` levels above each triangle's leaf, by triangle (tris offset / 3); 0 (the root) where fewer levels lie above. */
export function leafAncestors(b: BvhArrays, up: number): Int32Array {
  const U = b.nodesI;
  const parent = new Int32Array(U.length >> 3);
  const out = new Int32Array(b.tris.length / 3);
  const stack = [0];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const w = node << 3, cnt = U[w + 7]!, first = U[w + 6]!;
    if (cnt > 0) {
      let a = node;
      for (let k = 0; k < up && a > 0; k++) a = parent[a]!;
      out.fill(a, first, first + cnt);
    } else {
      parent[first] = node;
      parent[first + 1] = node;
      stack.push(first, first + 1);
    }
  }
  return out;
}
