/**
 * The lines fog of war tests between a viewer's eye region (A) and an enemy's body region (B)
 * (./fog). Each region is an upright prism over a regular octagon with world-fixed corner directions
 * (k * 45 degrees about +Y), stored as PRISM_STRIDE numbers: centre x, z, the radius r of the disc
 * it covers (the octagon circumscribes it: corners at r / cos(22.5 deg)), lowest and highest y, and
 * two aim heights (A: the eye; B: the head, then the body's middle).
 *
 * Line i:
 * - 0, 1: the eye to the body's middle and to its head (the enemy in the open);
 * - 2..17 (matched corners): corner k, bottom or top, of A to the same corner of B. The prisms are
 *   the same octagon scaled (horizontally and vertically by positive factors) and moved, so for any
 *   direction n the corner of each lying farthest along n is the same corner. Against ONE convex
 *   occluder these 16 are exact: a segment from A to B that misses a convex occluder has a plane
 *   separating the two (n.x > c on the segment, < c on the occluder); the matched corners farthest
 *   along n lie beyond it too, so their segment misses the occluder as well.
 * - 18.. (grid): a lateral x vertical grid, matched: point (l, m) of each prism is its centre moved
 *   by l * r along the horizontal direction across the line between the centres, at height
 *   y0 + m * (y1 - y0), l in [-1, 1] and m in [0, 1] on nLat x nVert steps. Between the prisms the
 *   points where these lines cross a plane across the line between the centres form the same grid
 *   scaled to the bundle's section there (lateral spacing at most 2 max(rA, rB) / (nLat - 1),
 *   vertical at most max(heights) / (nVert - 1)): a line threads any opening in a wall across the
 *   line of sight whose clear part holds a rectangle that size (./fog chooses the counts from its
 *   openingM). Openings smaller than that, or several openings that must line up, may be missed.
 * - then, with the fans: the eye to each of B's grid points, and each of A's grid points to the
 *   body's middle: lines from where the eye and body are now, which find some slivers seen through
 *   a doorway at a grazing angle that no matched line threads (measured: test/fogVisibility.test.ts);
 * - then, with the crossing lines: each of nCross points on A's front chord at the eye's height to
 *   each of nCross on B's front chord at the body's middle (nCross^2 lines). A front chord runs
 *   across the line between the centres CHORD_DEPTH r from the centre toward the other region
 *   (half-length sqrt(1 - CHORD_DEPTH^2) r); nCross is set by the crossing lines' own spacing (finer
 *   than the matched grid's: the clear pairs through openings in a row are a thin set) and capped
 *   (initGrid) so the points keep to it on regions up to (2 maxSide - 1) openingM wide.
 *   Matched lines cross any plane between the prisms at offsets in proportion (l rA at A, l rB at
 *   B), so a line that must pass two openings one behind the other (a doorway seen through another,
 *   or four in a row) at offsets out of that proportion is not among them; a crossing line pairs
 *   any offset at A with any at B, so whenever the clear (A offset, B offset) pairs of the two
 *   chords hold a square of the spacing, one is found (test/fogCrossingLines.test.ts). The front
 *   chords, not the diameters: a line through a doorway near a region leaves from its near part (a
 *   diameter behind the doorway's jambs sees through it in a narrower cone, or not at all); not far
 *   forward either, where a region reaching through a wall beside its player would see past it
 *   (more enemies sent). Measured on the rooms level (npm run sim -- --level rooms): lines between
 *   the diameters pop in, at 0.5 less is withheld; at 0.35 an enemy's hand reaching through a thin
 *   wall while its feet stand behind it was missed (its front chord inside the wall), at 0.45 not.
 * Pure arithmetic on the caller's arrays; nothing allocated.
 */

/** Numbers per region: cx, cz, r, y0, y1, and the aim heights (A: eye, eye; B: head, body middle). */
export const PRISM_STRIDE = 7;
export const P_CX = 0, P_CZ = 1, P_R = 2, P_Y0 = 3, P_Y1 = 4, P_EYE = 5, P_MID = 6;

/**
 * The grid of one pair: lateral unit direction (x, z), points across and up (>= 2 each), parts (1, or
 * 3 with the fans), the spacing sizeGrid keeps to (the caller's, set once), 1 with the crossing lines,
 * the crossing lines' lateral points on each region (>= 2), and 1 when those keep to the spacing
 * (0: the regions are wider than the cap lets them).
 */
