/**
 * The lines fog of war tests between a viewer's eye region (A) and an enemy's body region (B)
 * (./fog). Each region is an upright prism over a convex polygon whose sides face the eight
 * world-fixed directions k * 45 degrees about +Y (an 8-sided k-DOP), stored as PRISM_STRIDE numbers:
 * a centre x, z, the radius r of a disc about it holding the polygon, lowest and highest y, two aim
 * heights (A: the eye; B: the head, then the body's middle), the aim point x, z (where the player
 * stands: the aimed lines leave from it) and the polygon's eight supports s_k: how far its side k
 * lies from the centre along direction k. A region not cut by walls is the regular octagon
 * circumscribing its disc (every s_k = r); a region cut by walls (./walk) has smaller ones. The
 * supports are tight (each side touches the polygon: ./regions tightens them), so corner k, where
 * the lines of sides k and k + 1 meet, is a vertex.
 *
 * Line i:
 * - 0, 1: the eye to the body's middle and to its head (the enemy in the open);
 * - 2, 3: the eye to the two ends of B's side nearest A (the corners farthest toward A's centre) at
 *   the body's middle: a hand or foot of a body standing behind a thin wall reaches through it, in
 *   front of its chords and lateral grid, and seen from a room whose walls cut the eye's region,
 *   past its matched corners' reach;
 * - 4..19 (matched corners): corner k, bottom or top, of A to the same corner of B. Both polygons
 *   have their sides along the same eight directions, so for any direction n the corner of each
 *   lying farthest along n is the same corner k (the one between the sides whose directions
 *   bracket n). Against ONE convex occluder these 16 are exact: a segment from A to B that misses
 *   a convex occluder has a plane separating the two (n.x > c on the segment, < c on the occluder);
 *   the matched corners farthest along n lie beyond it too, so their segment misses it as well.
 * - 18.. (grid): a lateral x vertical grid, matched: point (l, m) of each prism lies on its lateral
 *   chord (from its corner farthest along -u to the one farthest along u, u the horizontal
 *   direction across the line between the centres: the chord spans the polygon's whole width
 *   across) at fraction (l + 1) / 2, at height y0 + m * (y1 - y0), l in [-1, 1] and m in [0, 1] on
 *   nLat x nVert steps. Points are affine in (l, m), so between the prisms the points where these
 *   lines cross a plane across the line between the centres form the same grid scaled to the
 *   bundle's section there (lateral spacing at most max(widths) / (nLat - 1), vertical at most
 *   max(heights) / (nVert - 1)): a line threads any opening in a wall across the line of sight whose
 *   clear part holds a rectangle that size (./fog chooses the counts from its openingM). Openings
 *   smaller than that, or several openings that must line up, may be missed.
 * - then, with the fans: the eye to each of B's grid points, and each of A's grid points to the
 *   body's middle: lines from where the eye and body are now, which find some slivers seen through
 *   a doorway at a grazing angle that no matched line threads (measured: test/fogVisibility.test.ts);
 * - then, with the crossing lines: each of nA points on A's front chord at the eye's height to
 *   each of nB on B's front chord at the body's middle, then the same to its head (CROSS_ROWS
 *   rows of nA nB lines: where most of both regions lies behind a wall, the lines past a
 *   doorway's jamb are a thin set, and low cover by the body, a crate, blocks those to its middle
 *   while the eye sees its head over it). A front chord is the
 *   polygon's chord across the line between the centres, CHORD_DEPTH of its half-depth from the
 *   middle of its depth toward the other region; each chord's count is set by the crossing lines'
 *   own spacing (finer than the matched grid's: the clear pairs through openings in a row are a thin
 *   set) and capped (initGrid) so the points keep to it on chords up to (2 maxSide - 1) openingM long.
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

/**
 * Numbers per region: cx, cz, r, y0, y1, the aim heights (A: eye, eye; B: head, body middle), the
 * aim point x, z, the eight supports s_0..s_7 (P_S + k) along DIR_X/DIR_Z k, and the eight corners
 * (P_K + 2k: x, z of corner k) they give (setOctagon and tightenSupports write them).
 */
export const PRISM_STRIDE = 33;
export const P_CX = 0, P_CZ = 1, P_R = 2, P_Y0 = 3, P_Y1 = 4, P_EYE = 5, P_MID = 6, P_AX = 7, P_AZ = 8, P_S = 9, P_K = 17;

