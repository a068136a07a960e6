// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{register-tiles=false}))" --verify-diagnostics | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{register-tiles=false shared-memory-bytes=0 barriers=false}))" --verify-diagnostics | FileCheck %s --check-prefix=SCRATCH
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops))" --verify-diagnostics | FileCheck %s --check-prefix=TILES
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-gpu-map-loops{shared-memory-bytes=0 barriers=false}))" --verify-diagnostics | FileCheck %s --check-prefix=CPU-TILES

// A batch loop of tl-fuse-batches (two steps of a CFD kernel on 7 elements
// of 4 x 4) becomes one kernel: a block per element, whose 32 threads run
// the steps in turn, a barrier between, each thread taking every 32nd
// element of a step (16 of them here: threads 16 to 31 do nothing). The
// intermediate, a buffer each iteration uses as its own, is the block's
// (workgroup memory, which tl-gpu-device-memory makes a global); the
// accumulators are loaded once and stored once around the reduction.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: memref.alloc()
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:   %[[T:.*]] = memref.alloc() : memref<1x4x4xf64, #gpu.address_space<workgroup>>
// CHECK:   memref.subview %{{.*}}[%[[BLOCK]], 0, 0] [1, 4, 4]
// CHECK:   scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[C32:.*]]) step
// CHECK:     scf.for %[[I:.*]] = %[[THREAD]] to %{{.*}} step %[[C32]] {
// CHECK:       %[[IDX:.*]]:3 = affine.delinearize_index %[[I]] into (1, 4, 4)
// CHECK:       %[[ACC:.*]] = memref.load %[[T]][%[[IDX]]#0, %[[IDX]]#1, %[[IDX]]#2]
// CHECK:       %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (f64) {
// CHECK:         memref.load %{{.*}}[%[[IDX]]#0, %{{.*}}, %[[IDX]]#2]
// CHECK:       memref.store %[[SUM]], %[[T]][%[[IDX]]#0, %[[IDX]]#1, %[[IDX]]#2]
// CHECK:     gpu.barrier
// CHECK:     scf.for %{{.*}} = %[[THREAD]] to %{{.*}} step %[[C32]] {
// CHECK:       memref.load %[[T]]
// CHECK-NOT: gpu.barrier
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK-NOT: memref.dealloc
// CHECK: return
// For the CPU, and where the buffers do not fit in shared memory: one
// scratch buffer with a slice per block, and each step a thread loop of
// its own (which orders them as the barrier does).
// SCRATCH-LABEL: func.func @chain
// SCRATCH: %[[SCRATCH:.*]] = memref.alloc(%{{.*}}) : memref<?x1x4x4xf64>
// SCRATCH: scf.parallel (%[[BLOCK:.*]]) =
// SCRATCH:   %[[MINE:.*]] = memref.subview %[[SCRATCH]][%{{.*}}, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1]
// SCRATCH:   scf.parallel
// SCRATCH:     memref.store %{{.*}}, %[[MINE]]
// SCRATCH-NOT: gpu.barrier
// SCRATCH:   scf.parallel
// SCRATCH:     memref.load %[[MINE]]
// SCRATCH: memref.dealloc %[[SCRATCH]]
// With register tiles: in each step one thread sums the 4 elements along
// i side by side, 4 accumulators in registers, since the slice it reads
// does not depend on i (each element loaded serves 4 sums). Threads for
// the 4 (e, j) points left: 32.
// TILES-LABEL: func.func @chain
// TILES: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C32:c32]]) step
// TILES:   scf.for %[[I:.*]] = %{{.*}} to %[[N:.*]] step %[[C32]] {
// TILES:     %[[IDX:.*]]:2 = affine.delinearize_index %[[I]] into (1, 4)
// TILES:     scf.for {{.*}} iter_args({{.*}}) -> (f64, f64, f64, f64) {
// TILES-COUNT-4: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x4xf64>
// TILES:     scf.yield
// TILES-COUNT-4: memref.store
// TILES:   gpu.barrier
#u = affine_map<(e, i, j, k) -> (e, k, j)>
#m = affine_map<(e, i, j, k) -> (i, k)>
#v = affine_map<(e, i, j, k) -> (e, i, j)>
func.func @chain(%u: memref<7x4x4xf64>, %m: memref<4x4xf64>, %out: memref<7x4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  %t = memref.alloc() : memref<1x4x4xf64>
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    %os = memref.subview %out[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%us, %m : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>, memref<4x4xf64>) outs(%t : memref<1x4x4xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%t, %m : memref<1x4x4xf64>, memref<4x4xf64>) outs(%os : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  memref.dealloc %t : memref<1x4x4xf64>
  return
}

// -----

// A body this mapping does not know (a store of its own) is left as it
// was, said in a remark, and its statement mapped on its own.
// CHECK-LABEL: func.func @unknown
// CHECK: scf.for
// CHECK:   memref.store
// CHECK:   scf.parallel
// CHECK: } {tl.batch_loop}
func.func @unknown(%u: memref<7x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  // expected-remark @+1 {{tl-gpu-map-loops: batch loop not mapped as one kernel}}
  scf.for %e = %c0 to %c7 step %c1 {
    memref.store %zero, %u[%e, %c0] : memref<7x4xf64>
    %us = memref.subview %u[%e, 0] [1, 4] [1, 1] : memref<7x4xf64> to memref<1x4xf64, strided<[4, 1], offset: ?>>
    linalg.fill ins(%zero : f64) outs(%us : memref<1x4xf64, strided<[4, 1], offset: ?>>)
  } {tl.batch_loop}
  return
}

// -----

// Bufferization's fills: the intermediate's accumulator is filled, copied
// into the other buffer, and accumulated into; the result's is filled
// before its step. A copy of a buffer just filled is a fill, and a fill
// whose buffer the next statement to touch it accumulates into whole
// starts that statement's sums instead (0.0, not a load): three phases of
// five remain, two barriers, and the global result is written once.
// CHECK-LABEL: func.func @fills
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     scf.for
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO:cst[_0-9]*]]) -> (f64)
// CHECK:     gpu.barrier
// CHECK:     scf.for
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f64)
// CHECK:     gpu.barrier
// CHECK:     scf.for
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f64)
// CHECK:       memref.store
// CHECK-NOT: gpu.barrier
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
#u = affine_map<(e, i, j, k) -> (e, k, j)>
#m = affine_map<(e, i, j, k) -> (i, k)>
#v = affine_map<(e, i, j, k) -> (e, i, j)>
func.func @fills(%u: memref<7x4x4xf64>, %m: memref<4x4xf64>, %out: memref<7x4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  %t = memref.alloc() : memref<1x4x4xf64>
  %s = memref.alloc() : memref<1x4x4xf64>
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    %os = memref.subview %out[%e, 0, 0] [1, 4, 4] [1, 1, 1] : memref<7x4x4xf64> to memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>
    linalg.fill ins(%zero : f64) outs(%s : memref<1x4x4xf64>)
    memref.copy %s, %t : memref<1x4x4xf64> to memref<1x4x4xf64>
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%us, %m : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>, memref<4x4xf64>) outs(%t : memref<1x4x4xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.addf %acc, %p : f64
      linalg.yield %q : f64
    }
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%t, %m : memref<1x4x4xf64>, memref<4x4xf64>) outs(%s : memref<1x4x4xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.addf %acc, %p : f64
      linalg.yield %q : f64
    }
    linalg.fill ins(%zero : f64) outs(%os : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%s, %m : memref<1x4x4xf64>, memref<4x4xf64>) outs(%os : memref<1x4x4xf64, strided<[16, 4, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %q = arith.addf %acc, %p : f64
      linalg.yield %q : f64
    }
  } {tl.batch_loop}
  memref.dealloc %t : memref<1x4x4xf64>
  memref.dealloc %s : memref<1x4x4xf64>
  return
}

