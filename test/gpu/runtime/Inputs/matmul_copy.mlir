// The product of gpu/matmul.mlir on host memory: copied into device memory
// (gpu.alloc, gpu.memcpy), computed there, copied back.
func.func @matmul_copy(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  %t0 = gpu.wait async
  %dA, %t1 = gpu.alloc async [%t0] () : memref<64x64xf64>
  %dB, %t2 = gpu.alloc async [%t1] () : memref<64x64xf64>
  %dC, %t3 = gpu.alloc async [%t2] () : memref<64x64xf64>
  %t4 = gpu.memcpy async [%t3] %dA, %A : memref<64x64xf64>, memref<64x64xf64>
  %t5 = gpu.memcpy async [%t4] %dB, %B : memref<64x64xf64>, memref<64x64xf64>
  %t6 = gpu.memcpy async [%t5] %dC, %C : memref<64x64xf64>, memref<64x64xf64>
  gpu.wait [%t6]
  linalg.matmul ins(%dA, %dB : memref<64x64xf64>, memref<64x64xf64>) outs(%dC : memref<64x64xf64>)
  %u0 = gpu.wait async
  %u1 = gpu.memcpy async [%u0] %C, %dC : memref<64x64xf64>, memref<64x64xf64>
  %u2 = gpu.dealloc async [%u1] %dA : memref<64x64xf64>
  %u3 = gpu.dealloc async [%u2] %dB : memref<64x64xf64>
  %u4 = gpu.dealloc async [%u3] %dC : memref<64x64xf64>
  gpu.wait [%u4]
  return
}
