// Where the result has more elements than the inputs together (TCCG ccsd_t:
// a 302 MB result of two 1.2 MB inputs), the loops over the dimensions
// other than the register tile's follow the result's layout, its outermost
// dimension first, so that the result is written block after block; where
// an input is as large, they keep the order of the dimensions. Extents
// prime or one-off (13, 11, 17, 5), the result transposed against the
// iteration order (d2, d1, d0, d4). The rows are A's last dimension (d1,
// 11 = 6 + 5 rows), which a register tile reads a line per depth step.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s

#a = affine_map<(d0, d1, d2, d3, d4) -> (d3, d0, d1)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d3, d2, d4)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d2, d1, d0, d4)>

// REMARK: remark: tiling plan: rows=d1 columns=d4 depth=d3 cache=[0,0,0,0,0] register=[1,6,1,1,24] cache-order=[d2,d0,d4,d3,d1] register-order=[d2,d0,d1,d4,d3] split=none
// CHECK-LABEL: func.func @result_dominates
// CHECK-DAG: %[[C17:.*]] = arith.constant 17 : index
// CHECK-DAG: %[[C13:.*]] = arith.constant 13 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C17]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[C13]]
// CHECK: -> (tensor<1x6x1x24xf64>)
// CHECK: vector.contract
// CHECK: -> (tensor<1x5x1x24xf64>)
func.func @result_dominates(%a: tensor<5x13x11xf64>, %b: tensor<5x17x24xf64>) -> tensor<17x11x13x24xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<17x11x13x24xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<17x11x13x24xf64>) -> tensor<17x11x13x24xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<5x13x11xf64>, tensor<5x17x24xf64>) outs(%c : tensor<17x11x13x24xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<17x11x13x24xf64>
  return %r : tensor<17x11x13x24xf64>
}

// REMARK: remark: tiling plan: rows=d1 columns=d4 depth=d3 cache=[0,0,0,0,0] register=[1,6,1,1,24] cache-order=[d0,d2,d4,d3,d1] register-order=[d0,d2,d1,d4,d3] split=none
// CHECK-LABEL: func.func @input_as_large
// CHECK-DAG: %[[C17:.*]] = arith.constant 17 : index
// CHECK-DAG: %[[C13:.*]] = arith.constant 13 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C13]]
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[C17]]
// CHECK: -> (tensor<1x6x1x24xf64>)
// CHECK: vector.contract
func.func @input_as_large(%a: tensor<400x13x11xf64>, %b: tensor<400x17x24xf64>) -> tensor<17x11x13x24xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<17x11x13x24xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<17x11x13x24xf64>) -> tensor<17x11x13x24xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<400x13x11xf64>, tensor<400x17x24xf64>) outs(%c : tensor<17x11x13x24xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<17x11x13x24xf64>
  return %r : tensor<17x11x13x24xf64>
}
