// For the GPU (for-gpu): a chain is tiled by one batch index whatever its
// bytes (each index becomes a block, which keeps its slice on the chip;
// the CPU's thresholds do not apply), and the loop is marked for
// tl-gpu-map-loops.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{for-gpu}))" | FileCheck %s

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// CHECK-LABEL: func.func @chain
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %[[ONE:.*]] iter_args
// CHECK: tensor.extract_slice %{{.*}}[%[[E]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<8x4x4xf64> to tensor<1x4x4xf64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>)
// CHECK: } {tl.batch_loop}
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

// A lone generic of fixed batch is left whole (one thread per element
// serves it as well), and no inner sized loop is tiled.
// CHECK-LABEL: func.func @alone
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-NOT: scf.for
#id = affine_map<(e, i) -> (e, i)>
func.func @alone(%u: tensor<8x4xf64>) -> tensor<8x4xf64> {
  %e = tensor.empty() : tensor<8x4xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<8x4xf64>) outs(%e : tensor<8x4xf64>) {
  ^bb0(%x: f64, %y: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<8x4xf64>
  return %r : tensor<8x4xf64>
}

// -----

// The CFD gradient's first component, `D # u . [2 4] ^ [1 2]` over a size
// E: the contraction puts D's index first and the batch second, and a
// transposition copies it into the result with the batch first. One batch
// index's slices fit a block's shared memory: the contraction is computed
// straight into the transposition's layout (no temporary over all the
// batches), and then, its batch a size, tiled by one batch index.
#d = affine_map<(i, e, j, k, l) -> (i, l)>
#u = affine_map<(i, e, j, k, l) -> (e, l, j, k)>
#t = affine_map<(i, e, j, k, l) -> (i, e, j, k)>
#in = affine_map<(i, e, j, k) -> (i, e, j, k)>
#out = affine_map<(i, e, j, k) -> (e, i, j, k)>
// CHECK: #[[FOLDED:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0, d2, d3)>
// CHECK-LABEL: func.func @transposed_per_batch
// CHECK-NOT: tensor<11x?x11x11xf64>
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:   linalg.fill {{.*}} -> tensor<1x11x11x11xf64>
// CHECK:   linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[FOLDED]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<11x11xf64>, tensor<1x11x11x11xf64>) outs(%{{.*}} : tensor<1x11x11x11xf64>)
// CHECK-NOT: linalg.generic
// CHECK: } {tl.batch_loop}
func.func @transposed_per_batch(%d: tensor<11x11xf64>, %u: tensor<?x11x11x11xf64>, %g: tensor<?x11x11x11xf64>) -> tensor<?x11x11x11xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %u, %c0 : tensor<?x11x11x11xf64>
  %e0 = tensor.empty(%n) : tensor<11x?x11x11xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<11x?x11x11xf64>) -> tensor<11x?x11x11xf64>
  %t = linalg.generic {indexing_maps = [#d, #u, #t], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%d, %u : tensor<11x11xf64>, tensor<?x11x11x11xf64>) outs(%a0 : tensor<11x?x11x11xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<11x?x11x11xf64>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<11x?x11x11xf64>) outs(%g : tensor<?x11x11x11xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  } -> tensor<?x11x11x11xf64>
  return %r : tensor<?x11x11x11xf64>
}

// -----

// The same at 40 x 40 x 40 per batch index (512 KB): no block holds one
// index's slice, the contraction is left to its kernel over all the
// batches (its transposition, a statement of sized batch, is tiled alone).
#d = affine_map<(i, e, j, k, l) -> (i, l)>
#u = affine_map<(i, e, j, k, l) -> (e, l, j, k)>
#t = affine_map<(i, e, j, k, l) -> (i, e, j, k)>
#in = affine_map<(i, e, j, k) -> (i, e, j, k)>
#out = affine_map<(i, e, j, k) -> (e, i, j, k)>
// CHECK-LABEL: func.func @transposed_large
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<40x?x40x40xf64>)
// CHECK: scf.for
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<40x1x40x40xf64>)
// CHECK: } {tl.batch_loop}
func.func @transposed_large(%d: tensor<40x40xf64>, %u: tensor<?x40x40x40xf64>, %g: tensor<?x40x40x40xf64>) -> tensor<?x40x40x40xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %u, %c0 : tensor<?x40x40x40xf64>
  %e0 = tensor.empty(%n) : tensor<40x?x40x40xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<40x?x40x40xf64>) -> tensor<40x?x40x40xf64>
  %t = linalg.generic {indexing_maps = [#d, #u, #t], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%d, %u : tensor<40x40xf64>, tensor<?x40x40x40xf64>) outs(%a0 : tensor<40x?x40x40xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x?x40x40xf64>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<40x?x40x40xf64>) outs(%g : tensor<?x40x40x40xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  } -> tensor<?x40x40x40xf64>
  return %r : tensor<?x40x40x40xf64>
}

// -----

// A chain over a static batch whose other loops include a size (the
// element index last): a slice of it has no bound to fit a block's shared
// memory, so it is not fused for the GPU (the CPU fuses it).
// CHECK-LABEL: func.func @static_batch_sized_last
// CHECK-NOT: scf.for
// CHECK: return
#tc = affine_map<(i, j, k, e) -> (i, k, e)>
#nc = affine_map<(i, j, k, e) -> (j, k)>
#wc = affine_map<(i, j, k, e) -> (i, j, e)>
func.func @static_batch_sized_last(%u: tensor<4x4x?xf64>, %m: tensor<4x4xf64>, %n: index) -> tensor<4x4x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<4x4x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4x4x?xf64>) -> tensor<4x4x?xf64>
  %t = linalg.generic {indexing_maps = [#tc, #nc, #wc], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<4x4x?xf64>, tensor<4x4xf64>) outs(%a0 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4x?xf64>
  %e1 = tensor.empty(%n) : tensor<4x4x?xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<4x4x?xf64>) -> tensor<4x4x?xf64>
  %v = linalg.generic {indexing_maps = [#tc, #nc, #wc], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<4x4x?xf64>, tensor<4x4xf64>) outs(%a1 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4x?xf64>
  return %v : tensor<4x4x?xf64>
}

// -----

// A chain sized throughout: its slices have no bound to fit a block's
// shared memory either; not fused for the GPU (the CPU fuses it).
// CHECK-LABEL: func.func @sized_throughout_chain
// CHECK-NOT: scf.for
// CHECK: return
#ta = affine_map<(d, a, b, e, c) -> (d, a, b, e)>
#tb = affine_map<(d, a, b, e, c) -> (e, c)>
#tt = affine_map<(d, a, b, e, c) -> (d, a, b, c)>
#pin = affine_map<(d, c, b, a) -> (d, a, b, c)>
#pout = affine_map<(d, c, b, a) -> (d, c, b, a)>
func.func @sized_throughout_chain(%a: tensor<?x?x?x?xf64>, %b: tensor<?x?xf64>, %out: tensor<?x?x?x?xf64>, %nd: index, %na: index, %nb: index, %nc: index) -> tensor<?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%nd, %na, %nb, %nc) : tensor<?x?x?x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %t = linalg.generic {indexing_maps = [#ta, #tb, #tt], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?x?x?xf64>, tensor<?x?xf64>) outs(%a0 : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?xf64>
  %c = linalg.generic {indexing_maps = [#pin, #pout], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<?x?x?x?xf64>) outs(%out : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<?x?x?x?xf64>
  return %c : tensor<?x?x?x?xf64>
}
