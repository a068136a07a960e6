// With threads, a contraction whose reductions stay whole in its cache
// tiles zeroes its result tile by tile inside the threads' loop, as it does
// on one thread: no fill of the whole result before the scf.forall (on one
// thread, with every tile reading the zeros back from memory).
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 parallel=1}))" | FileCheck %s

#a = affine_map<(b, i, k, j) -> (b, i, k)>
#b = affine_map<(b, i, k, j) -> (k, j)>
#c = affine_map<(b, i, k, j) -> (b, i, j)>

// CHECK-LABEL: func.func @batched
// CHECK-NOT: linalg.fill
// CHECK: scf.forall
// CHECK: linalg.fill {{.*}} -> tensor<1x8x16xf64>
// CHECK: vector.contract
func.func @batched(%a: tensor<6x32x24xf64>, %b: tensor<24x32xf64>) -> tensor<6x32x32xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<6x32x32xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<6x32x32xf64>) -> tensor<6x32x32xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<6x32x24xf64>, tensor<24x32xf64>) outs(%z : tensor<6x32x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<6x32x32xf64>
  return %r : tensor<6x32x32xf64>
}
