// RUN: tl-opt %s --tl-to-llvm="threads=2" | FileCheck %s
// RUN: tl-opt %s --tl-to-llvm="threads=2" | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: tl-opt %s --tl-to-llvm | FileCheck %s --check-prefix=ONE

// With two threads the blocks of 256 columns of the matrix product are an
// OpenMP work-sharing loop on two threads, and the register tiles inside
// are still vector FMAs (rows of 16 columns), each zeroing its own tile
// inside the loop; with one thread there is no OpenMP at all.
// CHECK: omp.parallel num_threads(%{{.*}} : i32)
// CHECK: omp.wsloop
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<16xf64>, vector<16xf64>, vector<16xf64>) -> vector<16xf64>
// LLVMIR: call void (ptr, i32, ptr, ...) @__kmpc_fork_call
// ONE-NOT: omp.
tl.program @matmul {
  tl.var input @A : tensor<64x32xf64>
  tl.var input @B : tensor<32x512xf64>
  tl.var output @C : tensor<64x512xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<64x32xf64>
    %b = tl.use @B : tensor<32x512xf64>
    %p = tl.outer %a, %b : tensor<64x32xf64>, tensor<32x512xf64>
    %c = tl.contract %p [[1, 2]] : tensor<64x32x32x512xf64>
    tl.yield %c : tensor<64x512xf64>
  }
}