/**
 * The grid of one pair: lateral unit direction (x, z), points across and up (>= 2 each), parts (1, or
 * 3 with the fans), the spacing sizeGrid keeps to (the caller's, set once), the crossing lines' rows (0: none),
 * the crossing lines' lateral points on A's front chord (>= 2; B's at G_CROSS_LAT_B), and 1 when
 * both keep to the spacing (0: a region is wider than the cap lets it).
 */
export const G_UX = 0, G_UZ = 1, G_LAT = 2, G_VERT = 3, G_PARTS = 4, G_SPACING = 5, G_CROSS = 6, G_CROSS_LAT = 7, G_CROSS_FINE = 8;
/** The crossing lines' own spacing and their most points a region (set once by the caller, like G_SPACING). */
export const G_CROSS_SPACING = 9, G_CROSS_MAX = 10;
/**
 * Per region (A at G_CHORDS, B 8 later): its lateral chord's ends (x, z at -u, then at +u) and its
 * front chord's ends (the same way), written by sizeGrid.
 */
export const G_CHORDS = 11;
/** The crossing lines' points on B's front chord (G_CROSS_LAT: on A's), written by sizeGrid. */
export const G_CROSS_LAT_B = 27;
/** Numbers in a grid record. */
export const GRID_STRIDE = 28;

/** 1 / cos(22.5 deg): corner radius of the octagon circumscribing a unit disc. */
export const OCTAGON_SEC = 1.082392200292394;
const S = 0.7071067811865476;
/** The sides' directions, k * 45 degrees from +x toward +z (./walk's supports come in this order). */
export const DIR_X = new Float64Array([1, S, 0, -S, -1, -S, 0, S]);
export const DIR_Z = new Float64Array([0, S, 1, S, 0, -S, -1, -S]);

/** Sets the supports of the region at r[o..] to its disc's octagon (each = r), and its corners. */
export function setOctagon(r: Float64Array, o: number): void {
  for (let k = 0; k < 8; k++) r[o + P_S + k] = r[o + P_R];
  setCorners(r, o);
}

/** Writes the corners of the region at r[o..] from its supports (cornerInto). */
export function setCorners(r: Float64Array, o: number): void {
  for (let k = 0; k < 8; k++) cornerInto(r, o + P_K + 2 * k, r, o, k);
}

/** tightenSupports' scratch: two polygons of up to 12 corners (x, z relative to the centre). */
const POLY_A = new Float64Array(24), POLY_B = new Float64Array(24);

/**
 * Makes the supports of the region at r[o..] tight: each becomes the polygon's own extent along its
 * direction (the polygon, the intersection of the eight half-planes, is cut from a square holding
 * it; an empty one keeps the supports as they are), and writes the corners: each is then a vertex.
 */
export function tightenSupports(r: Float64Array, o: number): void {
  let big = 0;
  for (let k = 0; k < 8; k++) big = Math.max(big, Math.abs(r[o + P_S + k]));
  big = 2 * big + 1;
  let src = POLY_A, dst = POLY_B, n = 4;
  src[0] = -big; src[1] = -big; src[2] = big; src[3] = -big; src[4] = big; src[5] = big; src[6] = -big; src[7] = big;
  for (let k = 0; k < 8 && n > 0; k++) {
    const nx = DIR_X[k], nz = DIR_Z[k], s = r[o + P_S + k];
    let m = 0;
    for (let i = 0; i < n; i++) {
      const j = i + 1 === n ? 0 : i + 1;
      const ax = src[2 * i], az = src[2 * i + 1], bx = src[2 * j], bz = src[2 * j + 1];
      const da = ax * nx + az * nz - s, db = bx * nx + bz * nz - s;
      if (da <= 0 && m < 12) { dst[2 * m] = ax; dst[2 * m + 1] = az; m++; }
      if (((da < 0 && db > 0) || (da > 0 && db < 0)) && m < 12) {
        const t = da / (da - db);
        dst[2 * m] = ax + t * (bx - ax); dst[2 * m + 1] = az + t * (bz - az); m++;
      }
    }
    const tmp = src; src = dst; dst = tmp; n = m;
  }
  if (n === 0) return;
  for (let k = 0; k < 8; k++) {
    let h = -Infinity;
    for (let i = 0; i < n; i++) {
      const d = src[2 * i] * DIR_X[k] + src[2 * i + 1] * DIR_Z[k];
      if (d > h) h = d;
    }
    r[o + P_S + k] = h;
  }
  setCorners(r, o);
}

