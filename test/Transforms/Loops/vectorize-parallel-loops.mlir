// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-vectorize-parallel-loops{vector-lanes=4}))" | FileCheck %s

// A parallel innermost loop is vectorized. 10 is not a multiple of 4: the
// last vector reaches past the end, so the transfers stay unmarked (masked).
// CHECK-LABEL: func.func @parallel
// CHECK: affine.for %{{.*}} = 0 to 10 step 4
// CHECK: vector.transfer_read
// CHECK-NOT: in_bounds
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK: vector.transfer_write
// CHECK-NOT: in_bounds
func.func @parallel(%a: memref<10xf64>, %b: memref<10xf64>) {
  affine.for %i = 0 to 10 {
    %x = affine.load %a[%i] : memref<10xf64>
    %y = affine.load %b[%i] : memref<10xf64>
    %s = arith.addf %x, %y : f64
    affine.store %s, %b[%i] : memref<10xf64>
  }
  return
}

// -----

// A reduction that accumulates through memory is left alone (upstream's
// --affine-super-vectorize turns it into an invalid broadcast store).
// CHECK-LABEL: func.func @reduction
// CHECK: affine.for %{{.*}} = 0 to 10 {
// CHECK-NOT: vector
func.func @reduction(%a: memref<10xf64>, %s: memref<f64>) {
  affine.for %i = 0 to 10 {
    %x = affine.load %a[%i] : memref<10xf64>
    %acc = affine.load %s[] : memref<f64>
    %t = arith.addf %acc, %x : f64
    affine.store %t, %s[] : memref<f64>
  }
  return
}

// -----

// A loop of one iteration is not vectorized either.
// CHECK-LABEL: func.func @single_iteration
// CHECK-NOT: vector
func.func @single_iteration(%a: memref<1xf64>, %s: memref<f64>) {
  affine.for %i = 0 to 1 {
    %x = affine.load %a[%i] : memref<1xf64>
    affine.store %x, %s[] : memref<f64>
  }
  return
}

// -----

// Every vector of a loop over a multiple of the width stays within the
// dimension: the transfers are marked in bounds (no mask computed per
// iteration), also on a dimension longer than the loop.
// CHECK-LABEL: func.func @whole_vectors
// CHECK: affine.for %{{.*}} = 0 to 12 step 4
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : memref<2x12xf64>, vector<4xf64>
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : memref<2x16xf64>, vector<4xf64>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<4xf64>, memref<2x16xf64>
func.func @whole_vectors(%a: memref<2x12xf64>, %b: memref<2x16xf64>) {
  affine.for %j = 0 to 2 {
    affine.for %i = 0 to 12 {
      %x = affine.load %a[%j, %i] : memref<2x12xf64>
      %y = affine.load %b[%j, %i] : memref<2x16xf64>
      %s = arith.addf %x, %y : f64
      affine.store %s, %b[%j, %i] : memref<2x16xf64>
    }
  }
  return
}

// -----

// A trip count known only at run time (a size): the loop stays scalar, for
// LLVM's loop vectorizer (a vector body and one remainder) rather than a
// masked transfer every iteration.
// CHECK-LABEL: func.func @sized
// CHECK: affine.for %{{.*}} = 0 to %{{.*}} {
// CHECK-NOT: vector
func.func @sized(%a: memref<?xf64>, %b: memref<?xf64>, %n: index) {
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf64>
    %y = affine.load %b[%i] : memref<?xf64>
    %s = arith.addf %x, %y : f64
    affine.store %s, %b[%i] : memref<?xf64>
  }
  return
}

// -----

