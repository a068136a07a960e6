// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-interlace-batches))" | FileCheck %s

#id = affine_map<(e, i, j) -> (e, i, j)>

// A marked loop of one element-wise statement over slices of 4 batch
// indices: D is transposed in, the product computed batch last into a new
// tensor (it never reads its accumulator), and transposed back into the
// destination's slice.
// CHECK-LABEL: func.func @scale
// CHECK: scf.for %[[E:.*]] = {{.*}} iter_args(%[[DEST:.*]] = %{{.*}})
// CHECK: %[[D:.*]] = tensor.extract_slice %arg0[%[[E]], 0, 0] [4, 3, 5]
// CHECK: %[[V:.*]] = tensor.extract_slice %[[DEST]][%[[E]], 0, 0] [4, 3, 5]
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[D]] : tensor<4x3x5xf64>) outs(%{{.*}} : tensor<3x5x4xf64>) permutation = [1, 2, 0]
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<3x5x4xf64>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[DT]] : tensor<3x5x4xf64>) outs(%[[EMPTY]] : tensor<3x5x4xf64>)
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[P]] : tensor<3x5x4xf64>) outs(%[[V]] : tensor<4x3x5xf64>) permutation = [2, 0, 1]
// CHECK: tensor.insert_slice %[[BACK]] into %[[DEST]]
// CHECK-NOT: tl.interlace_batches
func.func @scale(%d: tensor<8x3x5xf64>, %out: tensor<8x3x5xf64>) -> tensor<8x3x5xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %e = %c0 to %c8 step %c4 iter_args(%dest = %out) -> (tensor<8x3x5xf64>) {
    %ds = tensor.extract_slice %d[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %vs = tensor.extract_slice %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ds : tensor<4x3x5xf64>) outs(%vs : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.mulf %x, %x : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %ins = tensor.insert_slice %p into %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<4x3x5xf64> into tensor<8x3x5xf64>
    scf.yield %ins : tensor<8x3x5xf64>
  } {tl.interlace_batches}
  return %r : tensor<8x3x5xf64>
}

// -----

#id = affine_map<(e, i, j) -> (e, i, j)>
#tr = affine_map<(i, e, j) -> (e, i, j)>

// A statement that reads a batched slice through its batch index second:
// rotating the chain would not compute the same, so the loop is left as it
// is (and no longer marked).
// CHECK-LABEL: func.func @not_batch_first
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4x5xf64>) outs(%{{.*}} : tensor<4x4x5xf64>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tl.interlace_batches
// CHECK: return
func.func @not_batch_first(%d: tensor<8x4x5xf64>, %out: tensor<8x4x5xf64>) -> tensor<8x4x5xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %e = %c0 to %c8 step %c4 iter_args(%dest = %out) -> (tensor<8x4x5xf64>) {
    %ds = tensor.extract_slice %d[%e, 0, 0] [4, 4, 5] [1, 1, 1] : tensor<8x4x5xf64> to tensor<4x4x5xf64>
    %vs = tensor.extract_slice %dest[%e, 0, 0] [4, 4, 5] [1, 1, 1] : tensor<8x4x5xf64> to tensor<4x4x5xf64>
    %p = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ds : tensor<4x4x5xf64>) outs(%vs : tensor<4x4x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      linalg.yield %x : f64
    } -> tensor<4x4x5xf64>
    %ins = tensor.insert_slice %p into %dest[%e, 0, 0] [4, 4, 5] [1, 1, 1] : tensor<4x4x5xf64> into tensor<8x4x5xf64>
    scf.yield %ins : tensor<8x4x5xf64>
  } {tl.interlace_batches}
  return %r : tensor<8x4x5xf64>
}

// -----

#id = affine_map<(e, i, j) -> (e, i, j)>

