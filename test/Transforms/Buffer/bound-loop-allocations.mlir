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
