// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops))" | FileCheck %s
// RUN: not tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{threads-per-block=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: tl-gpu-map-loops: threads-per-block must be from 1 to 1024

// An element-wise statement over 3 x 7 x 53 = 1113 elements: one dimension,
// row-major (the last index fastest along the threads), in blocks of 256
// threads, the threads past the end masked.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c53
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK:   scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:     %[[I:.*]] = arith.addi %[[THREAD]], %[[BLOCK]]
// CHECK:     arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK:     scf.if
// CHECK:       %[[K:.*]] = arith.remsi %[[I]], %c53
// CHECK:       %[[J:.*]] = affine.apply #{{.*}}(%[[K]])
// CHECK:       memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[J]]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
#id = affine_map<(i, j, k) -> (i, j, k)>
func.func @elementwise(%a: memref<3x7x53xf64>, %b: memref<3x7x53xf64>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<3x7x53xf64>) outs(%b : memref<3x7x53xf64>) {
  ^bb0(%x: f64, %y: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A reduction before the parallel dimension: the parallel one moves first,
// and each thread sums in the program's order. 5 elements: one block of 5
// threads.
// CHECK-LABEL: func.func @reduction_first
// CHECK: scf.parallel
// CHECK:   scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK:     %[[J:.*]] = arith.addi %[[T]]
// CHECK-NOT: scf.if
// CHECK:     scf.for %[[K:.*]] = %{{.*}} to %c4 step
// CHECK:       %[[R:.*]] = affine.apply #{{.*}}(%[[K]])
// CHECK:       memref.load %{{.*}}[%[[R]], %{{.*}}] : memref<4x5xf64>
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
#in = affine_map<(k, j) -> (k, j)>
#out = affine_map<(k, j) -> (j)>
func.func @reduction_first(%a: memref<4x5xf64>, %c: memref<5xf64>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4x5xf64>) outs(%c : memref<5xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A sum to a scalar and a scalar fill have no parallel dimension: each runs
// as one thread of one block, not on the host.
// CHECK-LABEL: func.func @scalar
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     memref.store %{{.*}}, %{{.*}}[] : memref<f64>
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     scf.for
// CHECK:       memref.load %{{.*}}[%{{.*}}] : memref<6xf64>
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK-NOT: memref.store
// CHECK: return
#v = affine_map<(k) -> (k)>
#s = affine_map<(k) -> ()>
func.func @scalar(%a: memref<6xf64>, %c: memref<f64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<f64>)
  linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%a : memref<6xf64>) outs(%c : memref<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A copy (a statement `a = b`) is a mapped nest too.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[X:.*]] = memref.load %{{.*}} : memref<2x3xf64>
// CHECK:     memref.store %[[X]], %{{.*}} : memref<2x3xf64>
func.func @copy(%a: memref<2x3xf64>, %b: memref<2x3xf64>) {
  memref.copy %a, %b : memref<2x3xf64> to memref<2x3xf64>
  return
}