// An element-wise loop over a contiguous view of one batch index (the
// affine vectorizer takes identity layouts only) is vectorized by the
// pass itself: whole vectors over the bulk (8 of 10), one shorter vector
// for the rest, every transfer in bounds. A loop that computes over a view
// that is not contiguous stays scalar; a copy from a contiguous view is
// vectorized as the copies below are.
// CHECK-LABEL: func.func @contiguous_view
// CHECK-SAME: (%[[D:.*]]: memref<5x3x10xf64>, %[[T:.*]]: memref<3x10xf64>, %[[V:.*]]: memref<3x10xf64>
// CHECK: %[[DV:.*]] = memref.subview %[[D]]
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 8 step 4 {
// CHECK: %[[X:.*]] = vector.transfer_read %[[DV]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<3x10xf64, strided<[10, 1], offset: ?>>, vector<4xf64>
// CHECK: %[[Y:.*]] = vector.transfer_read %[[T]]{{.*}} {in_bounds = [true]} : memref<3x10xf64>, vector<4xf64>
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : vector<4xf64>
// CHECK: %[[S:.*]] = vector.broadcast %{{.*}} : f64 to vector<4xf64>
// CHECK: %[[Q:.*]] = arith.addf %[[P]], %[[S]] : vector<4xf64>
// CHECK: vector.transfer_write %[[Q]], %[[V]]{{.*}} {in_bounds = [true]} : vector<4xf64>, memref<3x10xf64>
// CHECK: }
// CHECK: vector.transfer_read %[[DV]]{{.*}} : memref<3x10xf64, strided<[10, 1], offset: ?>>, vector<2xf64>
// CHECK: arith.mulf {{.*}} : vector<2xf64>
// CHECK: vector.transfer_write {{.*}} : vector<2xf64>, memref<3x10xf64>
// CHECK-LABEL: func.func @strided_view
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK-NOT: vector
// CHECK-LABEL: func.func @copy_from_view
// CHECK: affine.for %{{.*}} = 0 to 8 step 4 {
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true]} : memref<3x10xf64, strided<[10, 1], offset: ?>>, vector<4xf64>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<4xf64>, memref<3x10xf64>
// CHECK: vector.transfer_read {{.*}} : memref<3x10xf64, strided<[10, 1], offset: ?>>, vector<2xf64>
func.func @contiguous_view(%d: memref<5x3x10xf64>, %t: memref<3x10xf64>, %v: memref<3x10xf64>, %e: index, %s: f64) {
  %dv = memref.subview %d[%e, 0, 0] [1, 3, 10] [1, 1, 1] : memref<5x3x10xf64> to memref<3x10xf64, strided<[10, 1], offset: ?>>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 10 {
      %x = affine.load %dv[%i, %j] : memref<3x10xf64, strided<[10, 1], offset: ?>>
      %y = affine.load %t[%i, %j] : memref<3x10xf64>
      %p = arith.mulf %x, %y : f64
      %q = arith.addf %p, %s : f64
      affine.store %q, %v[%i, %j] : memref<3x10xf64>
    }
  }
  return
}
func.func @strided_view(%d: memref<3x10xf64>, %v: memref<3x8xf64>) {
  %dv = memref.subview %d[0, 0] [3, 8] [1, 1] : memref<3x10xf64> to memref<3x8xf64, strided<[10, 1]>>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 8 {
      %x = affine.load %dv[%i, %j] : memref<3x8xf64, strided<[10, 1]>>
      %p = arith.mulf %x, %x : f64
      affine.store %p, %v[%i, %j] : memref<3x8xf64>
    }
  }
  return
}
func.func @copy_from_view(%d: memref<5x3x10xf64>, %v: memref<3x10xf64>, %e: index) {
  %dv = memref.subview %d[%e, 0, 0] [1, 3, 10] [1, 1, 1] : memref<5x3x10xf64> to memref<3x10xf64, strided<[10, 1], offset: ?>>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 10 {
      %x = affine.load %dv[%i, %j] : memref<3x10xf64, strided<[10, 1], offset: ?>>
      affine.store %x, %v[%i, %j] : memref<3x10xf64>
    }
  }
  return
}

// -----

// A copy of a block of a larger buffer, its rows apart and its strides and
// offset known at run time only (a sized contraction's operand copied into
// packed panels), is vectorized by the pass itself: LLVM, unable to tell
// the two buffers apart, copied it one element at a time. Whole vectors
// over the bulk, a shorter one for the rest (10 = 8 + 2); a copy shorter
// than a vector stays scalar.
// CHECK-LABEL: func.func @copy_of_block
// CHECK-SAME: (%[[B:.*]]: memref<?x?xf64>, %[[P:.*]]: memref<3x4x10xf64>
// CHECK: %[[X:.*]] = memref.expand_shape
// CHECK: affine.for %[[K:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 8 step 4 {
// CHECK: %[[V:.*]] = vector.transfer_read %[[X]]{{.*}} {in_bounds = [true]} : memref<4x3x10xf64, strided<[?, 10, 1], offset: ?>>, vector<4xf64>
// CHECK: vector.transfer_write %[[V]], %[[P]]{{.*}} {in_bounds = [true]} : vector<4xf64>, memref<3x4x10xf64>
// CHECK: }
// CHECK: vector.transfer_read %[[X]]{{.*}} : memref<4x3x10xf64, strided<[?, 10, 1], offset: ?>>, vector<2xf64>
// CHECK: vector.transfer_write {{.*}} : vector<2xf64>, memref<3x4x10xf64>
// CHECK-LABEL: func.func @short_copy_of_block
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK-NOT: vector
func.func @copy_of_block(%b: memref<?x?xf64>, %p: memref<3x4x10xf64>, %r: index, %c: index) {
  %block = memref.subview %b[%r, %c] [4, 30] [1, 1] : memref<?x?xf64> to memref<4x30xf64, strided<[?, 1], offset: ?>>
  %x = memref.expand_shape %block [[0], [1, 2]] output_shape [4, 3, 10] : memref<4x30xf64, strided<[?, 1], offset: ?>> into memref<4x3x10xf64, strided<[?, 10, 1], offset: ?>>
  affine.for %k = 0 to 3 {
    affine.for %j = 0 to 4 {
      affine.for %i = 0 to 10 {
        %v = affine.load %x[%j, %k, %i] : memref<4x3x10xf64, strided<[?, 10, 1], offset: ?>>
        affine.store %v, %p[%k, %j, %i] : memref<3x4x10xf64>
      }
    }
  }
  return
}
func.func @short_copy_of_block(%b: memref<?x?xf64>, %p: memref<4x3xf64>, %r: index, %c: index) {
  %block = memref.subview %b[%r, %c] [4, 3] [1, 1] : memref<?x?xf64> to memref<4x3xf64, strided<[?, 1], offset: ?>>
  affine.for %j = 0 to 4 {
    affine.for %i = 0 to 3 {
      %v = affine.load %block[%j, %i] : memref<4x3xf64, strided<[?, 1], offset: ?>>
      affine.store %v, %p[%j, %i] : memref<4x3xf64>
    }
  }
  return
}
