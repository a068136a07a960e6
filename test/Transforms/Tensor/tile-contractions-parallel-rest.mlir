// With threads, a contraction without batch dimensions shares its column
// blocks over an scf.forall, whose last step cannot be peeled. Where no
// block divides the columns (44 = 2 x 16 + 12), the whole blocks go to the
// threads and the rest is split off into a contraction after the forall,
// tiled with the same plan (register tiles of 4 x 8, the last 4 columns
// peeled): each part zeroes its own tiles, and no fill of the whole result
// runs on one thread before them. On one thread: one loop nest, its
// partial column block peeled.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 parallel=1}))" | FileCheck %s
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8}))" | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @columns_no_block_divides
// CHECK-NOT: linalg.fill {{.*}} -> tensor<16x44xf64>
// CHECK: %[[BULK:.*]] = scf.forall (%{{.*}}) = (0) to (32) step (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x32xf64>)
// CHECK: linalg.fill {{.*}} -> tensor<4x8xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: scf.forall.in_parallel
// CHECK: %[[WITH_BULK:.*]] = tensor.insert_slice %[[BULK]] into %{{.*}}[0, 0] [16, 32] [1, 1]
// CHECK: %[[REST:.*]] = scf.for {{.*}} -> (tensor<16x12xf64>)
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x4xf64> into vector<4x4xf64>
// CHECK: tensor.insert_slice %[[REST]] into %[[WITH_BULK]][0, 32] [16, 12] [1, 1]
// ONE-LABEL: func.func @columns_no_block_divides
// ONE-NOT: scf.forall
// ONE: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// ONE: vector.contract {{.*}} : vector<4x1xf64>, vector<1x4xf64> into vector<4x4xf64>
func.func @columns_no_block_divides(%a: tensor<16x8xf64>, %b: tensor<8x44xf64>) -> tensor<16x44xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16x44xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<16x44xf64>) -> tensor<16x44xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x8xf64>, tensor<8x44xf64>) outs(%z : tensor<16x44xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x44xf64>
  return %r : tensor<16x44xf64>
}
