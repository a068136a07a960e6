// RUN: tl-opt %s --split-input-file --tl-gpu-device-memory | FileCheck %s

// Each buffer argument of the interface function is copied to device
// memory on entry and the function works on the copy; those something
// stores into (here through the statement function) are copied back before
// the return, the others only freed. Temporaries are device allocations,
// and the statement function is renamed for PTX.
// CHECK-LABEL: func.func private @p_s0(
// CHECK: memref.store
// CHECK-LABEL: func.func @p(
// CHECK-SAME: %[[A:.*]]: memref<4xf64> {tl.input, tl.name = "a"}, %[[B:.*]]: memref<4xf64> {tl.name = "b", tl.output})
// CHECK: %[[DA:.*]] = gpu.alloc () : memref<4xf64>
// CHECK: gpu.memcpy %[[DA]], %[[A]]
// CHECK: %[[DB:.*]] = gpu.alloc () : memref<4xf64>
// CHECK: gpu.memcpy %[[DB]], %[[B]]
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf64>
// CHECK: call @p_s0(%[[DA]], %[[T]])
// CHECK: call @p_s0(%[[T]], %[[DB]])
// CHECK: gpu.dealloc %[[T]]
// CHECK-NOT: gpu.memcpy %[[A]]
// CHECK: gpu.dealloc %[[DA]]
// CHECK: gpu.memcpy %[[B]], %[[DB]]
// CHECK: gpu.dealloc %[[DB]]
// CHECK-NEXT: return
module {
  func.func private @p.s0(%x: memref<4xf64>, %y: memref<4xf64>) {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xf64>
    memref.store %v, %y[%c0] : memref<4xf64>
    return
  }
  func.func @p(%a: memref<4xf64> {tl.input, tl.name = "a"}, %b: memref<4xf64> {tl.name = "b", tl.output}) {
    %t = memref.alloc() : memref<4xf64>
    call @p.s0(%a, %t) : (memref<4xf64>, memref<4xf64>) -> ()
    call @p.s0(%t, %b) : (memref<4xf64>, memref<4xf64>) -> ()
    memref.dealloc %t : memref<4xf64>
    return
  }
}

// -----

// A variable with sizes comes as its base pointer (a rank-0 memref): its
// device copy has the element count of the view the statement function
// makes of it, from the caller's size.
// CHECK-LABEL: func.func @q(
// CHECK-SAME: %[[N:[^:]*]]: index {tl.size = "N"}, %[[U:[^:]*]]: memref<f64>
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[ROWS]], %c3 : index
// CHECK: %[[HOST:.*]] = memref.reinterpret_cast %[[U]] to offset: [0], sizes: [%[[COUNT]]], strides: [1] : memref<f64> to memref<?xf64>
// CHECK: %[[DEV:.*]] = gpu.alloc (%[[COUNT]]) : memref<?xf64>
// CHECK: %[[BASE:.*]] = memref.reinterpret_cast %[[DEV]] to offset: [0], sizes: [], strides: [] : memref<?xf64> to memref<f64>
// CHECK: gpu.memcpy %[[DEV]], %[[HOST]]
// CHECK: call @q_s0(%[[N]], %[[BASE]])
// CHECK: gpu.memcpy %[[HOST]], %[[DEV]]
// CHECK: gpu.dealloc %[[DEV]]
module {
  func.func private @q.s0(%n: index, %base: memref<f64>) {
    %view = memref.reinterpret_cast %base to offset: [0], sizes: [%n, 3], strides: [3, 1] : memref<f64> to memref<?x3xf64>
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f64
    memref.store %zero, %view[%c0, %c0] : memref<?x3xf64>
    return
  }
  func.func @q(%n: index {tl.size = "N"}, %u: memref<f64> {tl.name = "u"}) {
    call @q.s0(%n, %u) : (index, memref<f64>) -> ()
    return
  }
}