export const G_UX = 0, G_UZ = 1, G_LAT = 2, G_VERT = 3, G_PARTS = 4, G_SPACING = 5, G_CROSS = 6, G_CROSS_LAT = 7, G_CROSS_FINE = 8;
/** The crossing lines' own spacing and their most points a region (set once by the caller, like G_SPACING). */
export const G_CROSS_SPACING = 9, G_CROSS_MAX = 10;
/** Numbers in a grid record. */
export const GRID_STRIDE = 11;

/** 1 / cos(22.5 deg): corner radius of the octagon circumscribing a unit disc. */
export const OCTAGON_SEC = 1.082392200292394;
const S = 0.7071067811865476;
const DIR_X = new Float64Array([1, S, 0, -S, -1, -S, 0, S]);
const DIR_Z = new Float64Array([0, S, 1, S, 0, -S, -1, -S]);

/** The crossing lines' chords: this share of the radius from the centre toward the other region, and their half-length then. */
export const CHORD_DEPTH = 0.45;
const CHORD_HALF = Math.sqrt(1 - CHORD_DEPTH * CHORD_DEPTH);

/** The two aimed lines and the 16 matched corners: the lines before the grid. */
export const FIXED_RAYS = 18;

/** Lines of a pair whose grid is g (FIXED_RAYS + nLat * nVert for the matched grid, as much again for each fan, nCross^2 crossing lines). */
export function rayCount(g: Float64Array): number {
  return (FIXED_RAYS + g[G_PARTS] * g[G_LAT] * g[G_VERT] + g[G_CROSS] * g[G_CROSS_LAT] * g[G_CROSS_LAT]) | 0;
}

/**
 * Sets a grid record's spacings: the matched grid's (openingM) and the crossing lines' (crossM), and
 * the crossing lines' cap, which keeps them to crossM on regions up to (2 maxSide - 1) openingM wide.
 */
export function initGrid(g: Float64Array, openingM: number, crossM: number, maxSide: number): void {
  g[G_SPACING] = openingM;
  g[G_CROSS_SPACING] = crossM;
  g[G_CROSS_MAX] = Math.max(2 * maxSide, Math.ceil(((2 * maxSide - 1) * openingM) / crossM) + 1);
}

/**
 * Writes the grid of the regions at r[0..] and r[PRISM_STRIDE..] into g: the lateral direction, the
 * counts that make the matched grid no coarser than g[G_SPACING] metres (capped at maxSide a side)
 * and the crossing lines' no coarser than g[G_CROSS_SPACING] (capped at g[G_CROSS_MAX]), and whether
 * the fans and crossing lines follow (g set up by initGrid; the spacings are read from g: a double
 * argument would be boxed on a call V8 does not inline).
 */
export function sizeGrid(g: Float64Array, r: Float64Array, maxSide: number, fans: boolean, cross = false): void {
  const spacing = g[G_SPACING]!;
  g[G_PARTS] = fans ? 3 : 1;
  g[G_CROSS] = cross ? 1 : 0;
  const J = PRISM_STRIDE;
  const dx = r[J + P_CX] - r[P_CX], dz = r[J + P_CZ] - r[P_CZ];
  const l = Math.sqrt(dx * dx + dz * dz);
  if (l > 1e-9) {
    g[G_UX] = -dz / l;
    g[G_UZ] = dx / l;
  } else {
    g[G_UX] = 1;
    g[G_UZ] = 0;
  }
  const width = 2 * (r[P_R] > r[J + P_R] ? r[P_R] : r[J + P_R]);
  const hi = r[P_Y1] - r[P_Y0], hj = r[J + P_Y1] - r[J + P_Y0];
  const height = hi > hj ? hi : hj;
  const lat = Math.floor(width / spacing) + 2, vert = Math.floor(height / spacing) + 2;
  g[G_LAT] = lat < maxSide ? lat : maxSide;
  g[G_VERT] = vert < maxSide ? vert : maxSide;
  // The crossing lines: their own spacing and cap (the lines through openings that must line up are
  // a thin set of pairs, which a coarser step misses).
  const crossMax = g[G_CROSS_MAX]!, nCross = Math.floor(width / g[G_CROSS_SPACING]!) + 2;
  g[G_CROSS_LAT] = nCross < crossMax ? nCross : crossMax;
  g[G_CROSS_FINE] = nCross <= crossMax ? 1 : 0;
}

