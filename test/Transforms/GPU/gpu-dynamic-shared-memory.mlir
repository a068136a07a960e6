// RUN: tl-opt %s --tl-gpu-dynamic-shared-memory | FileCheck %s

// A launch whose shared-memory globals total more than 48 KiB (32768 +
// 16392 + 128 bytes) takes them from dynamic shared memory, each a view at
// its 16-byte aligned offset, and asks for the total; one within 48 KiB
// keeps its global.
// CHECK-LABEL: func.func @large
// CHECK: %[[SIZE:.*]] = arith.constant 49296 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[SIZE]] {
// CHECK:   %[[DYNAMIC:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:   %[[C0:.*]] = arith.constant 0 : index
// CHECK:   memref.view %[[DYNAMIC]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf64, #gpu.address_space<workgroup>>
// CHECK:   %[[C32768:.*]] = arith.constant 32768 : index
// CHECK:   memref.view %[[DYNAMIC]][%[[C32768]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2049xf64, #gpu.address_space<workgroup>>
// CHECK:   %[[C49168:.*]] = arith.constant 49168 : index
// CHECK:   memref.view %[[DYNAMIC]][%[[C49168]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf64, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.get_global
// CHECK: return
// CHECK-LABEL: func.func @small
// CHECK: gpu.launch
// CHECK-NOT: dynamic_shared_memory
// CHECK: memref.get_global @__tl_shared_1
module attributes {gpu.container_module} {
  memref.global "private" @__tl_shared : memref<4096xf64, #gpu.address_space<workgroup>> {alignment = 16 : i64}
  memref.global "private" @__tl_shared_0 : memref<2049xf64, #gpu.address_space<workgroup>> {alignment = 16 : i64}
  memref.global "private" @__tl_shared_1 : memref<16xf64, #gpu.address_space<workgroup>> {alignment = 16 : i64}
  func.func @large(%out: memref<4096xf64>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.get_global @__tl_shared : memref<4096xf64, #gpu.address_space<workgroup>>
      %b = memref.get_global @__tl_shared_0 : memref<2049xf64, #gpu.address_space<workgroup>>
      %c = memref.get_global @__tl_shared_1 : memref<16xf64, #gpu.address_space<workgroup>>
      %x = memref.load %a[%tx] : memref<4096xf64, #gpu.address_space<workgroup>>
      %y = memref.load %b[%tx] : memref<2049xf64, #gpu.address_space<workgroup>>
      %z = memref.load %c[%tx] : memref<16xf64, #gpu.address_space<workgroup>>
      %s = arith.addf %x, %y : f64
      %t = arith.addf %s, %z : f64
      memref.store %t, %out[%tx] : memref<4096xf64>
      gpu.terminator
    }
    return
  }
  func.func @small(%out: memref<4096xf64>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %c = memref.get_global @__tl_shared_1 : memref<16xf64, #gpu.address_space<workgroup>>
      %z = memref.load %c[%tx] : memref<16xf64, #gpu.address_space<workgroup>>
      memref.store %z, %out[%tx] : memref<4096xf64>
      gpu.terminator
    }
    return
  }
}
