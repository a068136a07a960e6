// With the number of threads known, threads that share the column blocks
// each take one share of whole register tiles (88 columns on two threads:
// two shares of 40, and the 8 columns left after them a contraction of
// their own after the forall), and each share is tiled for the caches as
// one thread's columns would be (40 = a block of 24 and one of 16, where
// the blocks would be 32 wide). Without the threads known, the forall
// steps through blocks that divide the columns: 8 columns wide here, the
// only multiple of the register tile that divides 88.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1 threads=2 emit-remarks=1}))" 2>&1 | FileCheck %s
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1}))" | FileCheck %s --check-prefix=UNKNOWN
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 threads=2 emit-remarks=1}))" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{parallel=1 threads=-2}))" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// CHECK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[8,0,24] register=[4,1,8] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none thread-columns=40
// CHECK: func.func @shares(%arg0
// CHECK: %[[SHARES:.*]] = scf.forall (%[[SHARE:.*]]) = (0) to (80) step (40) shared_outs(%[[ALL:.*]] = %{{.*}}) -> (tensor<16x80xf64>)
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[ALL]][0, %[[SHARE]]] [16, 40] [1, 1]
// CHECK: %[[FIRST:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[MINE]]) -> (tensor<16x40xf64>)
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [8, 24] [1, 1] : tensor<16x40xf64> to tensor<8x24xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: %[[SECOND:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[FIRST]]) -> (tensor<16x40xf64>)
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 24] [8, 16] [1, 1] : tensor<16x40xf64> to tensor<8x16xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[SECOND]] into %[[ALL]][0, %[[SHARE]]] [16, 40] [1, 1]
// CHECK: %[[WITH_SHARES:.*]] = tensor.insert_slice %[[SHARES]] into %{{.*}}[0, 0] [16, 80] [1, 1]
// CHECK-NOT: scf.forall
// CHECK: %[[REST:.*]] = scf.for {{.*}} -> (tensor<16x8xf64>)
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: tensor.insert_slice %[[REST]] into %[[WITH_SHARES]][0, 80] [16, 8] [1, 1]

// UNKNOWN-LABEL: func.func @shares
// UNKNOWN: scf.forall (%{{.*}}) = (0) to (88) step (8) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x88xf64>)
// UNKNOWN: scf.forall.in_parallel
// UNKNOWN-NOT: scf.forall

// On one thread, the number of threads changes nothing.
// ONE: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[8,0,32] register=[4,1,8] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none{{$}}
// ONE-NOT: scf.forall

// NEGATIVE: error: tl-tile-contractions: threads must not be negative, got -2
func.func @shares(%a: tensor<16x8xf64>, %b: tensor<8x88xf64>) -> tensor<16x88xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<16x88xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<16x88xf64>) -> tensor<16x88xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x8xf64>, tensor<8x88xf64>) outs(%z : tensor<16x88xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x88xf64>
  return %r : tensor<16x88xf64>
}
