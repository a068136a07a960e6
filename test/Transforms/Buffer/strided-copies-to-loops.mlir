// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-strided-copies-to-loops))" | FileCheck %s

// A block of a tile copied out and back (what bufferization does for the
// last, narrow columns of a split contraction) becomes linalg.copy, which
// the loop lowering turns into loops, not a call to memrefCopy.
// CHECK-LABEL: func.func @strided
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK: linalg.copy ins(%[[VIEW]] : memref<11x3xf64, strided<[11, 1], offset: 8>>) outs(%{{.*}} : memref<11x3xf64>)
// CHECK: linalg.copy ins(%{{.*}} : memref<11x3xf64>) outs(%[[VIEW]] : memref<11x3xf64, strided<[11, 1], offset: 8>>)
// CHECK-NOT: memref.copy
func.func @strided(%tile: memref<11x11xf64>, %block: memref<11x3xf64>) {
  %view = memref.subview %tile[0, 8] [11, 3] [1, 1] : memref<11x11xf64> to memref<11x3xf64, strided<[11, 1], offset: 8>>
  memref.copy %view, %block : memref<11x3xf64, strided<[11, 1], offset: 8>> to memref<11x3xf64>
  memref.copy %block, %view : memref<11x3xf64> to memref<11x3xf64, strided<[11, 1], offset: 8>>
  return
}

// Contiguous copies stay memref.copy (llvm.memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x4xf64>, %b: memref<4x4xf64>) {
  memref.copy %a, %b : memref<4x4xf64> to memref<4x4xf64>
  return
}

// -----

// In a version chosen at run time (an scf.if of foldAtRunTime), a
// statement over a view made in the version: its extents are no affine
// symbols there, so it becomes scf loops. One over a buffer of the
// function's top level stays linalg (affine loops later).
// CHECK-LABEL: func.func @in_a_version
// CHECK: scf.if
// CHECK: memref.collapse_shape
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK: memref.store
// CHECK: } else {
// CHECK: linalg.fill {{.*}} outs(%arg0 : memref<?x?x?xf64>)
func.func @in_a_version(%out: memref<?x?x?xf64>, %choice: i1) {
  %zero = arith.constant 0.0 : f64
  scf.if %choice {
    %view = memref.collapse_shape %out [[0], [1, 2]] : memref<?x?x?xf64> into memref<?x?xf64>
    linalg.fill ins(%zero : f64) outs(%view : memref<?x?xf64>)
  } else {
    linalg.fill ins(%zero : f64) outs(%out : memref<?x?x?xf64>)
  }
  return
}

// In the loops of a sized contraction's tiles, the statements over views
// made there become scf loops too: the start of a register tile's
// accumulator at an edge (tl.first_depth_block_start), the copy of a block
// into panels. A static one stays linalg, and so does one over a view
// made outside the loops.
// CHECK-LABEL: func.func @start_at_edge
// CHECK: scf.for
// CHECK-NOT: linalg.generic
// CHECK: arith.select
// CHECK: memref.store
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<8x16xf64
func.func @start_at_edge(%out: memref<?x?xf64>, %n: index, %rows: index, %first: i1) {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c8 {
    %edge = memref.subview %out[%i, 0] [%rows, 16] [1, 1] : memref<?x?xf64> to memref<?x16xf64, strided<[?, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%edge : memref<?x16xf64, strided<[?, 1], offset: ?>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%o: f64):
      %s = arith.select %first, %zero, %o : f64
      linalg.yield %s : f64
    }
    %full = memref.subview %out[%i, 0] [8, 16] [1, 1] : memref<?x?xf64> to memref<8x16xf64, strided<[?, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%full : memref<8x16xf64, strided<[?, 1], offset: ?>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%o: f64):
      %s = arith.select %first, %zero, %o : f64
      linalg.yield %s : f64
    }
  }
  return
}

// The copy of a block into panels moves each run of the panel's width,
// adjacent in both buffers, as one vector.
// CHECK-LABEL: func.func @panels_in_tile
// CHECK: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %arg3
// CHECK-NEXT: %[[VEC:.*]] = vector.load %{{.*}}[%[[STEP]], %[[ZERO:.*]]] : memref<?x16xf64, strided<[?, 1], offset: ?>>, vector<16xf64>
// CHECK-NEXT: vector.store %[[VEC]], %{{.*}}[%[[STEP]], %[[ZERO]]] : memref<?x16xf64>, vector<16xf64>
// CHECK: linalg.fill {{.*}} outs(%arg1 : memref<?x16xf64>)
func.func @panels_in_tile(%block: memref<?x?xf64>, %whole: memref<?x16xf64>, %n: index, %depth: index) {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c16 {
    %panels = memref.alloc(%depth) : memref<?x16xf64>
    %columns = memref.subview %block[0, %i] [%depth, 16] [1, 1] : memref<?x?xf64> to memref<?x16xf64, strided<[?, 1], offset: ?>>
    linalg.transpose ins(%columns : memref<?x16xf64, strided<[?, 1], offset: ?>>) outs(%panels : memref<?x16xf64>) permutation = [0, 1]
    memref.dealloc %panels : memref<?x16xf64>
    linalg.fill ins(%zero : f64) outs(%whole : memref<?x16xf64>)
  }
  return
}

