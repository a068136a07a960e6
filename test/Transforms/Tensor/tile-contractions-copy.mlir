// A cache tile's block of the columns' operand is copied into a contiguous
// tensor where the operand's rows are a multiple of 4 KiB apart (their
// blocks would use few sets of L2) and too few rows share each block for
// panels (tile-contractions-panels.mlir) to pay: here 16 and 32 rows.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Rows of 384 doubles, 3 KiB apart (no multiple of 4 KiB): B is read
// where it is.
// CHECK-LABEL: func.func @rows_apart_3k
// CHECK-NOT: linalg.copy
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 {{.*}} split=none{{$}}
func.func @rows_apart_3k(%a: tensor<16x256xf64>, %b: tensor<256x384xf64>, %c: tensor<16x384xf64>) -> tensor<16x384xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x256xf64>, tensor<256x384xf64>) outs(%c : tensor<16x384xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x384xf64>
  return %r : tensor<16x384xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Rows of 1024 doubles, 8 KiB apart: each 256 x 256 block of B is copied
// before the loop over the row blocks, and the register tiles read the copy.
// CHECK-LABEL: func.func @rows_apart_8k
// CHECK: %[[BLOCK:.*]] = tensor.empty() : tensor<256x256xf64>
// CHECK: scf.for %[[J:.*]] = %c0 to %c1024 step %c256
// CHECK: scf.for %[[K:.*]] = %c0 to %c512 step %c256
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[%[[K]], %[[J]]] [256, 256] [1, 1] : tensor<512x1024xf64> to tensor<256x256xf64>
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[SLICE]] : tensor<256x256xf64>) outs(%[[BLOCK]] : tensor<256x256xf64>)
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK-NOT: linalg.copy
// CHECK: tensor.extract_slice %[[COPY]]
// CHECK: vector.contract
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,256,256] register=[8,1,16] {{.*}} split=none copy=in1{{$}}
func.func @rows_apart_8k(%a: tensor<32x512xf64>, %b: tensor<512x1024xf64>, %c: tensor<32x1024xf64>) -> tensor<32x1024xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x512xf64>, tensor<512x1024xf64>) outs(%c : tensor<32x1024xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x1024xf64>
  return %r : tensor<32x1024xf64>
}
