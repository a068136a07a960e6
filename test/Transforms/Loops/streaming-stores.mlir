// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-streaming-stores{min-bytes=4096}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-streaming-stores{min-bytes=4096 x86-sfence=true}))" | FileCheck %s --check-prefix=SFENCE
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-streaming-stores))" | FileCheck %s --check-prefix=DEFAULT
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-streaming-stores{prefetch-write-lines=0}))" | FileCheck %s --check-prefix=NOPREFETCH

// A nest that writes whole rows of a large argument is versioned on the
// argument's alignment: aligned, its writes are non-temporal stores and a
// fence follows; otherwise the original nest runs. Arguments it reads stay
// as they are.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: memref<64x16xf64>, %[[Z:.*]]: memref<64x16xf64>)
// CHECK-DAG: %[[LINE:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[Z]]
// CHECK: %[[MIS:.*]] = arith.remui %[[PTR]], %[[LINE]]
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[MIS]], %[[ZERO]]
// CHECK: scf.if %[[ALIGNED]] {
// CHECK:   affine.for %[[I:.*]] = 0 to 64 {
// CHECK:     affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK:       %[[V:.*]] = vector.transfer_read %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT:  vector.store %[[V]], %[[Z]][%[[I]], %[[J]]] {alignment = 64 : i64, nontemporal = true}
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: } else {
// CHECK-NEXT:   affine.for
// CHECK-NEXT:     affine.for
// CHECK-NEXT:       vector.transfer_read
// CHECK-NEXT:       vector.transfer_write %{{.*}}, %[[Z]]
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: {{^ *[}]$}}
// CHECK-NEXT: return
// SFENCE-LABEL: func.func @rows
// SFENCE: vector.store {{.*}}nontemporal = true
// SFENCE-NEXT: {{^ *[}]$}}
// SFENCE-NEXT: {{^ *[}]$}}
// SFENCE-NEXT: llvm.inline_asm has_side_effects "sfence", "~{memory}" : () -> ()
// SFENCE-NOT: llvm.fence
// Below the default 32 MiB nothing changes.
// DEFAULT-LABEL: func.func @rows
// DEFAULT-NOT: scf.if
// DEFAULT-NOT: vector.store
func.func @rows(%x: memref<64x16xf64>, %z: memref<64x16xf64>) {
  %pad = ub.poison : f64
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      vector.transfer_write %v, %z[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    }
  }
  return
}

// -----

// With sfence, each thread fences its own stores before the threads join;
// without, parallel nests are left alone. Single-vector rows (whose loop
// canonicalization removed) stream too.
// SFENCE-LABEL: func.func @parallel_single_vector_rows
// SFENCE: scf.if
// SFENCE:   affine.parallel
// SFENCE:     vector.store %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<512x8xf64>, vector<8xf64>
// SFENCE-NEXT: llvm.inline_asm has_side_effects "sfence", "~{memory}" : () -> ()
// SFENCE-NEXT: {{^ *[}]$}}
// SFENCE-NEXT: llvm.inline_asm has_side_effects "sfence"
// SFENCE: } else {
// CHECK-LABEL: func.func @parallel_single_vector_rows
// CHECK-NOT: scf.if
// CHECK: return
func.func @parallel_single_vector_rows(%x: memref<512x8xf64>, %z: memref<512x8xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  affine.parallel (%i) = (0) to (512) {
    %v = vector.transfer_read %x[%i, %c0], %pad {in_bounds = [true]} : memref<512x8xf64>, vector<8xf64>
    vector.transfer_write %v, %z[%i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<512x8xf64>
  }
  return
}

// -----

// Vectors narrower than a line are aligned to their own size; two of them
// fill a line.
// CHECK-LABEL: func.func @half_lines
// CHECK: scf.if
// CHECK: vector.store %{{.*}} {alignment = 32 : i64, nontemporal = true} : memref<256x16xf32>, vector<8xf32>
func.func @half_lines(%x: memref<256x16xf32>, %z: memref<256x16xf32>) {
  %pad = ub.poison : f32
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<256x16xf32>, vector<8xf32>
      vector.transfer_write %v, %z[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<256x16xf32>
    }
  }
  return
}