// A sized tile's block [depth][batch][panels x 16] into panels
// [panels][batch][depth][16]: the loops follow the block's layout (depth,
// batch, panel), the source read line after line, and each run of 16 is
// one vector; the padding of the last panel is a vector of zeros per run.
// CHECK-LABEL: func.func @panels_follow_source
// CHECK: %[[BLOCK:.*]] = memref.subview %arg0
// CHECK: %[[PANELS:.*]] = memref.alloc
// CHECK: scf.for %[[DEPTH:.*]] = %{{.*}} to %c256
// CHECK-NEXT: scf.for %[[BATCH:.*]] = %{{.*}} to %arg2
// CHECK-NEXT: scf.for %[[PANEL:.*]] = %{{.*}} to %arg3
// CHECK-NEXT: %[[VEC:.*]] = vector.load %[[BLOCK]][%[[DEPTH]], %[[BATCH]], %[[PANEL]], %[[ZERO:.*]]] : memref<256x?x?x16xf64, strided<[?, ?, 16, 1]>>, vector<16xf64>
// CHECK-NEXT: vector.store %[[VEC]], %[[PANELS]][%[[PANEL]], %[[BATCH]], %[[DEPTH]], %[[ZERO]]] : memref<?x?x256x16xf64>, vector<16xf64>
// CHECK: %[[ZEROS:.*]] = vector.broadcast %{{.*}} : f64 to vector<16xf64>
// CHECK: vector.store %[[ZEROS]], %[[PANELS]][
// CHECK-NOT: linalg.
func.func @panels_follow_source(%a: memref<256x?x?x16xf64>, %n: index, %batch: index, %count: index) {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %block = memref.subview %a[0, 0, 0, 0] [256, %batch, %count, 16] [1, 1, 1, 1] : memref<256x?x?x16xf64> to memref<256x?x?x16xf64, strided<[?, ?, 16, 1]>>
    %panels = memref.alloc(%count, %batch) : memref<?x?x256x16xf64>
    linalg.transpose ins(%block : memref<256x?x?x16xf64, strided<[?, ?, 16, 1]>>) outs(%panels : memref<?x?x256x16xf64>) permutation = [2, 1, 0, 3]
    linalg.fill ins(%zero : f64) outs(%panels : memref<?x?x256x16xf64>)
    memref.dealloc %panels : memref<?x?x256x16xf64>
  }
  return
}

// Scalar loops where a run is not one vector: the last dimension is
// another loop in the source (a transposition of the last two), its
// elements are not adjacent in the source, its length is a size, it is
// longer than four registers, or its elements are bits (i1: a byte each
// in a buffer, packed in a vector).
// CHECK-LABEL: func.func @runs_not_vectors
// CHECK-NOT: vector.
// CHECK-COUNT-5: memref.store
// CHECK-NOT: vector.
func.func @runs_not_vectors(%a: memref<?x16xf64>, %s: memref<?x32xf64>, %d: memref<?x?xf64>, %f: memref<?x64xf64>, %bits: memref<?x16xi1>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.alloc(%n) : memref<16x?xf64>
    linalg.transpose ins(%a : memref<?x16xf64>) outs(%b : memref<16x?xf64>) permutation = [1, 0]
    %strided = memref.subview %s[0, 0] [%n, 16] [1, 2] : memref<?x32xf64> to memref<?x16xf64, strided<[32, 2]>>
    %c = memref.alloc(%n) : memref<?x16xf64>
    linalg.copy ins(%strided : memref<?x16xf64, strided<[32, 2]>>) outs(%c : memref<?x16xf64>)
    %e = memref.alloc(%n, %n) : memref<?x?xf64>
    linalg.copy ins(%d : memref<?x?xf64>) outs(%e : memref<?x?xf64>)
    %g = memref.alloc(%n) : memref<?x64xf64>
    linalg.copy ins(%f : memref<?x64xf64>) outs(%g : memref<?x64xf64>)
    %h = memref.alloc(%n) : memref<?x16xi1>
    linalg.copy ins(%bits : memref<?x16xi1>) outs(%h : memref<?x16xi1>)
  }
  return
}
