/**
 * The BVH build's WebAssembly SIMD kernels (./buildKernel.wat): the triangle boxes, binning with the
 * SAH sweeps and the partition, over records kept in the kernel's memory, 32 bytes each (box min
 * xyz, id, box max xyz, bin), so a record moves as two 16-byte vectors with its id. ../build drives
 * them through the same steps and decisions as its plain JavaScript path, and gets the same tree,
 * byte for byte:
 * - Boxes: f32x4.min/max of the corners order -0 below +0 as Math.min and Math.max do (../bounds
 *   takes the same values on integer keys); the bounds of all boxes keep the first of equal values
 *   (pmin/pmax in triangle order), as the strict comparisons there do.
 * - Bins: the bin index is the same double expression, (min_k + max_k - c0) * kk, truncated. A bin's
 *   box is a union of float32 values; min and max of numbers depend on order only in which of -0 and
 *   +0 a bound keeps. Keyed nodes (see ../sah) keep -0 for a minimum and +0 for a maximum, which is
 *   f32x4.min/max; the others keep the first value met, which is f32x4.pmin/pmax applied in record
 *   order. The kernel bins with pmin/pmax into four interleaved replicas, which is right up to the
 *   sign of a zero bound, and bins the node again in record order with its own operations whenever
 *   one of its bounds is a zero.
 * - Sweeps: the same unions in the same order, by pmin/pmax, and the same double arithmetic for
 *   areas and costs, the first cheapest split kept. Where a union's zero bound has the other sign
 *   than in JavaScript, an area or cost can only turn from +0 to -0 or back, which no comparison and
 *   no later sum tells apart. The children's boxes are the unions of their bins in increasing order
 *   with the node's own operations, which is what ../sah's splitBoxes returns.
 * - Partition: the two-cursor partition of ../partition (the same record order, so the same leaf
 *   order) without branches. Centroid bounds (the root's from the boxes, the children's from the
 *   partition) are gathered without the known bounds along the split axis (they are the same
 *   numbers) and keep either of two equal zeros: the sign of a zero centroid bound changes no later
 *   decision (axis and extent comparisons treat -0 as +0, an extent of zero bins nothing, and
 *   m - c0 differs only in the sign of a zero, which truncates to bin 0 either way).
 * Leaf sums and halving run in JavaScript over the records in the kernel's memory, as on the plain
 * path; double input is boxed and built in JavaScript (../bounds rounds its boxes outward). The
 * module is compiled once, on first use, synchronously (it is under the 4 KB a browser's main thread
 * may compile synchronously), and its instance serves every later build. Where WebAssembly or its
 * SIMD is missing, or the host refuses to compile, buildKernel() is null and the build runs in plain
 * JavaScript.
 */

import { triangleBoxes, type TriangleBoxes } from '../bounds';
import { BUILD_KERNEL_HEX } from './buildKernel';

// Byte offsets in the kernel's memory (see the .wat).
const OUT_COST = 2496;
const OUT_BOXES = 2504;
const OUT_CENTROIDS = 2600;
const RECORDS = 4096;
const RECORD_BYTES = 32;

// The part of the WebAssembly JavaScript API used here, declared in this module (shadowing the
// global's type only): shared/ also compiles without the DOM's type declarations.
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
} | undefined;

export interface BuildKernel {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  bin(start: number, end: number, k: number, nb: number, c0: number, kk: number, keyed: number): number;
  part(start: number, end: number, split: number): number;
  boxes(pos: number, idx: number, n: number): number;
}

/**
 * One build's records in the kernel, and views of the kernel's outputs. As TriangleBoxes (../bounds):
 * `boxes` are the records as float32 (8 a record: box min xyz at 0, box max xyz at 4) and `ids` is
 * empty (the ids travel in the records, see kernelOrder).
 */
export interface KernelRecords extends TriangleBoxes {
  k: BuildKernel;
  /** bin's best cost (as SahScratch's in ../sah). */
  bestCost: Float64Array;
  /** The children's boxes after bin: left min xyz, max xyz, then the right child's. */
  childBoxes: Float64Array;
  /** The children's doubled-centroid bounds after part, in the same layout. */
  childCentroids: Float64Array;
}

let kernel: BuildKernel | null | undefined;

/** The shared instance, or null when this host cannot run it. */
export function buildKernel(): BuildKernel | null {
  if (kernel !== undefined) return kernel;
  kernel = null;
  try {
    // Throws where there is no WebAssembly, and validate is false without SIMD.
    const bytes = Uint8Array.from(BUILD_KERNEL_HEX.match(/../g)!, (h) => parseInt(h, 16));
    if (WebAssembly!.validate(bytes)) kernel = new WebAssembly!.Instance(new WebAssembly!.Module(bytes), {}).exports as BuildKernel;
  } catch {
    // No WebAssembly here: the kernel stays null.
  }
  return kernel;
}

/**
 * Boxes float32 triangles into records (ids 0..n-1) in the kernel, growing its memory to fit: the
 * records, one spare the partition may read past the end, then the staged vertices (16 bytes
 * readable past them) and indices. Throws as ../bounds does on a corner that is not finite. null
 * when this host cannot run the kernel or give it that much memory.
 */
export function stageRecords(positions: Float32Array, indices: Uint32Array): KernelRecords | null {
  const k = buildKernel();
  if (k === null) return null;
  const n = (indices.length / 3) | 0;
  const staging = RECORDS + (n + 1) * RECORD_BYTES;
  const idx = staging + positions.length * 4 + 16;
  const need = idx + indices.length * 4;
  const have = k.memory.buffer.byteLength;
  try {
    if (have < need) k.memory.grow(Math.ceil((need - have) / 65536));
  } catch {
    return null; // more memory than the host gives the kernel: the JavaScript path builds
  }
  const mem = k.memory.buffer;
  new Float32Array(mem, staging, positions.length).set(positions);
  new Uint32Array(mem, idx, indices.length).set(indices);
  // A corner that may not be finite: ../bounds throws if one is.
  if (k.boxes(staging, idx, n) !== 0) triangleBoxes(positions, indices);
  return {
    k,
    bounds: new Float64Array(mem, OUT_BOXES, 6).slice(),
    centroidBounds: new Float64Array(mem, OUT_CENTROIDS, 6).slice(),
    boxes: new Float32Array(mem, RECORDS, n * 8),
    ids: new Uint32Array(0),
    bestCost: new Float64Array(mem, OUT_COST, 1),
    childBoxes: new Float64Array(mem, OUT_BOXES, 12),
    childCentroids: new Float64Array(mem, OUT_CENTROIDS, 12),
  };
}

/** The records' ids in their final order: order[i] = original index of the i-th triangle. */
export function kernelOrder(kv: KernelRecords, n: number): Uint32Array {
  const words = new Uint32Array(kv.boxes.buffer, RECORDS, n * 8);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = words[8 * i + 3];
  return order;
}
