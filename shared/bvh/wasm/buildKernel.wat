;; BVH build kernels in WebAssembly SIMD: the binned SAH of one node (binning and both sweeps) and the
;; partition of its records at the chosen split, and the records themselves (triangle boxes).
;; The control (job stack, leaf tests, halving, node writes) stays in shared/bvh/build.ts;
;; shared/bvh/wasm/kernel.ts says why every result equals the plain JavaScript build's bit for bit.
;; Compiled by server/build/wasm.mjs into buildKernel.ts (npm run build:wasm).
;;
;; Memory (bytes):
;;   0     4 replicas x 16 bins x (min v128, max v128); replica 0 holds the merged bins
;;   2048  4 replicas x 16 bins x i32 count
;;   2304  16 x i32 right-sweep counts
;;   2368  16 x f64 right-sweep areas
;;   2496  out: best cost (f64)
;;   2504  out: children's boxes, 12 f64: left min xyz, max xyz, then the right child's
;;   2600  out: children's doubled-centroid bounds, 12 f64 in the same layout
;;   4096  records, 32 bytes each: min x y z (f32), id (u32), max x y z (f32), bin (i32)
(module
  (memory (export "memory") 1)
  ;; Constants: infinities (float32 and double lanes), zero, and the mask of lanes 0..2.
  (global $inf v128 (v128.const f32x4 inf inf inf inf))
  (global $ninf v128 (v128.const f32x4 -inf -inf -inf -inf))
  (global $dinf v128 (v128.const f64x2 inf inf))
  (global $dninf v128 (v128.const f64x2 -inf -inf))
  (global $zero v128 (v128.const i32x4 0 0 0 0))
  (global $xyz v128 (v128.const i32x4 -1 -1 -1 0))

  ;; Surface-area measure of a box (lanes 0..2 of lo and hi), in doubles: ax*ay + ay*az + az*ax.
  (func $area (param $lo v128) (param $hi v128) (result f64)
    (local $d v128) (local $ax f64) (local $ay f64) (local $az f64)
    (local.set $d (f64x2.sub (f64x2.promote_low_f32x4 (local.get $hi)) (f64x2.promote_low_f32x4 (local.get $lo))))
    (local.set $ax (f64x2.extract_lane 0 (local.get $d)))
    (local.set $ay (f64x2.extract_lane 1 (local.get $d)))
    (local.set $az (f64.sub (f64.promote_f32 (f32x4.extract_lane 2 (local.get $hi)))
                            (f64.promote_f32 (f32x4.extract_lane 2 (local.get $lo)))))
    (f64.add (f64.add (f64.mul (local.get $ax) (local.get $ay)) (f64.mul (local.get $ay) (local.get $az)))
             (f64.mul (local.get $az) (local.get $ax))))

  ;; Writes the box (lanes 0..2 of lo and hi) at out as 6 doubles: min xyz, max xyz.
  (func $storeBox (param $out i32) (param $lo v128) (param $hi v128)
    (v128.store (local.get $out) (f64x2.promote_low_f32x4 (local.get $lo)))
    (f64.store offset=16 (local.get $out) (f64.promote_f32 (f32x4.extract_lane 2 (local.get $lo))))
    (v128.store offset=24 (local.get $out) (f64x2.promote_low_f32x4 (local.get $hi)))
    (f64.store offset=40 (local.get $out) (f64.promote_f32 (f32x4.extract_lane 2 (local.get $hi)))))

  ;; Writes centroid bounds gathered as min (x, y), max (x, y) and min (z, -z) at out as 6 doubles.
  (func $storeCentroids (param $out i32) (param $min v128) (param $max v128) (param $z v128)
    (v128.store (local.get $out) (local.get $min))
    (f64.store offset=16 (local.get $out) (f64x2.extract_lane 0 (local.get $z)))
    (v128.store offset=24 (local.get $out) (local.get $max))
    (f64.store offset=40 (local.get $out) (f64.neg (f64x2.extract_lane 1 (local.get $z)))))

  ;; Union of merged bins [b, e) in increasing order into the out box at $out: min/max when keyed,
  ;; else pmin/pmax (the first of equal values stays, as a strict comparison keeps it).
  (func $unionBins (param $b i32) (param $e i32) (param $keyed i32) (param $out i32)
    (local $lo v128) (local $hi v128) (local $a i32)
    (local.set $lo (global.get $inf))
    (local.set $hi (global.get $ninf))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $b) (local.get $e)))
      (local.set $a (i32.shl (local.get $b) (i32.const 5)))
      (local.set $lo (select (result v128)
        (f32x4.min (local.get $lo) (v128.load (local.get $a)))
        (f32x4.pmin (local.get $lo) (v128.load (local.get $a))) (local.get $keyed)))
      (local.set $hi (select (result v128)
        (f32x4.max (local.get $hi) (v128.load offset=16 (local.get $a)))
        (f32x4.pmax (local.get $hi) (v128.load offset=16 (local.get $a))) (local.get $keyed)))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br $next)))
    (call $storeBox (local.get $out) (local.get $lo) (local.get $hi)))

  ;; Sets bins [0, e) empty (replica r's bin b is bin 16 r + b).
  (func $clearBins (param $e i32)
    (local $i i32)
    (loop $bin
      (v128.store (i32.shl (local.get $i) (i32.const 5)) (global.get $inf))
      (v128.store offset=16 (i32.shl (local.get $i) (i32.const 5)) (global.get $ninf))
      (i32.store offset=2048 (i32.shl (local.get $i) (i32.const 2)) (i32.const 0))
      (br_if $bin (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $e)))))

  ;; Bins records [start, end) along axis k into nb bins, bin = trunc((min_k + max_k - c0) * kk) in
  ;; doubles (stored in each record for part), and sweeps the SAH. Returns the best split s (the left
  ;; child takes bins 0..s-1) with its cost at 2496 and the children's boxes at 2504, or 0 when every
  ;; split leaves a side empty. keyed: bounds by min/max (-0 below +0), else as first met among
  ;; equal values (see the zero test below).
  (func (export "bin") (param $start i32) (param $end i32) (param $k i32) (param $nb i32)
        (param $c0 f64) (param $kk f64) (param $keyed i32) (result i32)
    (local $p i32) (local $o i32) (local $a i32) (local $b i32) (local $r i32) (local $rm i32) (local $reps i32)
    (local $s i32) (local $cnt i32) (local $rc i32) (local $best i32)
    (local $lo v128) (local $hi v128) (local $z v128) (local $cost f64) (local $bestCost f64)
    ;; Four bin replicas (record p in replica p & 3) for large nodes, so consecutive records of one
    ;; bin do not wait on each other's stores; one for small nodes.
    (local.set $rm (select (i32.const 3) (i32.const 0) (i32.ge_u (i32.sub (local.get $end) (local.get $start)) (i32.const 64))))
    (local.set $reps (i32.add (local.get $rm) (i32.const 1)))
    (call $clearBins (select (i32.const 64) (local.get $nb) (local.get $rm)))
    (local.set $k (i32.shl (local.get $k) (i32.const 2)))
    (local.set $p (local.get $start))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (local.set $o (i32.add (i32.const 4096) (i32.shl (local.get $p) (i32.const 5))))
      (local.set $a (i32.add (local.get $o) (local.get $k)))
      ;; The product lies in [0, nb) (c0 is the least centroid, kk maps the extent under nb), so its
      ;; truncation is its floor, read from the low mantissa bits of floor + 2^52 (no branches).
      (local.set $b (i32.wrap_i64 (i64.reinterpret_f64 (f64.add (f64.const 0x1p52) (f64.floor (f64.mul (f64.sub
        (f64.add (f64.promote_f32 (f32.load (local.get $a))) (f64.promote_f32 (f32.load offset=16 (local.get $a))))
        (local.get $c0)) (local.get $kk)))))))
      ;; The box is read before the bin is written into the same 16 bytes (a wide load over a
      ;; narrower store still in flight would stall).
      (local.set $lo (v128.load (local.get $o)))
      (local.set $hi (v128.load offset=16 (local.get $o)))
      (i32.store offset=28 (local.get $o) (local.get $b))
      (local.set $r (i32.and (local.get $p) (local.get $rm)))
      (local.set $a (i32.add (i32.shl (local.get $r) (i32.const 9)) (i32.shl (local.get $b) (i32.const 5))))
      (v128.store (local.get $a) (f32x4.pmin (v128.load (local.get $a)) (local.get $lo)))
      (v128.store offset=16 (local.get $a) (f32x4.pmax (v128.load offset=16 (local.get $a)) (local.get $hi)))
      (local.set $a (i32.add (i32.shl (local.get $r) (i32.const 6)) (i32.shl (local.get $b) (i32.const 2))))
      (i32.store offset=2048 (local.get $a) (i32.add (i32.load offset=2048 (local.get $a)) (i32.const 1)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $next)))
    ;; Merge the replicas into replica 0.
    (local.set $r (i32.const 1))
    (block $merged (loop $rep
      (br_if $merged (i32.ge_u (local.get $r) (local.get $reps)))
      (local.set $b (i32.const 0))
      (loop $bin
        (local.set $a (i32.shl (local.get $b) (i32.const 5)))
        (local.set $o (i32.add (local.get $a) (i32.shl (local.get $r) (i32.const 9))))
        (v128.store (local.get $a) (f32x4.pmin (v128.load (local.get $a)) (v128.load (local.get $o))))
        (v128.store offset=16 (local.get $a) (f32x4.pmax (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $o))))
        (local.set $a (i32.shl (local.get $b) (i32.const 2)))
        (i32.store offset=2048 (local.get $a) (i32.add (i32.load offset=2048 (local.get $a))
          (i32.load offset=2048 (i32.add (local.get $a) (i32.shl (local.get $r) (i32.const 6))))))
        (br_if $bin (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $nb))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $rep)))
    ;; The bounds above are right but for which of -0 and +0 a zero bound keeps (pmin and pmax keep
    ;; the first of equal values, and the replicas mix the order). When some bound is a zero, the
    ;; boxes are binned again in record order with the node's operations.
    (local.set $z (global.get $zero))
    (local.set $b (i32.const 0))
    (loop $bin
      (local.set $a (i32.shl (local.get $b) (i32.const 5)))
      (local.set $z (v128.or (local.get $z) (v128.or
        (f32x4.eq (v128.load (local.get $a)) (global.get $zero))
        (f32x4.eq (v128.load offset=16 (local.get $a)) (global.get $zero)))))
      (br_if $bin (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $nb))))
    (if (v128.any_true (v128.and (local.get $z) (global.get $xyz))) (then
      (local.set $b (i32.const 0))
      (loop $bin
        (local.set $a (i32.shl (local.get $b) (i32.const 5)))
        (v128.store (local.get $a) (global.get $inf))
        (v128.store offset=16 (local.get $a) (global.get $ninf))
        (br_if $bin (i32.lt_u (local.tee $b (i32.add (local.get $b) (i32.const 1))) (local.get $nb))))
      (local.set $p (local.get $start))
      (block $done (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $o (i32.add (i32.const 4096) (i32.shl (local.get $p) (i32.const 5))))
        (local.set $a (i32.shl (i32.load offset=28 (local.get $o)) (i32.const 5)))
        (local.set $lo (v128.load (local.get $a)))
        (local.set $hi (v128.load offset=16 (local.get $a)))
        (v128.store (local.get $a) (select (result v128)
          (f32x4.min (local.get $lo) (v128.load (local.get $o))) (f32x4.pmin (local.get $lo) (v128.load (local.get $o)))
          (local.get $keyed)))
        (v128.store offset=16 (local.get $a) (select (result v128)
          (f32x4.max (local.get $hi) (v128.load offset=16 (local.get $o))) (f32x4.pmax (local.get $hi) (v128.load offset=16 (local.get $o)))
          (local.get $keyed)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))))
    ;; Right sweep: for s = nb-1 .. 1, the count and area of bins s..nb-1. The sweeps take unions
    ;; by pmin/pmax: the sign of a zero bound changes an area or cost only between +0 and -0.
    (local.set $lo (global.get $inf))
    (local.set $hi (global.get $ninf))
    (local.set $s (i32.sub (local.get $nb) (i32.const 1)))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $s)))
      (local.set $a (i32.shl (local.get $s) (i32.const 5)))
      (local.set $cnt (i32.add (local.get $cnt) (i32.load offset=2048 (i32.shl (local.get $s) (i32.const 2)))))
      (local.set $lo (f32x4.pmin (local.get $lo) (v128.load (local.get $a))))
      (local.set $hi (f32x4.pmax (local.get $hi) (v128.load offset=16 (local.get $a))))
      (i32.store offset=2304 (i32.shl (local.get $s) (i32.const 2)) (local.get $cnt))
      (f64.store offset=2368 (i32.shl (local.get $s) (i32.const 3))
        (if (result f64) (local.get $cnt) (then (call $area (local.get $lo) (local.get $hi))) (else (f64.const 0))))
      (local.set $s (i32.sub (local.get $s) (i32.const 1)))
      (br $next)))
    ;; Left sweep: the cost of each split s + 1, the first cheapest kept.
    (local.set $lo (global.get $inf))
    (local.set $hi (global.get $ninf))
    (local.set $cnt (i32.const 0))
    (local.set $s (i32.const 0))
    (local.set $bestCost (f64.const inf))
    (block $done (loop $next
      (br_if $done (i32.ge_u (i32.add (local.get $s) (i32.const 1)) (local.get $nb)))
      (local.set $a (i32.shl (local.get $s) (i32.const 5)))
      (local.set $cnt (i32.add (local.get $cnt) (i32.load offset=2048 (i32.shl (local.get $s) (i32.const 2)))))
      (local.set $lo (f32x4.pmin (local.get $lo) (v128.load (local.get $a))))
      (local.set $hi (f32x4.pmax (local.get $hi) (v128.load offset=16 (local.get $a))))
      (local.set $rc (i32.load offset=2308 (i32.shl (local.get $s) (i32.const 2))))
      (if (i32.and (i32.ne (local.get $cnt) (i32.const 0)) (i32.ne (local.get $rc) (i32.const 0))) (then
        (local.set $cost (f64.add
          (f64.mul (call $area (local.get $lo) (local.get $hi)) (f64.convert_i32_s (local.get $cnt)))
          (f64.mul (f64.load offset=2376 (i32.shl (local.get $s) (i32.const 3))) (f64.convert_i32_s (local.get $rc)))))
        (if (f64.lt (local.get $cost) (local.get $bestCost)) (then
          (local.set $bestCost (local.get $cost))
          (local.set $best (i32.add (local.get $s) (i32.const 1)))))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $next)))
    (f64.store (i32.const 2496) (local.get $bestCost))
    (if (local.get $best) (then
      (call $unionBins (i32.const 0) (local.get $best) (local.get $keyed) (i32.const 2504))
      (call $unionBins (local.get $best) (local.get $nb) (local.get $keyed) (i32.const 2552))))
    (local.get $best))

  ;; Moves records [start, end) whose bin (from bin) is below split to the front, the others to the
  ;; back, in exactly the order of the two-cursor partition in ../partition.ts (the record under the
  ;; front cursor is kept in registers), and gathers both children's doubled-centroid bounds at 2600.
  ;; Returns the first right record.
  (func (export "part") (param $start i32) (param $end i32) (param $split i32) (result i32)
    (local $i i32) (local $j i32) (local $n i32) (local $isR i32) (local $src i32) (local $dst i32)
    (local $cmin v128) (local $cmax v128) (local $ccls i32) (local $nmin v128) (local $nmax v128) (local $ncls i32)
    (local $mxy v128) (local $mz v128) (local $z f64) (local $maskR v128) (local $maskL v128) (local $splitv v128) (local $splitm1 i32)
    (local $lminxy v128) (local $lmaxxy v128) (local $lz v128) (local $rminxy v128) (local $rmaxxy v128) (local $rz v128)
    ;; i and j are the cursors' byte addresses.
    (local.set $i (i32.add (i32.const 4096) (i32.shl (local.get $start) (i32.const 5))))
    (local.set $j (i32.add (i32.const 4064) (i32.shl (local.get $end) (i32.const 5))))
    (local.set $n (i32.sub (local.get $end) (local.get $start)))
    (local.set $src (local.get $i))
    (local.set $cmin (v128.load (local.get $src)))
    (local.set $cmax (v128.load offset=16 (local.get $src)))
    (local.set $ccls (i32.load offset=28 (local.get $src)))
    (local.set $lminxy (global.get $dinf))
    (local.set $lmaxxy (global.get $dninf))
    (local.set $lz (global.get $dinf))
    (local.set $rminxy (global.get $dinf))
    (local.set $rmaxxy (global.get $dninf))
    (local.set $rz (global.get $dinf))
    (local.set $splitm1 (i32.sub (local.get $split) (i32.const 1)))
    (local.set $splitv (i32x4.splat (local.get $splitm1)))
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $n)))
      (local.set $isR (i32.ge_s (local.get $ccls) (local.get $split)))
      ;; The next record under the cursor: the back one when this one goes right, else the next.
      ;; This chain (class, select, load) bounds the loop; its test is written apart from isR so the
      ;; compiler turns it into one compare and conditional move.
      (local.set $src (select (local.get $j) (i32.add (local.get $i) (i32.const 32))
        (i32.gt_s (local.get $ccls) (local.get $splitm1))))
      (local.set $nmin (v128.load (local.get $src)))
      (local.set $nmax (v128.load offset=16 (local.get $src)))
      (local.set $ncls (i32.load offset=28 (local.get $src)))
      (local.set $dst (select (local.get $j) (local.get $i) (local.get $isR)))
      (v128.store (local.get $dst) (local.get $cmin))
      (v128.store offset=16 (local.get $dst) (local.get $cmax))
      ;; Doubled centroid in doubles: (x, y) and (z, -z) (a maximum gathered as a negated minimum).
      (local.set $mxy (f64x2.add (f64x2.promote_low_f32x4 (local.get $cmin)) (f64x2.promote_low_f32x4 (local.get $cmax))))
      (local.set $z (f64.add (f64.promote_f32 (f32x4.extract_lane 2 (local.get $cmin)))
                             (f64.promote_f32 (f32x4.extract_lane 2 (local.get $cmax)))))
      (local.set $mz (f64x2.replace_lane 1 (f64x2.splat (local.get $z)) (f64.neg (local.get $z))))
      ;; A side's bounds skip the record through a NaN operand: pmin and pmax then keep the bound.
      (local.set $maskR (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15
        (i32x4.gt_s (local.get $cmax) (local.get $splitv)) (local.get $cmax)))
      (local.set $maskL (v128.not (local.get $maskR)))
      (local.set $lminxy (f64x2.pmin (local.get $lminxy) (v128.or (local.get $mxy) (local.get $maskR))))
      (local.set $lmaxxy (f64x2.pmax (local.get $lmaxxy) (v128.or (local.get $mxy) (local.get $maskR))))
      (local.set $lz (f64x2.pmin (local.get $lz) (v128.or (local.get $mz) (local.get $maskR))))
      (local.set $rminxy (f64x2.pmin (local.get $rminxy) (v128.or (local.get $mxy) (local.get $maskL))))
      (local.set $rmaxxy (f64x2.pmax (local.get $rmaxxy) (v128.or (local.get $mxy) (local.get $maskL))))
      (local.set $rz (f64x2.pmin (local.get $rz) (v128.or (local.get $mz) (local.get $maskL))))
      (local.set $i (i32.add (local.get $i) (i32.shl (i32.xor (local.get $isR) (i32.const 1)) (i32.const 5))))
      (local.set $j (i32.sub (local.get $j) (i32.shl (local.get $isR) (i32.const 5))))
      (local.set $cmin (local.get $nmin))
      (local.set $cmax (local.get $nmax))
      (local.set $ccls (local.get $ncls))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $next)))
    (call $storeCentroids (i32.const 2600) (local.get $lminxy) (local.get $lmaxxy) (local.get $lz))
    (call $storeCentroids (i32.const 2648) (local.get $rminxy) (local.get $rmaxxy) (local.get $rz))
    (i32.shr_u (i32.sub (local.get $i) (i32.const 4096)) (i32.const 5)))

  ;; Records from n triangles: vertices' xyz (float32) at pos (4 bytes readable past the last), three
  ;; u32 vertex indices a triangle at idx, ids 0..n-1. A box is the min and max of its corners
  ;; (f32x4.min/max, as Math.min and Math.max order -0 and +0). Also the bounds of all boxes (first
  ;; met among equal values) at 2504 and of their doubled centroids at 2600. Returns nonzero when a
  ;; corner may not be finite: lane 3 (the next x in memory) counts too, so the caller checks again.
  (func (export "boxes") (param $pos i32) (param $idx i32) (param $n i32) (result i32)
    (local $p i32) (local $o i32) (local $a v128) (local $b v128) (local $c v128) (local $lo v128) (local $hi v128)
    (local $bad v128) (local $blo v128) (local $bhi v128) (local $mxy v128) (local $mz v128) (local $z f64)
    (local $cminxy v128) (local $cmaxxy v128) (local $cz v128)
    (local.set $blo (global.get $inf))
    (local.set $bhi (global.get $ninf))
    (local.set $cminxy (global.get $dinf))
    (local.set $cmaxxy (global.get $dninf))
    (local.set $cz (global.get $dinf))
    (local.set $o (i32.const 4096))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
      (local.set $a (v128.load (i32.add (local.get $pos) (i32.mul (i32.load (local.get $idx)) (i32.const 12)))))
      (local.set $b (v128.load (i32.add (local.get $pos) (i32.mul (i32.load offset=4 (local.get $idx)) (i32.const 12)))))
      (local.set $c (v128.load (i32.add (local.get $pos) (i32.mul (i32.load offset=8 (local.get $idx)) (i32.const 12)))))
      (local.set $lo (f32x4.min (f32x4.min (local.get $a) (local.get $b)) (local.get $c)))
      (local.set $hi (f32x4.max (f32x4.max (local.get $a) (local.get $b)) (local.get $c)))
      ;; v - v is 0 for a finite v and NaN for an infinite or NaN one.
      (local.set $bad (f32x4.add (local.get $bad) (f32x4.add
        (f32x4.sub (local.get $lo) (local.get $lo)) (f32x4.sub (local.get $hi) (local.get $hi)))))
      (v128.store (local.get $o) (i32x4.replace_lane 3 (local.get $lo) (local.get $p)))
      (v128.store offset=16 (local.get $o) (local.get $hi))
      (local.set $blo (f32x4.pmin (local.get $blo) (local.get $lo)))
      (local.set $bhi (f32x4.pmax (local.get $bhi) (local.get $hi)))
      (local.set $mxy (f64x2.add (f64x2.promote_low_f32x4 (local.get $lo)) (f64x2.promote_low_f32x4 (local.get $hi))))
      (local.set $z (f64.add (f64.promote_f32 (f32x4.extract_lane 2 (local.get $lo)))
                             (f64.promote_f32 (f32x4.extract_lane 2 (local.get $hi)))))
      (local.set $mz (f64x2.replace_lane 1 (f64x2.splat (local.get $z)) (f64.neg (local.get $z))))
      (local.set $cminxy (f64x2.pmin (local.get $cminxy) (local.get $mxy)))
      (local.set $cmaxxy (f64x2.pmax (local.get $cmaxxy) (local.get $mxy)))
      (local.set $cz (f64x2.pmin (local.get $cz) (local.get $mz)))
      (local.set $idx (i32.add (local.get $idx) (i32.const 12)))
      (local.set $o (i32.add (local.get $o) (i32.const 32)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (br $next)))
    (call $storeBox (i32.const 2504) (local.get $blo) (local.get $bhi))
    (call $storeCentroids (i32.const 2600) (local.get $cminxy) (local.get $cmaxxy) (local.get $cz))
    (v128.any_true (f32x4.ne (local.get $bad) (local.get $bad))))
)
