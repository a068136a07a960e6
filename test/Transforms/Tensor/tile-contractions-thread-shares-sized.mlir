// Columns whose extent is a size are shared between the threads too: each
// takes a share of whole register tiles computed from the size, at least
// one (N floordiv (threads x 8) x 8, and 8 where that is 0); the forall
// steps through as many whole shares as fit, and the columns after them
// are a contraction of their own after the forall. Each share is blocked
// as one thread's sized columns are. Without the threads known, a sized
// column extent stays on one thread, as before.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1 threads=2 max-short-size=0 emit-remarks=1}))" 2>&1 | FileCheck %s
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=32 cache-depth=8 parallel=1 max-short-size=0}))" | FileCheck %s --check-prefix=UNKNOWN

// CHECK: remark: tiling plan: {{.*}} thread-columns=run-time sized=d0,d1,d2
// CHECK-DAG: #[[SHARE:.*]] = affine_map<()[s0] -> ((s0 floordiv 16) * 8, 8)>
// CHECK: func.func @sized_columns(%[[A:.*]]: tensor<?x?xf64>, %[[B:.*]]: tensor<?x?xf64>,
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %c1
// CHECK: %[[STEP:.*]] = affine.max #[[SHARE]]()[%[[N]]]
// CHECK: %[[COUNT:.*]] = arith.divui %[[N]], %[[STEP]] : index
// CHECK: %[[BULK:.*]] = arith.muli %[[COUNT]], %[[STEP]] : index
// CHECK: %[[SHARES:.*]] = affine.min #{{.*}}()[%[[BULK]], %{{.*}}]
// CHECK: scf.forall (%{{.*}}) = (0) to (%[[SHARES]]) step (%[[STEP]])
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>

// UNKNOWN-LABEL: func.func @sized_columns
// UNKNOWN-NOT: scf.forall
func.func @sized_columns(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %init: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %z = linalg.fill ins(%zero : f64) outs(%init : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%z : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
