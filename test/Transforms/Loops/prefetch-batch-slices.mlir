// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-prefetch-batch-slices))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-prefetch-batch-slices{min-slice-bytes=4096}))" | FileCheck %s --check-prefix=LARGE

// A batch loop that computes on a slice of u (11 x 12 f64, 1056 bytes: 18
// lines where a slice starts inside a line) and writes a slice of v (136
// f64, 1088 bytes: 17 lines) prefetches the next slices over its two inner
// loops' 13 iterations: 2 lines of each in each, reading u and writing v.
// The next batch is clamped to the last (no prefetch past the buffers),
// each line to its slice's last element. The operator a, which the loop
// reads whole, is not a batch slice.
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 2097152, cache_line_bytes = 64>} {
func.func @batch(%u: memref<100x11x12xf64>, %a: memref<11xf64>, %v: memref<100x136xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c11 = arith.constant 11 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant dense<0.0> : vector<8xf64>
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c100 step %c1 {
    %sum = scf.for %k = %c0 to %c11 step %c1 iter_args(%acc = %zero) -> (vector<8xf64>) {
      %row = vector.transfer_read %u[%e, %k, %c0], %pad {in_bounds = [true]} : memref<100x11x12xf64>, vector<8xf64>
      %s = memref.load %a[%k] : memref<11xf64>
      %b = vector.broadcast %s : f64 to vector<8xf64>
      %next = vector.fma %b, %row, %acc : vector<8xf64>
      scf.yield %next : vector<8xf64>
    }
    vector.transfer_write %sum, %v[%e, %c0] {in_bounds = [true]} : vector<8xf64>, memref<100x136xf64>
    affine.for %i = 0 to 2 {
      %x = memref.load %u[%e, %i, %c0] : memref<100x11x12xf64>
      memref.store %x, %v[%e, %i] : memref<100x136xf64>
    }
  }
  return
}
}
// CHECK-DAG: #[[NEXT:.*]] = affine_map<(d0) -> (d0 + 1, 99)>
// CHECK-DAG: #[[U0:.*]] = affine_map<(d0, d1) -> (d1 * 132 + d0 * 16, d1 * 132 + 131)>
// CHECK-DAG: #[[U1:.*]] = affine_map<(d0, d1) -> (d1 * 132 + (d0 * 2 + 1) * 8, d1 * 132 + 131)>
// CHECK-DAG: #[[V0:.*]] = affine_map<(d0, d1) -> (d1 * 136 + d0 * 16, d1 * 136 + 135)>
// CHECK-DAG: #[[V1:.*]] = affine_map<(d0, d1) -> (d1 * 136 + (d0 * 2 + 1) * 8, d1 * 136 + 135)>
// CHECK-DAG: #[[U0B:.*]] = affine_map<(d0, d1) -> (d1 * 132 + (d0 + 11) * 16, d1 * 132 + 131)>
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[U:.*]]: memref<100x11x12xf64>, %[[A:.*]]: memref<11xf64>, %[[V:.*]]: memref<100x136xf64>)
// CHECK-DAG: %[[UF:.*]] = memref.collapse_shape %[[U]] {{\[\[}}0, 1, 2]] : memref<100x11x12xf64> into memref<13200xf64>
// CHECK-DAG: %[[VF:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1]] : memref<100x136xf64> into memref<13600xf64>
// CHECK: scf.for %[[E:[a-z0-9]+]] =
// CHECK-NEXT: %[[N:[0-9]+]] = affine.min #[[NEXT]](%[[E]])
// CHECK-NEXT: scf.for %[[K:[a-z0-9]+]] =
// CHECK-NEXT: %[[I0:[0-9]+]] = affine.min #[[U0]](%[[K]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[UF]][%[[I0]]], read, locality<3>, data
// CHECK-NEXT: %[[I1:[0-9]+]] = affine.min #[[U1]](%[[K]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[UF]][%[[I1]]], read, locality<3>, data
// CHECK-NEXT: %[[I2:[0-9]+]] = affine.min #[[V0]](%[[K]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[VF]][%[[I2]]], write, locality<3>, data
// CHECK-NEXT: %[[I3:[0-9]+]] = affine.min #[[V1]](%[[K]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[VF]][%[[I3]]], write, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[U]][%[[E]], %[[K]]
// CHECK: vector.transfer_write
// CHECK-NEXT: affine.for %[[I:[a-z0-9]+]] = 0 to 2 {
// CHECK-NEXT: %[[J0:[0-9]+]] = affine.min #[[U0B]](%[[I]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[UF]][%[[J0]]], read
// CHECK-NEXT: affine.min
// CHECK-NEXT: memref.prefetch %[[UF]]
// CHECK-COUNT-2: memref.prefetch %[[VF]]
// CHECK-NEXT: memref.load %[[U]][%[[E]], %[[I]],
// CHECK-NOT: memref.prefetch

// Slices below min-slice-bytes are left to the hardware.
// LARGE-LABEL: func.func @batch
// LARGE-NOT: memref.prefetch

// -----

