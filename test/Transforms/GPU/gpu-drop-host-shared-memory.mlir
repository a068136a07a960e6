// RUN: tl-opt %s --tl-gpu-drop-host-shared-memory | FileCheck %s

// After outlining, the kernel's module has its own copy of the shared
// buffer: the host's goes, the kernel's and other globals stay.
// CHECK-NOT: memref.global "private" @__tl_shared : memref<4xf64, #gpu.address_space<workgroup>>
// CHECK: memref.global "private" constant @table
// CHECK: gpu.module @k
// CHECK:   memref.global "private" @__tl_shared
module attributes {gpu.container_module} {
  memref.global "private" @__tl_shared : memref<4xf64, #gpu.address_space<workgroup>>
  memref.global "private" constant @table : memref<2xf64> = dense<[1.0, 2.0]>
  gpu.module @k {
    memref.global "private" @__tl_shared : memref<4xf64, #gpu.address_space<workgroup>>
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