// -----

// Two streamed arguments: both must be aligned.
// CHECK-LABEL: func.func @two_results
// CHECK-SAME: (%[[X:.*]]: memref<1024xf64>, %[[Y:.*]]: memref<1024xf64>, %[[Z:.*]]: memref<1024xf64>)
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: memref.extract_aligned_pointer_as_index %[[Z]]
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK: scf.if %[[BOTH]]
// CHECK-COUNT-2: vector.store {{.*}}nontemporal = true
func.func @two_results(%x: memref<1024xf64>, %y: memref<1024xf64>, %z: memref<1024xf64>) {
  %pad = ub.poison : f64
  affine.for %i = 0 to 1024 step 8 {
    %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]} : memref<1024xf64>, vector<8xf64>
    vector.transfer_write %v, %y[%i] {in_bounds = [true]} : vector<8xf64>, memref<1024xf64>
    %w = arith.addf %v, %v : vector<8xf64>
    vector.transfer_write %w, %z[%i] {in_bounds = [true]} : vector<8xf64>, memref<1024xf64>
  }
  return
}

// -----

// Left alone: a result the nest also reads (streaming it out would send
// the next read to memory); rows of 12 doubles (96 bytes: not whole lines,
// and rows not aligned); a loop that covers part of each row with vectors
// of half a line; a masked write; a write into a view.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK-NOT: vector.store
// CHECK: return
func.func @left_alone(%a: memref<64x16xf64>, %b: memref<64x12xf64>,
                      %c: memref<64x32xf32>, %d: memref<64x16xf64>,
                      %e: memref<64x32xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  %mask = vector.constant_mask [5] : vector<8xi1>
  %half = arith.constant dense<1.0> : vector<8xf32>
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      %w = arith.addf %v, %v : vector<8xf64>
      vector.transfer_write %w, %a[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    }
    %r = vector.transfer_read %b[%i, %c0], %pad {in_bounds = [true]} : memref<64x12xf64>, vector<8xf64>
    vector.transfer_write %r, %b[%i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<64x12xf64>
    affine.for %j = 0 to 8 step 8 {
      vector.transfer_write %half, %c[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x32xf32>
    }
    vector.transfer_write %r, %d[%i, %c0], %mask {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    %view = memref.subview %e[0, 16] [64, 16] [1, 1] : memref<64x32xf64> to memref<64x16xf64, strided<[32, 1], offset: 16>>
    vector.transfer_write %r, %view[%i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64, strided<[32, 1], offset: 16>>
  }
  return
}

// -----

// A contraction's register tiles that sum all of their terms in registers
// (scf loops from tl-tile-contractions) write each row of 24 doubles as
// three vectors of a whole line each, at constant columns: streamed, a
// line per store, where the rows start on lines (24 x 8 bytes). Rows of
// 20 doubles do not, and a column that is no multiple of the lanes writes
// across two lines: both left alone.
// CHECK-LABEL: func.func @register_tile_lines
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf64>, %[[C:.*]]: memref<64x24xf64>, %[[D:.*]]: memref<64x20xf64>, %[[E:.*]]: memref<64x24xf64>)
// CHECK: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: scf.if
// CHECK: scf.for
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %c0{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %c8{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %c16{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: llvm.fence seq_cst
// CHECK: } else {
// CHECK-NOT: vector.store
// CHECK: vector.transfer_write %{{.*}}, %[[D]]
// CHECK-NOT: vector.store
// CHECK: vector.transfer_write %{{.*}}, %[[E]]
// CHECK-NOT: vector.store
// CHECK: return
func.func @register_tile_lines(%a: memref<64x32xf64>, %c: memref<64x24xf64>,
                               %d: memref<64x20xf64>, %e: memref<64x24xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %r = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<64x32xf64>, vector<8xf64>
    vector.transfer_write %r, %c[%i, %c0] {in_bounds = [true]} : vector<8xf64>, memref<64x24xf64>
    vector.transfer_write %r, %c[%i, %c8] {in_bounds = [true]} : vector<8xf64>, memref<64x24xf64>
    vector.transfer_write %r, %c[%i, %c16] {in_bounds = [true]} : vector<8xf64>, memref<64x24xf64>
    vector.transfer_write %r, %d[%i, %c8] {in_bounds = [true]} : vector<8xf64>, memref<64x20xf64>
    vector.transfer_write %r, %e[%i, %c4] {in_bounds = [true]} : vector<8xf64>, memref<64x24xf64>
  }
  return
}

// -----

// In the streaming copy the loops follow the layout of the largest read (a
// transposition then reads in order); the fallback keeps the order of the
// writes.
// CHECK-LABEL: func.func @transposition
// CHECK-SAME: (%[[U:.*]]: memref<16x24x32xf64>, %[[V:.*]]: memref<24x16x32xf64>)
// CHECK: scf.if
// CHECK-NEXT: affine.for %[[A:.*]] = 0 to 16 {
// CHECK-NEXT:   affine.for %[[B:.*]] = 0 to 24 {
// CHECK-NEXT:     affine.for %[[C:.*]] = 0 to 32 step 8 {
// CHECK-NEXT:       vector.transfer_read %[[U]][%[[A]], %[[B]], %[[C]]]
// CHECK-NEXT:       vector.store %{{.*}}, %[[V]][%[[B]], %[[A]], %[[C]]] {{.*}}nontemporal = true
// CHECK: } else {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 24 {
// CHECK-NEXT:   affine.for %{{.*}} = 0 to 16 {
func.func @transposition(%u: memref<16x24x32xf64>, %v: memref<24x16x32xf64>) {
  %pad = ub.poison : f64
  affine.for %b = 0 to 24 {
    affine.for %a = 0 to 16 {
      affine.for %c = 0 to 32 step 8 {
        %x = vector.transfer_read %u[%a, %b, %c], %pad {in_bounds = [true]} : memref<16x24x32xf64>, vector<8xf64>
        vector.transfer_write %x, %v[%b, %a, %c] {in_bounds = [true]} : vector<8xf64>, memref<24x16x32xf64>
      }
    }
  }
  return
}

// -----

// In a parallel nest (with sfence) the loops inside each iteration follow
// the read's layout.
// SFENCE-LABEL: func.func @parallel_transposition
// SFENCE-SAME: (%[[U:.*]]: memref<4x6x8x16xf64>, %[[V:.*]]: memref<4x8x6x16xf64>)
// SFENCE: scf.if
// SFENCE-NEXT: affine.parallel (%[[A:.*]]) = (0) to (4) {
// SFENCE-NEXT:   affine.for %[[B:.*]] = 0 to 6 {
// SFENCE-NEXT:     affine.for %[[C:.*]] = 0 to 8 {
// SFENCE-NEXT:       affine.for %[[E:.*]] = 0 to 16 step 8 {
// SFENCE-NEXT:         vector.transfer_read %[[U]][%[[A]], %[[B]], %[[C]], %[[E]]]
// SFENCE-NEXT:         vector.store %{{.*}}, %[[V]][%[[A]], %[[C]], %[[B]], %[[E]]]
// SFENCE: } else {
// SFENCE-NEXT: affine.parallel
// SFENCE-NEXT:   affine.for %{{.*}} = 0 to 8 {
func.func @parallel_transposition(%u: memref<4x6x8x16xf64>, %v: memref<4x8x6x16xf64>) {
  %pad = ub.poison : f64
  affine.parallel (%a) = (0) to (4) {
    affine.for %c = 0 to 8 {
      affine.for %b = 0 to 6 {
        affine.for %e = 0 to 16 step 8 {
          %x = vector.transfer_read %u[%a, %b, %c, %e], %pad {in_bounds = [true]} : memref<4x6x8x16xf64>, vector<8xf64>
          vector.transfer_write %x, %v[%a, %c, %b, %e] {in_bounds = [true]} : vector<8xf64>, memref<4x8x6x16xf64>
        }
      }
    }
  }
  return
}

// -----

// Elements without a bit width (index) are left alone, not measured.
// CHECK-LABEL: func.func @index_elements
// CHECK-NOT: scf.if
// CHECK: vector.transfer_write
func.func @index_elements(%x: memref<64x16xindex>, %z: memref<64x16xindex>) {
  %pad = arith.constant 0 : index
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x16xindex>, vector<8xindex>
      vector.transfer_write %v, %z[%i, %j] {in_bounds = [true]} : vector<8xindex>, memref<64x16xindex>
    }
  }
  return
}

// -----

// A sized program's buffers (bare pointers, viewed with the sizes' extents)
// stream in the outermost loops that only write them, where a check built
// after the view finds the buffer large and every row on a line at run
// time: here the loop over rows, as the loop around it also reads %z.
// Masked writes (the edges of sizes) and writes through a subview stay
// ordinary stores.
// CHECK-LABEL: func.func @sized
// CHECK-SAME: (%[[N:.*]]: index, %[[M:.*]]: index, %[[X:.*]]: memref<f64>, %[[Z:.*]]: memref<f64>)
// CHECK: %[[ZV:.*]] = memref.reinterpret_cast %[[Z]]
// CHECK: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[ZV]]
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[ZV]]
// CHECK: arith.remui %[[PTR]], %c64
// CHECK: arith.remui %[[STRIDES]]#0, %c8
// CHECK: arith.muli %{{.*}}, %[[SIZES]]#1
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %{{.*}}, %c4096
// CHECK: %[[STREAMS:.*]] = arith.andi %{{.*}}, %[[LARGE]]
// CHECK: scf.for
// CHECK-NEXT: vector.transfer_read %[[ZV]]
// CHECK-NEXT: scf.if %[[STREAMS]] {
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     scf.for
// CHECK-NEXT:       vector.transfer_read
// CHECK-NEXT:       vector.store %{{.*}}, %[[ZV]][%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK:          vector.transfer_write %{{.*}}, %[[ZV]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]}
// CHECK:          vector.transfer_write %{{.*}}, %{{.*}}[%c0{{.*}}, %c0{{.*}}] {in_bounds = [true]}
// CHECK:        llvm.fence seq_cst
// CHECK-NEXT: } else {
// CHECK-NOT:  vector.store
// CHECK:      return
// The size is checked at run time, against the default 32 MiB here.
// DEFAULT-LABEL: func.func @sized
// DEFAULT: arith.cmpi uge, %{{.*}}, %c33554432
// DEFAULT: vector.store {{.*}}nontemporal = true
func.func @sized(%n: index, %m: index, %x: memref<f64>, %z: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f64
  %xv = memref.reinterpret_cast %x to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  %zv = memref.reinterpret_cast %z to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  %bulk = affine.apply affine_map<()[s0] -> ((s0 floordiv 8) * 8)>()[%m]
  %rest = arith.subi %m, %bulk : index
  scf.for %t = %c0 to %c1 step %c1 {
    %first = vector.transfer_read %zv[%c0, %c0], %pad {in_bounds = [true]} : memref<?x?xf64>, vector<8xf64>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %bulk step %c8 {
        %v = vector.transfer_read %xv[%i, %j], %pad {in_bounds = [true]} : memref<?x?xf64>, vector<8xf64>
        vector.transfer_write %v, %zv[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
      }
      %mask = vector.create_mask %rest : vector<8xi1>
      %e = vector.transfer_read %xv[%i, %bulk], %pad, %mask {in_bounds = [true]} : memref<?x?xf64>, vector<8xf64>
      vector.transfer_write %e, %zv[%i, %bulk], %mask {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
      %row = memref.subview %zv[%i, 0] [1, 8] [1, 1] : memref<?x?xf64> to memref<1x8xf64, strided<[?, 1], offset: ?>>
      vector.transfer_write %first, %row[%c0, %c0] {in_bounds = [true]} : vector<8xf64>, memref<1x8xf64, strided<[?, 1], offset: ?>>
    }
  }
  return
}

// -----

// Left alone: a sized buffer whose bulk is written by vectors of two lines
// (the register tiles' rows: streaming them as the fixed program's
// arguments would be is for tl-lower-contraction-vectors), one a loop
// reads throughout, and one written at a column that is no multiple of
// the lanes.
// CHECK-LABEL: func.func @sized_left_alone
// CHECK-NOT: scf.if
// CHECK-NOT: vector.store
// CHECK: return
func.func @sized_left_alone(%n: index, %m: index, %a: memref<f64>, %b: memref<f64>, %c: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %pad = ub.poison : f64
  %av = memref.reinterpret_cast %a to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  %bv = memref.reinterpret_cast %b to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  %cv = memref.reinterpret_cast %c to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  %wide = arith.constant dense<1.0> : vector<16xf64>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c16 {
      vector.transfer_write %wide, %av[%i, %j] {in_bounds = [true]} : vector<16xf64>, memref<?x?xf64>
      %v = vector.transfer_read %bv[%i, %j], %pad {in_bounds = [true]} : memref<?x?xf64>, vector<8xf64>
      %w = arith.addf %v, %v : vector<8xf64>
      vector.transfer_write %w, %bv[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
      vector.transfer_write %w, %cv[%i, %c4] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
    }
  }
  return
}

// -----

// A temporary allocated at the top of the function streams like an
// argument (a transposed copy of an operand, written whole before it is
// read); the nest that reads it stays as it is.
// CHECK-LABEL: func.func @temporary
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x16xf64>
// CHECK: memref.extract_aligned_pointer_as_index %[[T]]
// CHECK: scf.if
// CHECK:   vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK:   vector.transfer_write %{{.*}}, %[[T]]
// CHECK: }
// CHECK-NOT: vector.store %{{.*}}, %[[T]]
// CHECK: vector.transfer_read %[[T]]
// CHECK-NOT: vector.store %{{.*}}, %[[T]]
// CHECK: memref.dealloc %[[T]]
func.func @temporary(%x: memref<64x16xf64>, %z: memref<64x16xf64>) {
  %pad = ub.poison : f64
  %t = memref.alloc() {alignment = 64 : i64} : memref<64x16xf64>
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      vector.transfer_write %v, %t[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 16 step 8 {
      %v = vector.transfer_read %t[%i, %j], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      %w = arith.addf %v, %v : vector<8xf64>
      vector.transfer_write %w, %z[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    }
  }
  memref.dealloc %t : memref<64x16xf64>
  return
}

// -----

// A temporary of run-time extents (a transposed copy of a sized operand, in
// the version of a contraction that the sizes chose at run time) streams
// as a sized argument does: the check follows its allocation, in the
// branch. One allocated in a loop is left alone.
// CHECK-LABEL: func.func @sized_temporary
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[T:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf64>
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[T]]
// CHECK: memref.extract_aligned_pointer_as_index %[[T]]
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK: vector.transfer_write %{{.*}}, %[[T]]
// CHECK: memref.dealloc %[[T]]
// CHECK: scf.for
// CHECK: %[[U:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {alignment = 64 : i64} : memref<?x?xf64>
// CHECK-NOT: nontemporal
// CHECK: return
func.func @sized_temporary(%n: index, %m: index, %fold: i1, %x: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = ub.poison : f64
  %xv = memref.reinterpret_cast %x to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<f64> to memref<?x?xf64>
  scf.if %fold {
    %t = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf64>
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c8 {
        %v = vector.transfer_read %xv[%j, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf64>, vector<8xf64>
        vector.transfer_write %v, %t[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
      }
    }
    func.call @use(%t) : (memref<?x?xf64>) -> ()
    memref.dealloc %t : memref<?x?xf64>
  }
  scf.for %k = %c0 to %c1 step %c1 {
    %u = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf64>
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c8 {
        %v = vector.transfer_read %xv[%j, %i], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf64>, vector<8xf64>
        vector.transfer_write %v, %u[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64>
      }
    }
    func.call @use(%u) : (memref<?x?xf64>) -> ()
    memref.dealloc %u : memref<?x?xf64>
  }
  return
}
func.func private @use(memref<?x?xf64>)

// -----

// A transposition's squares along the result's rows through the caches
// (rows of 41 doubles: not whole lines, never streamed; 7.9 KB, beyond the
// L2 cache of 4 KiB described here): each of the square's rows is
// prefetched for writing two lines (16 doubles) ahead, but no further than
// the first element of the loop's last step (32), so that no address is
// past the rows. A loop that ends within the distance (16 columns) and a
// buffer within the L2 cache (the module's other function, with the
// default 1 MiB) are left alone.
// CHECK-LABEL: func.func @square_rows
// CHECK-SAME: (%[[IN:.*]]: memref<41x24xf64>, %[[OUT:.*]]: memref<24x41xf64>)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-DAG: %[[LAST:.*]] = arith.subi %c40, %c8
// CHECK-DAG: %[[AHEAD:.*]] = arith.addi %[[J]], %c16
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[AHEAD]], %[[LAST]]
// CHECK: memref.prefetch %[[OUT]][%[[R]], %[[CLAMPED]]], write, locality<3>, data
// CHECK-NEXT: vector.transfer_write %{{.*}}, %[[OUT]][%[[R]], %[[J]]]
// CHECK: memref.prefetch %[[OUT]][%{{.*}}, %[[CLAMPED]]], write, locality<3>, data
// CHECK-NEXT: vector.transfer_write %{{.*}}, %[[OUT]][%{{.*}}, %[[J]]]
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: return
// CHECK-LABEL: func.func @square_rows_in_cache
// CHECK-NOT: memref.prefetch
// CHECK: return
// Without prefetches (prefetch-write-lines=0), nothing changes.
// NOPREFETCH-LABEL: func.func @square_rows
// NOPREFETCH-NOT: memref.prefetch
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu",
    cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32,
    l1_cache_bytes = 1024, l2_cache_bytes = 4096, cache_line_bytes = 64>} {
  func.func @square_rows(%in: memref<41x24xf64>, %out: memref<24x41xf64>) {
    %pad = ub.poison : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c40 = arith.constant 40 : index
    scf.for %r = %c0 to %c16 step %c2 {
      scf.for %j = %c0 to %c40 step %c8 {
        %a = vector.transfer_read %in[%j, %r], %pad {in_bounds = [true]} : memref<41x24xf64>, vector<8xf64>
        %r1 = arith.addi %r, %c1 : index
        vector.transfer_write %a, %out[%r, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
        vector.transfer_write %a, %out[%r1, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
      }
      scf.for %j = %c0 to %c16 step %c8 {
        %a = vector.transfer_read %in[%j, %r], %pad {in_bounds = [true]} : memref<41x24xf64>, vector<8xf64>
        %r1 = arith.addi %r, %c1 : index
        vector.transfer_write %a, %out[%r, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
        vector.transfer_write %a, %out[%r1, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
      }
    }
    return
  }
}

// -----

module {
  func.func @square_rows_in_cache(%in: memref<41x24xf64>, %out: memref<24x41xf64>) {
    %pad = ub.poison : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c40 = arith.constant 40 : index
    scf.for %r = %c0 to %c16 step %c2 {
      scf.for %j = %c0 to %c40 step %c8 {
        %a = vector.transfer_read %in[%j, %r], %pad {in_bounds = [true]} : memref<41x24xf64>, vector<8xf64>
        %r1 = arith.addi %r, %c1 : index
        vector.transfer_write %a, %out[%r, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
        vector.transfer_write %a, %out[%r1, %j] {in_bounds = [true]} : vector<8xf64>, memref<24x41xf64>
      }
    }
    return
  }
}

// -----

// Left alone: one row per step (a stream, which the prefetchers follow);
// masked writes (the edges); a loop that holds another loop; a write whose
// last index is not the loop's.
// CHECK-LABEL: func.func @rows_left_alone
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @rows_left_alone(%in: memref<512x512xf64>, %out: memref<512x512xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %mask = vector.constant_mask [5] : vector<8xi1>
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c8 {
      %a = vector.transfer_read %in[%r, %j], %pad {in_bounds = [true]} : memref<512x512xf64>, vector<8xf64>
      vector.transfer_write %a, %out[%r, %j] {in_bounds = [true]} : vector<8xf64>, memref<512x512xf64>
    }
    scf.for %j = %c0 to %c64 step %c8 {
      %a = vector.transfer_read %in[%r, %j], %pad {in_bounds = [true]} : memref<512x512xf64>, vector<8xf64>
      %r1 = arith.addi %r, %c1 : index
      vector.transfer_write %a, %out[%r, %j], %mask {in_bounds = [true]} : vector<8xf64>, memref<512x512xf64>
      vector.transfer_write %a, %out[%r1, %j], %mask {in_bounds = [true]} : vector<8xf64>, memref<512x512xf64>
    }
    scf.for %j = %c0 to %c64 step %c8 {
      %a = vector.transfer_read %in[%r, %j], %pad {in_bounds = [true]} : memref<512x512xf64>, vector<8xf64>
      %r1 = arith.addi %r, %c1 : index
      vector.transfer_write %a, %out[%j, %r] {in_bounds = [true]} : vector<8xf64>, memref<512x512xf64>
      vector.transfer_write %a, %out[%j, %r1] {in_bounds = [true]} : vector<8xf64>, memref<512x512xf64>
      scf.for %k = %c0 to %c8 step %c1 {
      }
    }
  }
  return
}

// -----

// A copy whose outer loop threads share (scf.forall, from
// tl-tile-transpositions with threads) streams with sfence: each
// iteration fences its own stores before the threads join.
// SFENCE-LABEL: func.func @forall_rows
// SFENCE: scf.if
// SFENCE:   scf.forall
// SFENCE:     vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
// SFENCE:     llvm.inline_asm has_side_effects "sfence"
// SFENCE-NEXT: {{^ *[}]$}}
// SFENCE-NEXT: llvm.inline_asm has_side_effects "sfence"
// SFENCE: } else {
// CHECK-LABEL: func.func @forall_rows
// CHECK-NOT: nontemporal
// CHECK: return
func.func @forall_rows(%x: memref<64x16xf64>, %z: memref<64x16xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.forall (%i) in (64) {
    scf.for %j = %c0 to %c16 step %c8 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      vector.transfer_write %v, %z[%i, %j] {in_bounds = [true]} : vector<8xf64>, memref<64x16xf64>
    }
  }
  return
}

// -----

// Squares along the result's rows with the threads sharing the result's
// columns: each write's column is the shared loop's index, a multiple of
// the vector (from 0 by 8), so each write is a whole line.
// SFENCE-LABEL: func.func @forall_squares
// SFENCE: scf.forall
// SFENCE:   scf.for
// SFENCE:     vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true}
func.func @forall_squares(%x: memref<64x16xf64>, %z: memref<16x64xf64>) {
  %pad = ub.poison : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.forall (%i) = (0) to (64) step (8) {
    scf.for %r = %c0 to %c16 step %c1 {
      %v = vector.transfer_read %x[%i, %r], %pad {in_bounds = [true]} : memref<64x16xf64>, vector<8xf64>
      vector.transfer_write %v, %z[%r, %i] {in_bounds = [true]} : vector<8xf64>, memref<16x64xf64>
    }
  }
  return
}