// -----

// A step reads its slice of u along j while u's stride-1 index is k (the
// contraction's, as K5's first step): with register tiles along i, the
// consecutive threads step along j, 128 bytes apart. The slice (2 KiB) is
// first copied into shared memory by a phase of its own, along k (32
// threads, 8 elements each, all loaded before any is stored); the step
// then reads the copy (m, which every thread reads alike, is staged too:
// @uniform_input).
#u = affine_map<(e, i, j, k) -> (e, j, k)>
#m = affine_map<(e, i, j, k) -> (i, k)>
#v = affine_map<(e, i, j, k) -> (e, i, j)>
// The slice is contiguous: the copy runs along one dimension, the
// statement reads the same bytes as 1 x 16 x 16.
// TILES-LABEL: func.func @strided_input
// TILES: scf.parallel (%[[BLOCK:.*]]) =
// TILES:   %[[STAGED:.*]] = memref.view %{{.*}} to memref<1x16x16xf64, #gpu.address_space<workgroup>>
// TILES:   %[[FLAT:.*]] = memref.view %{{.*}} to memref<256xf64, #gpu.address_space<workgroup>>
// TILES:   %[[SLICE:.*]] = memref.subview %{{.*}}[%[[BLOCK]], 0, 0] [1, 16, 16]
// TILES:   %[[ALONG:.*]] = memref.collapse_shape %[[SLICE]] {{\[}}[0, 1, 2]]
// TILES:   scf.parallel
// TILES-COUNT-8: memref.load %[[ALONG]][
// TILES-COUNT-8: memref.store %{{.*}}, %[[FLAT]][
// TILES:     gpu.barrier
// TILES:     scf.for
// TILES-NOT:   memref.load %[[SLICE]][
// TILES:       memref.load %[[STAGED]]
// TILES: return
// On the CPU (no barriers, no shared memory) the same copy, in a buffer
// of the block's own.
// SCRATCH-LABEL: func.func @strided_input
// SCRATCH: scf.parallel
// SCRATCH:   %[[BYTES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<2048xi8>
// SCRATCH:   %[[STAGED:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<2048xi8> to memref<1x16x16xf64>
// SCRATCH:   %[[FLAT:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<2048xi8> to memref<256xf64>
// SCRATCH:   scf.parallel
// SCRATCH:     memref.store %{{.*}}, %[[FLAT]]
// SCRATCH-NOT: gpu.barrier
// SCRATCH:   scf.parallel
// SCRATCH:     memref.load %[[STAGED]]
// SCRATCH:   memref.dealloc %[[BYTES]]
// CHECK-LABEL: func.func @strided_input
// CHECK-NOT: workgroup>>
// CHECK: memref.alloc() {alignment = 16 : i64} : memref<2048xi8, #gpu.address_space<workgroup>>
func.func @strided_input(%u: memref<7x16x16xf64>, %m: memref<16x16xf64>, %out: memref<7x16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    %os = memref.subview %out[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%us, %m : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>, memref<16x16xf64>) outs(%os : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  return
}

// -----

// As K5's steps, on 11 x 11 slices: with register tiles along i, m[i, k]
// is read at the same element by every thread (only the tile's loop and
// the reduction index it), 11 loads per element of u. It is copied into
// shared memory with i last, rows padded to 12 (whole vectors of 16
// bytes), and each step of the reduction loads the tile's 11 elements as
// 6 vectors of 2. u's slice is staged too (read across its rows). Each
// copy has 121 elements for 32 threads: every thread loads its 4 before
// it stores any, the last (elements 96 to 120) stored only where it is
// one.
#u = affine_map<(e, i, j, k) -> (e, j, k)>
#m = affine_map<(e, i, j, k) -> (i, k)>
#v = affine_map<(e, i, j, k) -> (e, i, j)>
// TILES-LABEL: func.func @uniform_input
// TILES: scf.parallel (%[[BLOCK:.*]]) =
// TILES:   %[[BYTES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<1056xi8, #gpu.address_space<workgroup>>
// TILES:   %[[ELEMENTS:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<1056xi8, #gpu.address_space<workgroup>> to memref<11x12xf64, #gpu.address_space<workgroup>>
// TILES:   %[[VECTORS:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<1056xi8, #gpu.address_space<workgroup>> to memref<11x6xvector<2xf64>, #gpu.address_space<workgroup>>
// TILES:   %[[MT:.*]] = memref.reinterpret_cast %[[ELEMENTS]] to offset: [0], sizes: [11, 11], strides: [12, 1]
// TILES:   %[[USTAGED:.*]] = memref.view %{{.*}} to memref<1x11x11xf64, #gpu.address_space<workgroup>>
// TILES:   scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%c32{{.*}}) step
// TILES-NOT: scf.for
// TILES-COUNT-4: memref.load %arg1
// TILES-NOT: scf.if
// TILES-COUNT-3: memref.store %{{.*}}, %[[MT]]
// TILES:     scf.if %{{.*}} {
// TILES-NEXT:  memref.store %{{.*}}, %[[MT]]
// TILES:     gpu.barrier
// TILES-COUNT-4: memref.load %{{.*}} : memref<121xf64, strided<[1], offset: ?>>
// TILES:     gpu.barrier
// TILES:     scf.for
// TILES:       scf.for %[[K:[a-z0-9_]+]] = {{.*}} -> (f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64) {
// TILES-COUNT-6: memref.load %[[VECTORS]][%[[K]], %{{.*}}] : memref<11x6xvector<2xf64>, #gpu.address_space<workgroup>>
// TILES-NOT:     memref.load %[[MT]]
// TILES:         memref.load %[[USTAGED]]
// TILES-COUNT-11: arith.mulf
// TILES: return
// On the CPU, the same copies into buffers of the block's own.
// CPU-TILES-LABEL: func.func @uniform_input
// CPU-TILES: scf.parallel
// CPU-TILES:   %[[BYTES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<1056xi8>
// CPU-TILES:   memref.view %[[BYTES]][%{{.*}}][] : memref<1056xi8> to memref<11x6xvector<2xf64>>
// CPU-TILES-NOT: gpu.barrier
// CPU-TILES:   memref.dealloc %[[BYTES]]
func.func @uniform_input(%u: memref<7x11x11xf64>, %m: memref<11x11xf64>, %out: memref<7x11x11xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 11, 11] [1, 1, 1] : memref<7x11x11xf64> to memref<1x11x11xf64, strided<[121, 11, 1], offset: ?>>
    %os = memref.subview %out[%e, 0, 0] [1, 11, 11] [1, 1, 1] : memref<7x11x11xf64> to memref<1x11x11xf64, strided<[121, 11, 1], offset: ?>>
    linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%us, %m : memref<1x11x11xf64, strided<[121, 11, 1], offset: ?>>, memref<11x11xf64>) outs(%os : memref<1x11x11xf64, strided<[121, 11, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  return
}

// -----

// Two batch loops over the same elements, each writing its own component
// of g (disjoint views, g[0] and g[1]) from the same element of u (the CFD
// gradient's): merged into one kernel, the second's statement after the
// first's in each block, their views of u's element one (CSE). A third
// loop reads g[0] at another element than it writes: not merged.
#d = affine_map<(e, i, j, l) -> (i, l)>
#u0 = affine_map<(e, i, j, l) -> (e, l, j)>
#u1 = affine_map<(e, i, j, l) -> (e, i, l)>
#g = affine_map<(e, i, j, l) -> (e, i, j)>
#all = affine_map<(e, i, j) -> (e, i, j)>
// TILES-LABEL: func.func @siblings
// TILES: %[[G0:.*]] = memref.subview %arg2[0, 0, 0, 0] [1, 7, 16, 16]
// TILES: %[[G1:.*]] = memref.subview %arg2[1, 0, 0, 0] [1, 7, 16, 16]
// TILES: scf.parallel (%[[E:.*]]) = (%{{.*}}) to (%{{.*}}) step
// TILES:   memref.subview %arg0[%[[E]], 0, 0]
// TILES-NOT: memref.subview %arg0
// TILES:   %[[MINE0:.*]] = memref.subview %[[G0]][%[[E]], 0, 0]
// TILES:   %[[MINE1:.*]] = memref.subview %[[G1]][%[[E]], 0, 0]
// TILES:   scf.parallel
// TILES:     gpu.barrier
// TILES:     memref.store %{{.*}}, %[[MINE0]][
// TILES:     gpu.barrier
// TILES:     memref.store %{{.*}}, %[[MINE1]][
// TILES:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// TILES: } {mapping = [#gpu.loop_dim_map<processor = block_x
// TILES: memref.subview %arg2[2, 0, 0, 0]
// TILES: scf.parallel
// TILES: } {mapping = [#gpu.loop_dim_map<processor = block_x
// TILES-NEXT: return
func.func @siblings(%u: memref<7x16x16xf64>, %d: memref<16x16xf64>, %g: memref<3x7x16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f64
  %g0 = memref.subview %g[0, 0, 0, 0] [1, 7, 16, 16] [1, 1, 1, 1] : memref<3x7x16x16xf64> to memref<7x16x16xf64, strided<[256, 16, 1]>>
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    %gs = memref.subview %g0[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64, strided<[256, 16, 1]>> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    linalg.fill ins(%zero : f64) outs(%gs : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#d, #u0, #g], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%d, %us : memref<16x16xf64>, memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) outs(%gs : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  %g1 = memref.subview %g[1, 0, 0, 0] [1, 7, 16, 16] [1, 1, 1, 1] : memref<3x7x16x16xf64> to memref<7x16x16xf64, strided<[256, 16, 1], offset: 1792>>
  scf.for %e = %c0 to %c7 step %c1 {
    %us = memref.subview %u[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    %gs = memref.subview %g1[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64, strided<[256, 16, 1], offset: 1792>> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    linalg.fill ins(%zero : f64) outs(%gs : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#d, #u1, #g], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%d, %us : memref<16x16xf64>, memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) outs(%gs : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    }
  } {tl.batch_loop}
  %g2 = memref.subview %g[2, 0, 0, 0] [1, 7, 16, 16] [1, 1, 1, 1] : memref<3x7x16x16xf64> to memref<7x16x16xf64, strided<[256, 16, 1], offset: 3584>>
  scf.for %e = %c0 to %c7 step %c1 {
    %prev = arith.subi %c7, %e : index
    %last = arith.subi %prev, %c1 : index
    %other = memref.subview %g0[%last, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64, strided<[256, 16, 1]>> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    %gs = memref.subview %g2[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<7x16x16xf64, strided<[256, 16, 1], offset: 3584>> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    linalg.generic {indexing_maps = [#all, #all], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%other : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) outs(%gs : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>) {
    ^bb0(%x: f64, %o: f64):
      linalg.yield %x : f64
    }
  } {tl.batch_loop}
  return
}
