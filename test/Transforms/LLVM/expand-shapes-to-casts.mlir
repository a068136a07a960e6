// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-expand-shapes-to-casts))" | FileCheck %s
// The rewritten expansions lower (MLIR 22's pass crashes on the originals):
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-expand-shapes-to-casts,expand-strided-metadata))" | FileCheck %s --check-prefix=LOWERED

// Two sizes in one group (a sized contraction's collapsed rows expanded
// back): a reinterpret cast of the buffer, with the strides the sizes
// imply.
// CHECK-LABEL: func.func @two_sizes_in_a_group
// CHECK-SAME: (%[[M:.*]]: index, %[[N:.*]]: index, %[[A:.*]]: index, %[[B:.*]]: index, %[[C:.*]]: index, %[[D:.*]]: index)
// CHECK: %[[ALLOC:.*]] = memref.alloc(%[[M]], %[[N]])
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[ALLOC]]
// CHECK: %[[OUTER:.*]] = arith.muli %[[STRIDES]]#0, %[[B]] : index
// CHECK-NOT: memref.expand_shape
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[A]], %[[B]], %[[C]], %[[D]]], strides: [%[[OUTER]], %[[STRIDES]]#0, %[[D]], 1]
// LOWERED-LABEL: func.func @two_sizes_in_a_group
// LOWERED-NOT: memref.expand_shape
func.func @two_sizes_in_a_group(%m: index, %n: index, %a: index, %b: index, %c: index, %d: index) -> memref<?x?x?x?xf64> {
  %alloc = memref.alloc(%m, %n) : memref<?x?xf64>
  %expanded = memref.expand_shape %alloc [[0, 1], [2, 3]] output_shape [%a, %b, %c, %d] : memref<?x?xf64> into memref<?x?x?x?xf64>
  return %expanded : memref<?x?x?x?xf64>
}

// -----

// A strided source (a block of a larger buffer): its offset and strides
// carry over.
// CHECK-LABEL: func.func @strided_source
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [%{{.*}}, %{{.*}}, 4], strides: [%{{.*}}, %[[STRIDES]]#0, 1]
// LOWERED-LABEL: func.func @strided_source
// LOWERED-NOT: memref.expand_shape
func.func @strided_source(%src: memref<?x4xf64, strided<[?, 1], offset: ?>>, %a: index, %b: index) -> memref<?x?x4xf64, strided<[?, ?, 1], offset: ?>> {
  %expanded = memref.expand_shape %src [[0, 1], [2]] output_shape [%a, %b, 4] : memref<?x4xf64, strided<[?, 1], offset: ?>> into memref<?x?x4xf64, strided<[?, ?, 1], offset: ?>>
  return %expanded : memref<?x?x4xf64, strided<[?, ?, 1], offset: ?>>
}

// -----

// One size per group: MLIR lowers it; left as it is.
// CHECK-LABEL: func.func @one_size_per_group
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_size_per_group(%src: memref<?x8xf64>, %a: index) -> memref<?x2x2x4xf64> {
  %expanded = memref.expand_shape %src [[0, 1], [2, 3]] output_shape [%a, 2, 2, 4] : memref<?x8xf64> into memref<?x2x2x4xf64>
  return %expanded : memref<?x2x2x4xf64>
}
