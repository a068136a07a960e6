// The steps of tl-tile-contractions are passes of their own. A plan
// stated in the IR is carried out whichever planner would have chosen
// another; run in order, the steps give what tl-tile-contractions gives.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-plan-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2}))" | FileCheck %s --check-prefix=PLAN
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions-for-caches))" | FileCheck %s --check-prefix=CACHES
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions-for-caches,tl-tile-contractions-for-registers,tl-vectorize-register-tiles))" | FileCheck %s --check-prefix=VECTORS
//
// The steps in order against the whole pass, on the inputs of its tests:
// RUN: tl-opt %S/tile-contractions.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2}))" -o %t.whole
// RUN: tl-opt %S/tile-contractions.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-collapse-contraction-reductions,tl-block-strided-sums,tl-version-for-short-sizes{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-version-for-wide-columns{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-split-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-plan-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-tile-contractions-for-caches{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2},tl-tile-contractions-for-registers,tl-vectorize-register-tiles))" -o %t.steps
// RUN: diff %t.whole %t.steps
// RUN: tl-opt %S/tile-contractions-pack.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" -o %t.pack.whole
// RUN: tl-opt %S/tile-contractions-pack.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8},tl-collapse-contraction-reductions{vector-lanes=8},tl-block-strided-sums{vector-lanes=8},tl-version-for-short-sizes{vector-lanes=8},tl-version-for-wide-columns{vector-lanes=8},tl-split-contractions{vector-lanes=8},tl-plan-contractions{vector-lanes=8},tl-tile-contractions-for-caches{vector-lanes=8},tl-tile-contractions-for-registers,tl-vectorize-register-tiles))" -o %t.pack.steps
// RUN: diff %t.pack.whole %t.pack.steps
// RUN: tl-opt %S/tile-contractions-peel.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" -o %t.peel.whole
// RUN: tl-opt %S/tile-contractions-peel.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8},tl-collapse-contraction-reductions{vector-lanes=8},tl-block-strided-sums{vector-lanes=8},tl-version-for-short-sizes{vector-lanes=8},tl-version-for-wide-columns{vector-lanes=8},tl-split-contractions{vector-lanes=8},tl-plan-contractions{vector-lanes=8},tl-tile-contractions-for-caches{vector-lanes=8},tl-tile-contractions-for-registers,tl-vectorize-register-tiles))" -o %t.peel.steps
// RUN: diff %t.peel.whole %t.peel.steps
// RUN: tl-opt %S/tile-contractions-row-panels.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l2-cache-bytes=2097152}))" -o %t.rows.whole
// RUN: tl-opt %S/tile-contractions-row-panels.mlir --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8 l2-cache-bytes=2097152},tl-collapse-contraction-reductions{vector-lanes=8 l2-cache-bytes=2097152},tl-block-strided-sums{vector-lanes=8 l2-cache-bytes=2097152},tl-version-for-short-sizes{vector-lanes=8 l2-cache-bytes=2097152},tl-version-for-wide-columns{vector-lanes=8 l2-cache-bytes=2097152},tl-split-contractions{vector-lanes=8 l2-cache-bytes=2097152},tl-plan-contractions{vector-lanes=8 l2-cache-bytes=2097152},tl-tile-contractions-for-caches{vector-lanes=8 l2-cache-bytes=2097152},tl-tile-contractions-for-registers,tl-vectorize-register-tiles))" -o %t.rows.steps
// RUN: diff %t.rows.whole %t.rows.steps

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// The planner's plan for the sizes of the options (tile-contractions.mlir
// checks the loops it gives), on the op.
// PLAN-LABEL: func.func @planned
// PLAN: linalg.generic
// PLAN-SAME: tl.contraction_plan = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [8, 8, 16], register = [4, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>
func.func @planned(%a: tensor<32x24xf64>, %b: tensor<24x32xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<24x32xf64>) outs(%c : tensor<32x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A plan no planner makes (rows in blocks of 16, the depth of 4, the
// columns of 8; register tiles of 2 x 8), stated in the IR: the cache
// tiles follow it, in its order, and carry it on; the register tiles are
// 2 x 8 vector contractions, and no plan is left.
// CACHES-LABEL: func.func @stated
// CACHES: scf.for %{{.*}} = %c0 to %c32 step %c8
// CACHES: scf.for %{{.*}} = %c0 to %c24 step %c4
// CACHES: scf.for %{{.*}} = %c0 to %c32 step %c16
// CACHES: linalg.generic
// CACHES-SAME: ins(%{{.*}}, %{{.*}} : tensor<16x4xf64>, tensor<4x8xf64>)
// CACHES: tl.contraction_plan = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [16, 4, 8], register = [2, 1, 8]
// VECTORS-LABEL: func.func @stated
// VECTORS: vector.contract {{.*}} : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
// VECTORS-NOT: tl.contraction_plan
// VECTORS-NOT: linalg.generic
func.func @stated(%a: tensor<32x24xf64>, %b: tensor<24x32xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<24x32xf64>) outs(%c : tensor<32x32xf64>)
      attrs = {tl.contraction_plan = #tl.contraction_plan<rows = 0, columns = 2, depth = 1, cache = [16, 4, 8], register = [2, 1, 8], cache_order = [2, 1, 0], register_order = [0, 2, 1], copy = -1, pack = -1, packed_dim = 0, panels = -1, row_panels = -1>} {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}