// Slices seen through views of one batch index (the inputs of a statement
// that multiplies before it contracts) are batch slices too, read where
// only read through the view; a view of two batch indices is not. Affine
// loads and stores count like the others.
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 2097152, cache_line_bytes = 64>} {
func.func @views(%d: memref<50x16x16xf64>, %t: memref<50x16x16xf64>, %v: memref<50x16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c50 = arith.constant 50 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c50 step %c1 {
    %dv = memref.subview %d[%e, 0, 0] [1, 16, 16] [1, 1, 1] : memref<50x16x16xf64> to memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
    %tv = memref.subview %t[%e, 0, 0] [2, 16, 16] [1, 1, 1] : memref<50x16x16xf64> to memref<2x16x16xf64, strided<[256, 16, 1], offset: ?>>
    scf.for %i = %c0 to %c16 step %c1 {
      %x = vector.transfer_read %dv[%c0, %i, %c0], %pad {in_bounds = [true]} : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>, vector<8xf64>
      %y = vector.transfer_read %tv[%c1, %i, %c0], %pad {in_bounds = [true]} : memref<2x16x16xf64, strided<[256, 16, 1], offset: ?>>, vector<8xf64>
      %z = vector.fma %x, %y, %x : vector<8xf64>
      vector.transfer_write %z, %v[%e, %i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<50x16x16xf64>
    }
    affine.for %j = 0 to 2 {
      %w = affine.load %dv[0, %j, 0] : memref<1x16x16xf64, strided<[256, 16, 1], offset: ?>>
      memref.store %w, %v[%e, %j, %c0] : memref<50x16x16xf64>
    }
  }
  return
}
func.func @sized(%u: memref<?x16x16xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %n step %c1 {
    scf.for %i = %c0 to %c16 step %c1 {
      %x = vector.transfer_read %u[%e, %i, %c0], %pad {in_bounds = [true]} : memref<?x16x16xf64>, vector<8xf64>
      %z = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %z, %u[%e, %i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<?x16x16xf64>
    }
  }
  return
}
func.func @varying_offset(%u: memref<150x16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c50 = arith.constant 50 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c50 step %c1 {
    %twice = affine.apply affine_map<(d0) -> (d0 * 2)>(%e)
    %b = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%e, %twice]
    scf.for %i = %c0 to %c16 step %c1 {
      %x = vector.transfer_read %u[%b, %i, %c0], %pad {in_bounds = [true]} : memref<150x16x16xf64>, vector<8xf64>
      %z = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %z, %u[%b, %i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<150x16x16xf64>
    }
  }
  return
}
func.func @thread_chunks(%u: memref<50x16x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c25 = arith.constant 25 : index
  %pad = arith.constant 0.0 : f64
  scf.forall (%t) = (0) to (50) step (25) {
    scf.for %e = %c0 to %c25 step %c1 {
      %b = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%t, %e]
      scf.for %i = %c0 to %c16 step %c1 {
        %x = vector.transfer_read %u[%b, %i, %c0], %pad {in_bounds = [true]} : memref<50x16x16xf64>, vector<8xf64>
        %z = vector.fma %x, %x, %x : vector<8xf64>
        vector.transfer_write %z, %u[%b, %i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<50x16x16xf64>
      }
    }
  }
  return
}
}
// CHECK-DAG: #[[THREAD_NEXT:[a-z0-9]+]] = affine_map<()[s0, s1] -> (s0 + s1 + 1, 49)>
// CHECK-DAG: #[[SIZED_NEXT:[a-z0-9]+]] = affine_map<(d0)[s0] -> (d0 + 1, s0 - 1)>
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[D:.*]]: memref<50x16x16xf64>, %[[T:.*]]: memref<50x16x16xf64>, %[[V:.*]]: memref<50x16x16xf64>)
// CHECK-DAG: %[[DF:.*]] = memref.collapse_shape %[[D]]
// CHECK-DAG: %[[VF:.*]] = memref.collapse_shape %[[V]]
// CHECK: scf.for
// CHECK-COUNT-2: memref.prefetch %[[DF]]{{.*}}, read, locality<3>
// CHECK-COUNT-2: memref.prefetch %[[VF]]{{.*}}, write, locality<3>
// CHECK-NEXT: vector.transfer_read
// CHECK: affine.for
// CHECK-COUNT-2: memref.prefetch %[[DF]]{{.*}}, read, locality<3>
// CHECK-COUNT-2: memref.prefetch %[[VF]]{{.*}}, write, locality<3>
// CHECK-NEXT: affine.load
// CHECK-NOT: memref.prefetch

// A batch whose extent is a size (a loop to it, a buffer of it) is
// prefetched the same way, to the buffer's last slice.
// CHECK-LABEL: func.func @sized
// CHECK-SAME: (%[[U:.*]]: memref<?x16x16xf64>, %{{.*}}: index)
// CHECK-DAG: %[[UF:.*]] = memref.collapse_shape %[[U]] {{\[\[}}0, 1, 2]] : memref<?x16x16xf64> into memref<?xf64>
// CHECK-DAG: %[[DIM:.*]] = memref.dim %[[U]], %c0
// CHECK: scf.for %[[E:[a-z0-9]+]] =
// CHECK-NEXT: %[[N:.*]] = affine.min #[[SIZED_NEXT]](%[[E]])[%[[DIM]]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: affine.min
// CHECK-NEXT: memref.prefetch %[[UF]]

