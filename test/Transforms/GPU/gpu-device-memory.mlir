// RUN: tl-opt %s --split-input-file --tl-gpu-device-memory | FileCheck %s

// The interface function becomes two. p_device runs the statements on the
// caller's device buffers, queued on the caller's stream (its last
// argument), with its temporaries in device memory. p keeps the host
// interface: on a stream of its own, each buffer argument is copied to
// device memory, p_device runs on the copies, and those something stores
// into (here through the statement function) are copied back, the others
// only freed. The statement function is renamed for PTX.
// CHECK-DAG: func.func private @tensorlang_cuda_enter(!llvm.ptr)
// CHECK-DAG: func.func private @tensorlang_cuda_leave()
// CHECK-DAG: func.func private @tensorlang_cuda_stream_begin() -> !llvm.ptr
// CHECK-DAG: func.func private @tensorlang_cuda_stream_end(!llvm.ptr)
// CHECK-LABEL: func.func private @p_s0(
// CHECK: memref.store
// CHECK-LABEL: func.func @p(
// CHECK-SAME: %[[A:.*]]: memref<4xf64> {tl.input, tl.name = "a"}, %[[B:.*]]: memref<4xf64> {tl.name = "b", tl.output})
// CHECK-NEXT: %[[STREAM:.*]] = call @tensorlang_cuda_stream_begin()
// CHECK-NEXT: %[[DA:.*]] = gpu.alloc () : memref<4xf64>
// CHECK-NEXT: gpu.memcpy %[[DA]], %[[A]]
// CHECK-NEXT: %[[DB:.*]] = gpu.alloc () : memref<4xf64>
// CHECK-NEXT: gpu.memcpy %[[DB]], %[[B]]
// CHECK-NEXT: call @p_device(%[[DA]], %[[DB]], %[[STREAM]])
// CHECK-NOT: gpu.memcpy %[[A]]
// CHECK-NEXT: gpu.dealloc %[[DA]]
// CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
// CHECK-NEXT: gpu.dealloc %[[DB]]
// CHECK-NEXT: call @tensorlang_cuda_stream_end(%[[STREAM]])
// CHECK-NEXT: return
// CHECK-LABEL: func.func @p_device(
// CHECK-SAME: %[[DEVICE_A:[^:]*]]: memref<4xf64> {tl.input, tl.name = "a"}, %[[DEVICE_B:[^:]*]]: memref<4xf64> {tl.name = "b", tl.output}, %[[DEVICE_STREAM:[^:]*]]: !llvm.ptr)
// CHECK-NEXT: call @tensorlang_cuda_enter(%[[DEVICE_STREAM]])
// CHECK-NEXT: %[[T:.*]] = gpu.alloc () : memref<4xf64>
// CHECK-NEXT: call @p_s0(%[[DEVICE_A]], %[[T]])
// CHECK-NEXT: call @p_s0(%[[T]], %[[DEVICE_B]])
// CHECK-NEXT: gpu.dealloc %[[T]]
// CHECK-NEXT: call @tensorlang_cuda_leave()
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
// CHECK: call @q_device(%[[N]], %[[BASE]], %{{.*}})
// CHECK: gpu.memcpy %[[HOST]], %[[DEV]]
// CHECK: gpu.dealloc %[[DEV]]
// CHECK-LABEL: func.func @q_device(
// CHECK-SAME: %[[DEVICE_N:[^:]*]]: index {tl.size = "N"}, %[[DEVICE_U:[^:]*]]: memref<f64> {tl.name = "u"}, %{{.*}}: !llvm.ptr)
// CHECK: call @q_s0(%[[DEVICE_N]], %[[DEVICE_U]])
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

// -----

// A block's own buffer (tl-gpu-map-loops) becomes a global of the
// workgroup address space, which kernel outlining copies into the kernel's
// module; it is not a device allocation.
// CHECK: memref.global "private" @__tl_shared : memref<1x4xf64, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @r_s0(
// CHECK-NOT: gpu.alloc
// CHECK: memref.get_global @__tl_shared : memref<1x4xf64, #gpu.address_space<workgroup>>
module {
  func.func private @r.s0(%u: memref<4xf64>) {
    %c0 = arith.constant 0 : index
    %shared = memref.alloc() : memref<1x4xf64, #gpu.address_space<workgroup>>
    %v = memref.load %shared[%c0, %c0] : memref<1x4xf64, #gpu.address_space<workgroup>>
    memref.store %v, %u[%c0] : memref<4xf64>
    return
  }
}
