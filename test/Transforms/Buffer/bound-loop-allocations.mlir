// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-bound-loop-allocations))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-bound-loop-allocations{max-bytes=1024}))" | FileCheck %s --check-prefix=SMALL

// A block of a tile in a loop over a size: at most 16 x 64 elements, a
// flat buffer of the bounds viewed at the extents in the allocation's own
// type. An allocation outside loops, and one whose extent has no
// constant bound, stay.

#min16 = affine_map<(d0)[s0] -> (16, s0 - d0)>

// CHECK-LABEL: func.func @block_in_loop
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[ROWS:.*]] = affine.min
// CHECK: %[[BUFFER:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1024xf64>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BUFFER]] to offset: [0], sizes: [%[[ROWS]], 64], strides: [64, 1] : memref<1024xf64> to memref<?x64xf64>
// CHECK: linalg.fill {{.*}} outs(%[[VIEW]] : memref<?x64xf64>)
// CHECK: memref.dealloc %[[BUFFER]] : memref<1024xf64>
// CHECK-NOT: memref.alloc(
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// SMALL-LABEL: func.func @block_in_loop
// SMALL: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x64xf64>
func.func @block_in_loop(%n: index, %m: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %outside = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf64>
  scf.for %i = %c0 to %n step %c16 {
    %rows = affine.min #min16(%i)[%n]
    %block = memref.alloc(%rows) {alignment = 64 : i64} : memref<?x64xf64>
    linalg.fill ins(%x : f64) outs(%block : memref<?x64xf64>)
    memref.dealloc %block : memref<?x64xf64>
    %unbounded = memref.alloc(%m) : memref<?xf64>
    linalg.fill ins(%x : f64) outs(%unbounded : memref<?xf64>)
    memref.dealloc %unbounded : memref<?xf64>
  }
  memref.dealloc %outside : memref<?xf64>
  return
}

// -----

// A packed block whose extents are a tile of a size and two sizes the
// loops do not define (a sized contraction's copy of its operand per
// column block): a flat buffer of 16 times those sizes, whose length is
// computed before the loops, so that the buffer can leave them.

// CHECK-LABEL: func.func @block_of_sizes_in_loop
// CHECK-SAME: (%[[N:.*]]: index, %[[P:.*]]: index, %[[Q:.*]]: index
// CHECK: %[[PART:.*]] = arith.muli %c16{{.*}}, %[[P]] : index
// CHECK: %[[LENGTH:.*]] = arith.muli %[[PART]], %[[Q]] : index
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[COLUMNS:.*]] = affine.min
// CHECK: %[[BUFFER:.*]] = memref.alloc(%[[LENGTH]]) {alignment = 64 : i64} : memref<?xf64>
// CHECK: memref.reinterpret_cast %[[BUFFER]] to offset: [0], sizes: [%[[P]], %[[Q]], %[[COLUMNS]]]
// CHECK-NOT: memref.alloc(
// SMALL-LABEL: func.func @block_of_sizes_in_loop
// SMALL: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
#min16 = affine_map<(d0)[s0] -> (16, s0 - d0)>
func.func @block_of_sizes_in_loop(%n: index, %p: index, %q: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c16 {
    %columns = affine.min #min16(%i)[%n]
    %block = memref.alloc(%p, %q, %columns) {alignment = 64 : i64} : memref<?x?x?xf64>
    linalg.fill ins(%x : f64) outs(%block : memref<?x?x?xf64>)
  }
  return
}

// -----

// A size the loop defines (its induction variable) has no bound outside
// it: the allocation stays.

// CHECK-LABEL: func.func @size_of_the_loop
// CHECK: scf.for %[[I:.*]] =
// CHECK: memref.alloc(%[[I]], %{{.*}}) : memref<?x?xf64>
#min8 = affine_map<(d0)[s0] -> (8, s0 - d0)>
func.func @size_of_the_loop(%n: index, %x: f64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c8 {
    %rows = affine.min #min8(%i)[%n]
    %block = memref.alloc(%i, %rows) : memref<?x?xf64>
    linalg.fill ins(%x : f64) outs(%block : memref<?x?xf64>)
  }
  return
}

// -----

// A static buffer in a branch inside a loop (the padded edge of a sized
// register tile, which the tile before overlaps where the extent spans a
// tile) moves before the loop: buffer-loop-hoisting stops at the branch.
// One that a branch yields, or that is freed inside, stays.

// CHECK-LABEL: func.func @static_buffer_in_branch
// CHECK: %[[EDGE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8xf64>
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f64) outs(%[[EDGE]] : memref<8x8xf64>)
// CHECK: scf.if
// CHECK-NEXT: %[[YIELDED:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT: scf.yield %[[YIELDED]]
// CHECK: scf.if
// CHECK-NEXT: %[[FREED:.*]] = memref.alloc() : memref<2xf64>
// CHECK-NEXT: memref.dealloc %[[FREED]]
func.func @static_buffer_in_branch(%n: index, %c: i1, %x: f64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c8 {
    scf.if %c {
    } else {
      %edge = memref.alloc() {alignment = 64 : i64} : memref<8x8xf64>
      linalg.fill ins(%x : f64) outs(%edge : memref<8x8xf64>)
    }
    %r = scf.if %c -> memref<4xf64> {
      %yielded = memref.alloc() : memref<4xf64>
      scf.yield %yielded : memref<4xf64>
    } else {
      %other = memref.alloc() : memref<4xf64>
      scf.yield %other : memref<4xf64>
    }
    scf.if %c {
      %freed = memref.alloc() : memref<2xf64>
      memref.dealloc %freed : memref<2xf64>
    }
  }
  return
}