// A statement that accumulates into another's result: the rotated chain
// would make its accumulator anew, so the loop is left as it is.
// CHECK-LABEL: func.func @intermediate_as_accumulator
// CHECK-NOT: linalg.transpose
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3x5xf64>)
// CHECK: linalg.generic {{.*}} outs(%[[A]] : tensor<4x3x5xf64>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tl.interlace_batches
// CHECK: return
func.func @intermediate_as_accumulator(%d: tensor<8x3x5xf64>, %out: tensor<8x3x5xf64>) -> tensor<8x3x5xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %e = %c0 to %c8 step %c4 iter_args(%dest = %out) -> (tensor<8x3x5xf64>) {
    %ds = tensor.extract_slice %d[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %vs = tensor.extract_slice %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ds : tensor<4x3x5xf64>) outs(%vs : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.mulf %x, %x : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ds : tensor<4x3x5xf64>) outs(%a : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.addf %x, %o : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %ins = tensor.insert_slice %b into %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<4x3x5xf64> into tensor<8x3x5xf64>
    scf.yield %ins : tensor<8x3x5xf64>
  } {tl.interlace_batches}
  return %r : tensor<8x3x5xf64>
}

// -----

#id = affine_map<(e, i, j) -> (e, i, j)>

// Two statements filling their accumulators from one fill (as CSE leaves
// them): each rotated statement gets a fill of its own, and the original
// goes. The second accumulates into the destination's slice, which it
// reads: that slice is transposed in, and the result back into it.
// CHECK-LABEL: func.func @shared_fill_and_read_accumulator
// CHECK: scf.for %[[E:.*]] = {{.*}} iter_args(%[[DEST:.*]] = %{{.*}})
// CHECK: %[[D:.*]] = tensor.extract_slice %arg0[%[[E]], 0, 0] [4, 3, 5]
// CHECK: %[[V:.*]] = tensor.extract_slice %[[DEST]][%[[E]], 0, 0] [4, 3, 5]
// CHECK-NOT: linalg.fill {{.*}} -> tensor<4x3x5xf64>
// CHECK: %[[DT:.*]] = linalg.transpose ins(%[[D]] : tensor<4x3x5xf64>)
// CHECK: %[[Z1:.*]] = linalg.fill {{.*}} -> tensor<3x5x4xf64>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[DT]] : tensor<3x5x4xf64>) outs(%[[Z1]] : tensor<3x5x4xf64>)
// CHECK: %[[Z2:.*]] = linalg.fill {{.*}} -> tensor<3x5x4xf64>
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<3x5x4xf64>) outs(%[[Z2]] : tensor<3x5x4xf64>)
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[V]] : tensor<4x3x5xf64>) outs(%{{.*}} : tensor<3x5x4xf64>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<3x5x4xf64>) outs(%[[VT]] : tensor<3x5x4xf64>)
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[C]] : tensor<3x5x4xf64>) outs(%[[V]] : tensor<4x3x5xf64>)
// CHECK: tensor.insert_slice %[[BACK]] into %[[DEST]]
// CHECK-NOT: linalg.fill {{.*}} -> tensor<4x3x5xf64>
// CHECK: return
func.func @shared_fill_and_read_accumulator(%d: tensor<8x3x5xf64>, %out: tensor<8x3x5xf64>) -> tensor<8x3x5xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %e = %c0 to %c8 step %c4 iter_args(%dest = %out) -> (tensor<8x3x5xf64>) {
    %ds = tensor.extract_slice %d[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %vs = tensor.extract_slice %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<8x3x5xf64> to tensor<4x3x5xf64>
    %empty = tensor.empty() : tensor<4x3x5xf64>
    %zeros = linalg.fill ins(%zero : f64) outs(%empty : tensor<4x3x5xf64>) -> tensor<4x3x5xf64>
    %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ds : tensor<4x3x5xf64>) outs(%zeros : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.addf %x, %o : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a : tensor<4x3x5xf64>) outs(%zeros : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.addf %x, %o : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%b : tensor<4x3x5xf64>) outs(%vs : tensor<4x3x5xf64>) {
    ^bb0(%x: f64, %o: f64):
      %s = arith.addf %x, %o : f64
      linalg.yield %s : f64
    } -> tensor<4x3x5xf64>
    %ins = tensor.insert_slice %c into %dest[%e, 0, 0] [4, 3, 5] [1, 1, 1] : tensor<4x3x5xf64> into tensor<8x3x5xf64>
    scf.yield %ins : tensor<8x3x5xf64>
  } {tl.interlace_batches}
  return %r : tensor<8x3x5xf64>
}
