// A batch dimension that stays whole at the level of the cache tiles (its
// register tiles step through it under one block of the columns' operand:
// this contraction sums more terms than the parts of a split share loops
// over) is not what threads share where the column blocks can be: shared,
// each thread would read that block once per batch step instead of once.
// With the threads known, the columns are cut into shares (88 on two
// threads: 40 each, the last 8 after the forall) and each share keeps the
// whole batch in its tiles; without, the forall steps through the batch,
// as before.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1 threads=2 emit-remarks=1}))" 2>&1 | FileCheck %s
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1}))" | FileCheck %s --check-prefix=UNKNOWN

// CHECK: remark: tiling plan: rows=d1 columns=d0 depth=d2 cache=[24,0,5,0] register=[8,4,1,1] cache-order=[d3,d0,d2,d1] register-order=[d3,d1,d0,d2] split=none thread-columns=40
// CHECK: func.func @batch_whole(%arg0
// CHECK: scf.forall (%{{.*}}) = (0) to (80) step (40) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x8x80xf64>)
// CHECK: scf.for {{.*}} -> (tensor<3x8x24xf64>)
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: scf.for {{.*}} -> (tensor<3x8x16xf64>)
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 80] [3, 8, 8] [1, 1, 1]

// UNKNOWN: func.func @batch_whole(%arg0
// UNKNOWN: scf.forall (%{{.*}}) in (3) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<3x8x88xf64>)
// UNKNOWN: scf.for {{.*}} -> (tensor<1x8x88xf64>)
func.func @batch_whole(%a: tensor<1100x88xf64>, %b: tensor<8x3x1100xf64>) -> tensor<3x8x88xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x8x88xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<3x8x88xf64>) -> tensor<3x8x88xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d0)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d0)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<1100x88xf64>, tensor<8x3x1100xf64>) outs(%z : tensor<3x8x88xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<3x8x88xf64>
  return %r : tensor<3x8x88xf64>
}