// An index that adds to the induction variable a value that varies with
// it (3e here) steps by more than one slice: no batch index, no prefetch.
// CHECK-LABEL: func.func @varying_offset
// CHECK-NOT: memref.prefetch

// Where threads share the batch, each thread's loop prefetches the slice
// after its batch index (the thread's first plus the loop's), to the
// buffer's last.
// CHECK-LABEL: func.func @thread_chunks
// CHECK: scf.forall (%[[T:.*]]) =
// CHECK: %[[UF:.*]] = memref.collapse_shape
// CHECK: scf.for %[[E:[a-z0-9]+]] =
// CHECK-NEXT: %[[B:.*]] = affine.apply #{{.*}}()[%[[T]], %[[E]]]
// CHECK-NEXT: %[[N:.*]] = affine.min #[[THREAD_NEXT]]()[%[[T]], %[[E]]]
// CHECK-NEXT: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NEXT: %[[P:.*]] = affine.min #{{.*}}(%[[I]], %[[N]])
// CHECK-NEXT: memref.prefetch %[[UF]][%[[P]]], write, locality<3>
// CHECK-NEXT: affine.min
// CHECK-NEXT: memref.prefetch %[[UF]]
// CHECK-NEXT: vector.transfer_read

// -----

// Next slices beyond L1 (2 x 24 KiB for a 32 KiB L1) go to L2.
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 32768, l2_cache_bytes = 1048576, cache_line_bytes = 64>} {
func.func @into_l2(%u: memref<16x3072xf64>, %v: memref<16x3072xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c3072 = arith.constant 3072 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c3072 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<16x3072xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %y, %v[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<16x3072xf64>
    }
  }
  return
}
}
// CHECK-LABEL: func.func @into_l2
// CHECK: memref.prefetch %{{.*}}, read, locality<2>, data
// CHECK: memref.prefetch %{{.*}}, write, locality<2>, data
// LARGE-LABEL: func.func @into_l2
// LARGE: memref.prefetch

// -----

// Not batch loops: one that only copies (no time to fetch in), one whose
// accesses move along the batch dimension (a transfer across it), one
// whose slices exceed a quarter of L2 (or whose size overflows), one
// inside another loop, one whose
// iterations are not a step of 1 apart, and one whose stores are
// non-temporal.
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64>} {
func.func @copies(%u: memref<64x256xf64>, %v: memref<64x256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<64x256xf64>, vector<8xf64>
      vector.transfer_write %x, %v[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x256xf64>
    }
  }
  return
}
func.func @across(%u: memref<64x256xf64>, %v: memref<64x256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<64x256xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %y, %v[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x256xf64>
    }
  }
  return
}
func.func @large(%u: memref<16x65536xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c65536 = arith.constant 65536 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c65536 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<16x65536xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %y, %u[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<16x65536xf64>
    }
  }
  return
}
func.func @nested(%u: memref<64x256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %e = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c256 step %c8 {
        %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<64x256xf64>, vector<8xf64>
        %y = vector.fma %x, %x, %x : vector<8xf64>
        vector.transfer_write %y, %u[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x256xf64>
      }
    }
  }
  return
}
func.func @huge(%u: memref<?x1099511627776x1099511627776xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c256 step %c8 {
      %x = vector.transfer_read %u[%e, %c0, %j], %pad {in_bounds = [true]} : memref<?x1099511627776x1099511627776xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %y, %u[%e, %c0, %j] {in_bounds = [true]} : vector<8xf64>, memref<?x1099511627776x1099511627776xf64>
    }
  }
  return
}
func.func @strided(%u: memref<64x256xf64>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c64 step %c2 {
    scf.for %j = %c0 to %c256 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<64x256xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.transfer_write %y, %u[%e, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x256xf64>
    }
  }
  return
}
func.func @streamed(%u: memref<64x256xf64>, %v: memref<64x256xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f64
  scf.for %e = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c256 step %c8 {
      %x = vector.transfer_read %u[%e, %j], %pad {in_bounds = [true]} : memref<64x256xf64>, vector<8xf64>
      %y = vector.fma %x, %x, %x : vector<8xf64>
      vector.store %y, %v[%e, %j] {nontemporal = true} : memref<64x256xf64>, vector<8xf64>
    }
  }
  return
}
}
// CHECK-LABEL: func.func @copies
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @across
// CHECK-NOT: memref.prefetch %{{.*}}, read
// CHECK-LABEL: func.func @large
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @nested
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @huge
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @streamed
// CHECK-NOT: memref.prefetch %{{.*}}, write
// CHECK: memref.prefetch %{{.*}}, read, locality<3>
// CHECK-NOT: memref.prefetch
