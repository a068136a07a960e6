// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{min-intermediate-bytes=0 tile-bytes=256}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{min-intermediate-bytes=0 tile-bytes=256 threads=2}))" | FileCheck %s --check-prefix=PAR
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches))" | FileCheck %s --check-prefix=DEFAULT
// RUN: not tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{tile-bytes=-1}))" 2>&1 | FileCheck %s --check-prefix=ERR

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// Two steps of a CFD kernel over 8 elements: the second is tiled along the
// elements and the first, and both accumulator fills, are computed inside
// the loop on the same slice. The intermediate is 8 x 128 bytes; at most
// 256 per tile gives tiles of 2 elements.
// CHECK-LABEL: func.func @chain
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<8x4x4xf64>)
// CHECK: tensor.extract_slice %{{.*}}[%[[E]], 0, 0] [2, 4, 4] [1, 1, 1] : tensor<8x4x4xf64> to tensor<2x4x4xf64>
// CHECK: linalg.fill {{.*}} -> tensor<2x4x4xf64>
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x4xf64>, tensor<4x4xf64>)
// CHECK: linalg.fill {{.*}} -> tensor<2x4x4xf64>
// CHECK: linalg.generic {{.*}} ins(%[[FIRST]], %{{.*}} : tensor<2x4x4xf64>, tensor<4x4xf64>)
// CHECK: tensor.insert_slice {{.*}} into %[[OUT]][%[[E]], 0, 0] [2, 4, 4]
// CHECK-NOT: linalg.generic
// CHECK: return
// PAR-LABEL: func.func @chain
// PAR: scf.forall (%{{.*}}) = (0) to (8) step (4) shared_outs
// PAR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<4x4x4xf64>)
// PAR: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x4xf64>, tensor<4x4xf64>)
// DEFAULT-LABEL: func.func @chain
// DEFAULT-NOT: scf.for
// DEFAULT: return
func.func @chain(%u: tensor<8x4x4xf64>, %m: tensor<4x4xf64>) -> tensor<8x4x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<8x4x4xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<8x4x4xf64>) -> tensor<8x4x4xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<8x4x4xf64>, tensor<4x4xf64>) outs(%a0 : tensor<8x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x4x4xf64>
  %e1 = tensor.empty() : tensor<8x4x4xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<8x4x4xf64>) -> tensor<8x4x4xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<8x4x4xf64>, tensor<4x4xf64>) outs(%a1 : tensor<8x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x4x4xf64>
  return %r : tensor<8x4x4xf64>
}

// -----

#id = affine_map<(e, i, j) -> (e, i, j)>
#tr = affine_map<(e, i, j) -> (i, e, j)>

// The consumer reads the intermediate with its leading dimension swapped:
// a slice of the consumer's elements needs all of the producer's, so
// nothing is fused (that would compute it once per tile).
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT: scf.for
// CHECK: return
func.func @transposed_read(%a: tensor<4x4x4xf64>, %out: tensor<4x4x4xf64>) -> tensor<4x4x4xf64> {
  %e = tensor.empty() : tensor<4x4x4xf64>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<4x4x4xf64>) outs(%e : tensor<4x4x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.mulf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x4x4xf64>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<4x4x4xf64>) outs(%out : tensor<4x4x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x4x4xf64>
  return %r : tensor<4x4x4xf64>
}

// -----

#id = affine_map<(e, i, j) -> (e, i, j)>

// The intermediate is also returned: fusing it would need it whole as well
// (computed twice), so the chain is left alone.
// CHECK-LABEL: func.func @two_uses
// CHECK-NOT: scf.for
// CHECK: return
func.func @two_uses(%a: tensor<4x4x4xf64>, %out: tensor<4x4x4xf64>) -> (tensor<4x4x4xf64>, tensor<4x4x4xf64>) {
  %e = tensor.empty() : tensor<4x4x4xf64>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<4x4x4xf64>) outs(%e : tensor<4x4x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.mulf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x4x4xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<4x4x4xf64>) outs(%out : tensor<4x4x4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x4x4xf64>
  return %r, %t : tensor<4x4x4xf64>, tensor<4x4x4xf64>
}

// ERR: error: tl-fuse-batches: tile-bytes and min-intermediate-bytes must not be negative

// -----

#a = affine_map<(b, i, k, l, j) -> (b, i, k, l)>
#w = affine_map<(b, i, k, l, j) -> (k, l, j)>
#t = affine_map<(b, i, k, l, j) -> (b, i, j)>
#in = affine_map<(b, i, j) -> (b, i, j)>
#out = affine_map<(b, i, j) -> (b, j, i)>

