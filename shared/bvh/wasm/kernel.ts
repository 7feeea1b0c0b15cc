/**
 * The BVH build's WebAssembly SIMD kernels (./buildKernel.wat): binning with the SAH sweeps and the
 * partition, over records kept in the kernel's memory, 32 bytes each (box min
 * xyz, id, box max xyz, bin), so a record moves as two 16-byte vectors with its id. ../build drives
 * them through the same steps and decisions as its plain JavaScript path, and gets the same tree,
 * byte for byte:
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
 *   order) without branches. It gathers the children's doubled-centroid bounds without the known
 *   bounds along the split axis (they are the same numbers) and keeps either of two equal zeros: the
 *   sign of a zero centroid bound changes no later decision (axis and extent comparisons treat -0 as
 *   +0, an extent of zero bins nothing, and m - c0 differs only in the sign of a zero, which
 *   truncates to bin 0 either way).
 * Leaf sums and halving run in JavaScript over the records in the kernel's memory, as on the plain
 * path. The module is compiled once, on first use, synchronously (it is under the 4 KB a browser's main
 * thread may compile synchronously), and its instance serves every later build. Where WebAssembly or
 * its SIMD is missing, or the host refuses to compile, buildKernel() is null and the build runs in
 * plain JavaScript.
 */

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
  load(src: number, n: number): void;
  ids(dst: number, n: number): void;
}

/** One build's records in the kernel, and views of the kernel's outputs. */
export interface KernelRecords {
  k: BuildKernel;
  /** The records as float32 (8 per record: box min xyz at 0, box max xyz at 4). */
  records: Float32Array;
  /** bin's best cost. */
  cost: Float64Array;
  /** The children's boxes after bin: left min xyz, max xyz, then the right child's. */
  boxes: Float64Array;
  /** The children's doubled-centroid bounds after part, in the same layout. */
  centroids: Float64Array;
  /** Where the boxes were staged, later the leaf order. */
  staging: number;
}

let kernel: BuildKernel | null | undefined;

/** The shared instance, or null when this host cannot run it. */
export function buildKernel(): BuildKernel | null {
  if (kernel !== undefined) return kernel;
  kernel = null;
  if (typeof WebAssembly !== 'object' || WebAssembly === null || typeof WebAssembly.validate !== 'function') return kernel;
  const bytes = Uint8Array.from(BUILD_KERNEL_HEX.match(/../g) ?? [], (h) => parseInt(h, 16));
  try {
    if (!WebAssembly.validate(bytes)) return kernel;
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
    kernel = instance.exports as BuildKernel;
  } catch {
    kernel = null;
  }
  return kernel;
}

/**
 * Moves the boxes (6 float32 each, from ../bounds) into the kernel as records with ids 0..n-1,
 * growing its memory to fit: the records, one spare the partition may read past the end, and the
 * staging area (16 bytes more than the boxes, read past by the last record's load).
 */
export function stageRecords(k: BuildKernel, boxes: Float32Array): KernelRecords {
  const n = boxes.length / 6;
  const staging = RECORDS + (n + 1) * RECORD_BYTES;
  const need = staging + n * 24 + 16;
  const have = k.memory.buffer.byteLength;
  if (have < need) k.memory.grow(Math.ceil((need - have) / 65536));
  const mem = k.memory.buffer;
  new Float32Array(mem, staging, n * 6).set(boxes);
  k.load(staging, n);
  return {
    k, staging,
    records: new Float32Array(mem, RECORDS, n * 8),
    cost: new Float64Array(mem, OUT_COST, 1),
    boxes: new Float64Array(mem, OUT_BOXES, 12),
    centroids: new Float64Array(mem, OUT_CENTROIDS, 12),
  };
}

/** The records' ids in their final order: order[i] = original index of the i-th triangle. */
export function kernelOrder(kv: KernelRecords, n: number): Uint32Array {
  kv.k.ids(kv.staging, n);
  return new Uint32Array(kv.k.memory.buffer, kv.staging, n).slice();
}