/** Writes the ends of line i between regions r[0..] and r[PRISM_STRIDE..] (grid g) into out[0..5]. */
export function rayEnds(out: Float64Array, i: number, r: Float64Array, g: Float64Array): void {
  const J = PRISM_STRIDE;
  if (i < 2) {
    out[0] = r[P_CX]; out[1] = r[P_EYE]; out[2] = r[P_CZ];
    out[3] = r[J + P_CX]; out[4] = i === 0 ? r[J + P_MID] : r[J + P_EYE]; out[5] = r[J + P_CZ];
    return;
  }
  if (i < FIXED_RAYS) {
    const j = i - 2;
    const k = j >> 1, top = (j & 1) === 1;
    const dx = DIR_X[k] * OCTAGON_SEC, dz = DIR_Z[k] * OCTAGON_SEC;
    out[0] = r[P_CX] + dx * r[P_R]; out[1] = top ? r[P_Y1] : r[P_Y0]; out[2] = r[P_CZ] + dz * r[P_R];
    out[3] = r[J + P_CX] + dx * r[J + P_R]; out[4] = top ? r[J + P_Y1] : r[J + P_Y0]; out[5] = r[J + P_CZ] + dz * r[J + P_R];
    return;
  }
  const lat = g[G_LAT], vert = g[G_VERT], cells = lat * vert;
  const k = i - FIXED_RAYS;
  if (k >= g[G_PARTS] * cells) {
    // The crossing lines: every point of A's front chord at the eye to every point of B's at the
    // body's middle (the chords moved toward each other; (UZ, -UX) points from A to B).
    const n = g[G_CROSS_LAT], c = k - g[G_PARTS] * cells, a = c % n, b = (c - a) / n;
    const la = (-1 + (2 * a) / (n - 1)) * CHORD_HALF, lb = (-1 + (2 * b) / (n - 1)) * CHORD_HALF;
    const ux = g[G_UX], uz = g[G_UZ], d = CHORD_DEPTH;
    out[0] = r[P_CX] + (d * uz + la * ux) * r[P_R]; out[1] = r[P_EYE]; out[2] = r[P_CZ] + (la * uz - d * ux) * r[P_R];
    out[3] = r[J + P_CX] + (lb * ux - d * uz) * r[J + P_R]; out[4] = r[J + P_MID]; out[5] = r[J + P_CZ] + (d * ux + lb * uz) * r[J + P_R];
    return;
  }
  const part = k < cells ? 0 : k < 2 * cells ? 1 : 2;
  const j = k - part * cells;
  const a = j % lat, b = (j - a) / lat;
  const l = -1 + (2 * a) / (lat - 1), m = b / (vert - 1);
  const ux = g[G_UX] * l, uz = g[G_UZ] * l;
  out[0] = r[P_CX] + ux * r[P_R]; out[1] = r[P_Y0] + m * (r[P_Y1] - r[P_Y0]); out[2] = r[P_CZ] + uz * r[P_R];
  out[3] = r[J + P_CX] + ux * r[J + P_R]; out[4] = r[J + P_Y0] + m * (r[J + P_Y1] - r[J + P_Y0]); out[5] = r[J + P_CZ] + uz * r[J + P_R];
  // The fans: the eye to each body grid point, each eye grid point to the body's middle.
  if (part === 1) {
    out[0] = r[P_CX]; out[1] = r[P_EYE]; out[2] = r[P_CZ];
  } else if (part === 2) {
    out[3] = r[J + P_CX]; out[4] = r[J + P_MID]; out[5] = r[J + P_CZ];
  }
}

/** True when region P (at p[po..]) lies inside region Q (at q[qo..]): its disc in Q's disc, its heights in Q's. */
export function prismInside(p: Float64Array, po: number, q: Float64Array, qo: number): boolean {
  const dx = p[po + P_CX] - q[qo + P_CX], dz = p[po + P_CZ] - q[qo + P_CZ];
  const room = q[qo + P_R] - p[po + P_R];
  if (!(room >= 0)) return false;
  return dx * dx + dz * dz <= room * room && p[po + P_Y0] >= q[qo + P_Y0] && p[po + P_Y1] <= q[qo + P_Y1];
}
