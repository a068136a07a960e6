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