/**
 * Writes corner k (where sides k and k + 1 meet) of the region at r[o..] into out[at], out[at + 1]
 * (x, z): p.n_k = s_k and p.n_(k+1) = s_(k+1), n_k x n_(k+1) = sin 45 degrees.
 */
function cornerInto(out: Float64Array, at: number, r: Float64Array, o: number, k: number): void {
  const m = (k + 1) & 7, sk = r[o + P_S + k], sm = r[o + P_S + m];
  out[at] = r[o + P_CX] + (sk * DIR_Z[m] - sm * DIR_Z[k]) / S;
  out[at + 1] = r[o + P_CZ] + (DIR_X[k] * sm - DIR_X[m] * sk) / S;
}

/** The crossing lines' chords: this share of the radius from the centre toward the other region, and their half-length then. */
export const CHORD_DEPTH = 0.45;

/** The crossing lines' rows: from the eye to the body's middle, then to its head. */
export const CROSS_ROWS = 2;

/** The aimed lines (the eye to the body's middle and head, then to the near side's ends). */
export const AIMED_RAYS = 4;
/** The aimed lines and the 16 matched corners: the lines before the grid. */
export const FIXED_RAYS = AIMED_RAYS + 16;

/** Lines of a pair whose grid is g (FIXED_RAYS + nLat * nVert for the matched grid, as much again for each fan, nCrossA * nCrossB crossing lines per row). */
export function rayCount(g: Float64Array): number {
  return (FIXED_RAYS + g[G_PARTS] * g[G_LAT] * g[G_VERT] + g[G_CROSS] * g[G_CROSS_LAT] * g[G_CROSS_LAT_B]) | 0;
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
 * Writes the grid of the regions at r[0..] and r[PRISM_STRIDE..] into g: the lateral direction, each
 * region's lateral and front chords, the counts that make the matched grid no coarser than
 * g[G_SPACING] metres (capped at maxSide a side) and the crossing lines' no coarser than
 * g[G_CROSS_SPACING] (capped at g[G_CROSS_MAX]), and whether the fans and crossing lines follow (g
 * set up by initGrid; the spacings are read from g: a double argument would be boxed on a call V8
 * does not inline).
 */
export function sizeGrid(g: Float64Array, r: Float64Array, maxSide: number, fans: boolean, cross = false): void {
  const spacing = g[G_SPACING]!;
  g[G_PARTS] = fans ? 3 : 1;
  g[G_CROSS] = cross ? CROSS_ROWS : 0;
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
  chordsOf(g, G_CHORDS, r, 0, 1);
  chordsOf(g, G_CHORDS + 8, r, J, -1);
  // Each region's width across and front chord length: its chords' ends along u.
  const ux = g[G_UX]!, uz = g[G_UZ]!, A = G_CHORDS, B = G_CHORDS + 8;
  const wa = (g[A + 2] - g[A]) * ux + (g[A + 3] - g[A + 1]) * uz, wb = (g[B + 2] - g[B]) * ux + (g[B + 3] - g[B + 1]) * uz;
  const ca = (g[A + 6] - g[A + 4]) * ux + (g[A + 7] - g[A + 5]) * uz, cb = (g[B + 6] - g[B + 4]) * ux + (g[B + 7] - g[B + 5]) * uz;
  const width = wa > wb ? wa : wb;
  const hi = r[P_Y1] - r[P_Y0], hj = r[J + P_Y1] - r[J + P_Y0];
  const height = hi > hj ? hi : hj;
  const lat = Math.floor(width / spacing) + 2, vert = Math.floor(height / spacing) + 2;
  g[G_LAT] = lat < maxSide ? lat : maxSide;
  g[G_VERT] = vert < maxSide ? vert : maxSide;
  // The crossing lines: their own spacing and cap (the lines through openings that must line up are
  // a thin set of pairs, which a coarser step misses), each chord its own count: the spacing holds on
  // each, so any square of that side in (A offset, B offset) holds a line, with no more points on
  // the shorter chord (a body's) than it needs.
  const crossMax = g[G_CROSS_MAX]!, nA = Math.floor(ca / g[G_CROSS_SPACING]!) + 2, nB = Math.floor(cb / g[G_CROSS_SPACING]!) + 2;
  g[G_CROSS_LAT] = nA < crossMax ? nA : crossMax;
  g[G_CROSS_LAT_B] = nB < crossMax ? nB : crossMax;
  g[G_CROSS_FINE] = nA <= crossMax && nB <= crossMax ? 1 : 0;
}

/**
 * Writes the chords of the region at r[o..] into g[at..at + 7] (see G_CHORDS): the lateral chord
 * between its corners farthest along -u and u, and the front chord: the polygon's chord across w
 * (toward = 1: w = (uz, -ux), from A to B; -1: the other way) CHORD_DEPTH of its half-depth from the
 * middle of its depth toward the other region.
 */
function chordsOf(g: Float64Array, at: number, r: Float64Array, o: number, toward: number): void {
  const ux = g[G_UX]!, uz = g[G_UZ]!, wx = uz * toward, wz = -ux * toward, cx = r[o + P_CX], cz = r[o + P_CZ];
  let lo = Infinity, hi = -Infinity, klo = 0, khi = 0, dlo = Infinity, dhi = -Infinity;
  for (let k = 0; k < 8; k++) {
    const px = r[o + P_K + 2 * k] - cx, pz = r[o + P_K + 2 * k + 1] - cz;
    const t = px * ux + pz * uz, d = px * wx + pz * wz;
    if (t < lo) { lo = t; klo = k; }
    if (t > hi) { hi = t; khi = k; }
    if (d < dlo) dlo = d;
    if (d > dhi) dhi = d;
  }
  g[at] = r[o + P_K + 2 * klo]; g[at + 1] = r[o + P_K + 2 * klo + 1];
  g[at + 2] = r[o + P_K + 2 * khi]; g[at + 3] = r[o + P_K + 2 * khi + 1];
  // The front chord: points c + depth w + t u inside every side: t (u.n_k) <= s_k - depth (w.n_k).
  const depth = 0.5 * (dlo + dhi) + CHORD_DEPTH * 0.5 * (dhi - dlo);
  let t0 = -Infinity, t1 = Infinity;
  for (let k = 0; k < 8; k++) {
    const un = ux * DIR_X[k] + uz * DIR_Z[k], room = r[o + P_S + k] - depth * (wx * DIR_X[k] + wz * DIR_Z[k]);
    if (un > 1e-12) { const t = room / un; if (t < t1) t1 = t; }
    else if (un < -1e-12) { const t = room / un; if (t > t0) t0 = t; }
  }
  if (!(t1 >= t0)) { t0 = 0; t1 = 0; }
  g[at + 4] = cx + depth * wx + t0 * ux; g[at + 5] = cz + depth * wz + t0 * uz;
  g[at + 6] = cx + depth * wx + t1 * ux; g[at + 7] = cz + depth * wz + t1 * uz;
}

/** Writes the ends of line i between regions r[0..] and r[PRISM_STRIDE..] (grid g) into out[0..5]. */
export function rayEnds(out: Float64Array, i: number, r: Float64Array, g: Float64Array): void {
  const J = PRISM_STRIDE;
  if (i < 2) {
    out[0] = r[P_AX]; out[1] = r[P_EYE]; out[2] = r[P_AZ];
    out[3] = r[J + P_AX]; out[4] = i === 0 ? r[J + P_MID] : r[J + P_EYE]; out[5] = r[J + P_AZ];
    return;
  }
  if (i < AIMED_RAYS) {
    // B's corners farthest toward A's centre: the first (i = 2) and the second.
    const nx = r[P_CX] - r[J + P_CX], nz = r[P_CZ] - r[J + P_CZ];
    let k1 = 0, k2 = 1, d1 = -Infinity, d2 = -Infinity;
    for (let k = 0; k < 8; k++) {
      const d = (r[J + P_K + 2 * k] - r[J + P_CX]) * nx + (r[J + P_K + 2 * k + 1] - r[J + P_CZ]) * nz;
      if (d > d1) { d2 = d1; k2 = k1; d1 = d; k1 = k; } else if (d > d2) { d2 = d; k2 = k; }
    }
    const k = P_K + 2 * (i === 2 ? k1 : k2);
    out[0] = r[P_AX]; out[1] = r[P_EYE]; out[2] = r[P_AZ];
    out[3] = r[J + k]; out[4] = r[J + P_MID]; out[5] = r[J + k + 1];
    return;
  }
  if (i < FIXED_RAYS) {
    const j = i - AIMED_RAYS;
    const k = P_K + 2 * (j >> 1), top = (j & 1) === 1;
    out[0] = r[k]; out[1] = top ? r[P_Y1] : r[P_Y0]; out[2] = r[k + 1];
    out[3] = r[J + k]; out[4] = top ? r[J + P_Y1] : r[J + P_Y0]; out[5] = r[J + k + 1];
    return;
  }
  // The line's place in its family (the counts are small integers: as int32s these are integer
  // divisions; on doubles, % is a call), then its ends from there.
  const lat = g[G_LAT] | 0, cells = lat * (g[G_VERT] | 0), body = (g[G_PARTS] | 0) * cells;
  const k = i - FIXED_RAYS;
  if (k >= body) {
    const n = g[G_CROSS_LAT] | 0, nn = n * (g[G_CROSS_LAT_B] | 0);
    let c = k - body;
    if (c >= nn) c -= nn;
    const a = c % n;
    familyEnds(out, i, a, (c - a) / n, r, g);
    return;
  }
  const part = k < cells ? 0 : k < 2 * cells ? 1 : 2;
  const j = k - part * cells, a = j % lat;
  familyEnds(out, i, a, (j - a) / lat, r, g);
  // The fans: the eye to each body grid point, each eye grid point to the body's middle.
  if (part === 1) {
    out[0] = r[P_AX]; out[1] = r[P_EYE]; out[2] = r[P_AZ];
  } else if (part === 2) {
    out[3] = r[J + P_AX]; out[4] = r[J + P_MID]; out[5] = r[J + P_AZ];
  }
}

/**
 * The ends of line i of the matched grid (a fan's grid point too) or of a crossing row, from its
 * place in its family: lateral (or eye chord) index a, vertical (or body chord) index b. The family
 * walk (./cast) knows them; rayEnds takes i apart for the rest. Crossing lines join every point of
 * A's front chord at the eye to every point of B's at the body's middle, then (the second row) at
 * its head, both chords from their -u end.
 */
export function familyEnds(out: Float64Array, i: number, a: number, b: number, r: Float64Array, g: Float64Array): void {
  const J = PRISM_STRIDE, A = G_CHORDS, B = G_CHORDS + 8;
  const lat = g[G_LAT] | 0, vert = g[G_VERT] | 0, body = (g[G_PARTS] | 0) * lat * vert;
  const k = i - FIXED_RAYS;
  if (k >= body) {
    const n = g[G_CROSS_LAT] | 0, nb = g[G_CROSS_LAT_B] | 0;
    const head = k - body >= n * nb;
    const fa = a / (n - 1), fb = b / (nb - 1);
    out[0] = g[A + 4] + fa * (g[A + 6] - g[A + 4]); out[1] = r[P_EYE]; out[2] = g[A + 5] + fa * (g[A + 7] - g[A + 5]);
    out[3] = g[B + 4] + fb * (g[B + 6] - g[B + 4]); out[4] = head ? r[J + P_EYE] : r[J + P_MID]; out[5] = g[B + 5] + fb * (g[B + 7] - g[B + 5]);
    return;
  }
  const f = a / (lat - 1), m = b / (vert - 1);
  out[0] = g[A] + f * (g[A + 2] - g[A]); out[1] = r[P_Y0] + m * (r[P_Y1] - r[P_Y0]); out[2] = g[A + 1] + f * (g[A + 3] - g[A + 1]);
  out[3] = g[B] + f * (g[B + 2] - g[B]); out[4] = r[J + P_Y0] + m * (r[J + P_Y1] - r[J + P_Y0]); out[5] = g[B + 1] + f * (g[B + 3] - g[B + 1]);
}

/** True when region P (at p[po..]) lies inside region Q (at q[qo..]): every side of P within Q's, its heights in Q's. */
export function prismInside(p: Float64Array, po: number, q: Float64Array, qo: number): boolean {
  const dx = p[po + P_CX] - q[qo + P_CX], dz = p[po + P_CZ] - q[qo + P_CZ];
  for (let k = 0; k < 8; k++) {
    if (!(dx * DIR_X[k] + dz * DIR_Z[k] + p[po + P_S + k] <= q[qo + P_S + k])) return false;
  }
  return p[po + P_Y0] >= q[qo + P_Y0] && p[po + P_Y1] <= q[qo + P_Y1];
}