// A contraction of 16 x 16 = 256 terms per element chained to a
// transposition: it is bound by its FMAs, so the chain is left whole (a
// slice per batch index would hide its two reductions from
// tl-tile-contractions, which collapses them into one depth).
// CHECK-LABEL: func.func @many_terms_per_element
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: scf.for
func.func @many_terms_per_element(%a: tensor<4x8x16x16xf64>, %w: tensor<16x16x8xf64>) -> tensor<4x8x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x8x8xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<4x8x8xf64>) -> tensor<4x8x8xf64>
  %t = linalg.generic {indexing_maps = [#a, #w, #t], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %w : tensor<4x8x16x16xf64>, tensor<16x16x8xf64>) outs(%z : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  %o = tensor.empty() : tensor<4x8x8xf64>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<4x8x8xf64>) outs(%o : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<4x8x8xf64>
  return %r : tensor<4x8x8xf64>
}

// -----

#a = affine_map<(b, i, k, j) -> (b, i, k)>
#w = affine_map<(b, i, k, j) -> (k, j)>
#t = affine_map<(b, i, k, j) -> (b, i, j)>
#in = affine_map<(b, i, j) -> (b, i, j)>
#out = affine_map<(b, i, j) -> (b, j, i)>

// 256 terms per element over one reduction: nothing to collapse, so the
// chain is computed one batch slice at a time (TCCG abc-adc-bd: 0.15 s
// fused, 0.39 s whole).
// CHECK-LABEL: func.func @many_terms_one_reduction
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @many_terms_one_reduction(%a: tensor<4x8x256xf64>, %w: tensor<256x8xf64>) -> tensor<4x8x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x8x8xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<4x8x8xf64>) -> tensor<4x8x8xf64>
  %t = linalg.generic {indexing_maps = [#a, #w, #t], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %w : tensor<4x8x256xf64>, tensor<256x8xf64>) outs(%z : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  %o = tensor.empty() : tensor<4x8x8xf64>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<4x8x8xf64>) outs(%o : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<4x8x8xf64>
  return %r : tensor<4x8x8xf64>
}

// -----

#a = affine_map<(a, y, z, x) -> (a, x)>
#u = affine_map<(a, y, z, x) -> (x, y, z)>
#t = affine_map<(a, y, z, x) -> (a, y, z)>
#b = affine_map<(a, b, z, y) -> (b, y)>
#t1 = affine_map<(a, b, z, y) -> (a, y, z)>
#t2 = affine_map<(a, b, z, y) -> (a, b, z)>
#id = affine_map<(a, b, z) -> (a, b, z)>

// A mode product whose rows are the batch (CFDlang's Helmholtz statement
// `A # B # C # t`): one slice of it would read all of u (40 KB, above the
// L1 tile of 32 KB) for one row of A, each element once, where whole its
// register tiles use each load of u for 8 rows. It is computed whole,
// before the loop; the steps after it, which read only their batch's slice
// and an 8 x 8 matrix, are fused.
// CHECK-LABEL: func.func @streamed_input
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x80xf64>, tensor<80x8x8xf64>) outs(%{{.*}} : tensor<4x8x8xf64>)
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[FIRST]]
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<{{.*}}x8x8xf64>)
// CHECK: linalg.generic
// CHECK: scf.yield
func.func @streamed_input(%m: tensor<4x80xf64>, %u: tensor<80x8x8xf64>, %b: tensor<8x8xf64>) -> tensor<4x8x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<4x8x8xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4x8x8xf64>) -> tensor<4x8x8xf64>
  %t = linalg.generic {indexing_maps = [#a, #u, #t], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%m, %u : tensor<4x80xf64>, tensor<80x8x8xf64>) outs(%a0 : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  %e1 = tensor.empty() : tensor<4x8x8xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<4x8x8xf64>) -> tensor<4x8x8xf64>
  %t2 = linalg.generic {indexing_maps = [#b, #t1, #t2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%b, %t : tensor<8x8xf64>, tensor<4x8x8xf64>) outs(%a1 : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  %e2 = tensor.empty() : tensor<4x8x8xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t2 : tensor<4x8x8xf64>) outs(%e2 : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %out: f64):
    %s = arith.mulf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  return %r : tensor<4x8x8xf64>
}

// -----

#m = affine_map<(a, x) -> (a, x)>
#c = affine_map<(a, y, z, x) -> (a, x)>
#u = affine_map<(a, y, z, x) -> (x, y, z)>
#r = affine_map<(a, y, z, x) -> (a, y, z)>

// The last statement streams u (40 KB, one row of c per batch index): it is
// computed whole, and the statements before it, which would have been
// fused into its loop, form a chain of their own.
// CHECK-LABEL: func.func @streaming_root
// CHECK: %[[C:.*]] = scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<{{.*}}x80xf64>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<{{.*}}x80xf64>)
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<4x80xf64>, tensor<80x8x8xf64>)
// CHECK-NOT: scf.for
// CHECK: return
func.func @streaming_root(%m: tensor<4x80xf64>, %u: tensor<80x8x8xf64>) -> tensor<4x8x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<4x80xf64>
  %c0 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x80xf64>) outs(%e0 : tensor<4x80xf64>) {
  ^bb0(%x: f64, %out: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x80xf64>
  %e1 = tensor.empty() : tensor<4x80xf64>
  %c1 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]}
      ins(%c0 : tensor<4x80xf64>) outs(%e1 : tensor<4x80xf64>) {
  ^bb0(%x: f64, %out: f64):
    %s = arith.mulf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x80xf64>
  %e2 = tensor.empty() : tensor<4x8x8xf64>
  %a2 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<4x8x8xf64>) -> tensor<4x8x8xf64>
  %r = linalg.generic {indexing_maps = [#c, #u, #r], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c1, %u : tensor<4x80xf64>, tensor<80x8x8xf64>) outs(%a2 : tensor<4x8x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x8x8xf64>
  return %r : tensor<4x8x8xf64>
}
