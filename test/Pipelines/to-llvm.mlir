// RUN: tl-opt %s --tl-to-llvm | FileCheck %s
// RUN: tl-opt %s --tl-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// One bare pointer per variable, in declaration order: the C signature
// void axpy(double *a, double *x, double *y). Each statement is a private
// function the program's function calls; the workspace variant (axpy_ws)
// passes its workspace on, and axpy calls it with an empty one (no
// temporaries: no allocation).
// CHECK: llvm.func @axpy_ws(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: tl.
// CHECK: llvm.func @axpy(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: tl.
// CHECK-NOT: malloc
// CHECK: llvm.func @axpy_workspace_size() -> i64
// LLVMIR: define internal void @axpy.s0(ptr %0, ptr %1, ptr %2, ptr %3)
// LLVMIR: fmul <8 x double>
// LLVMIR: define void @axpy_ws(ptr %0, ptr %1, ptr %2, ptr %3)
// LLVMIR: call void @axpy.s0(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
// LLVMIR: define void @axpy(ptr %0, ptr %1, ptr %2)
// LLVMIR: call void @axpy_ws(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
tl.program @axpy {
  tl.var input @a : tensor<f64>
  tl.var input @x : tensor<64xf64>
  tl.var input output @y : tensor<64xf64>
  tl.assign @y = {
    %a = tl.use @a : tensor<f64>
    %x = tl.use @x : tensor<64xf64>
    %y = tl.use @y : tensor<64xf64>
    %ax = tl.mul %a, %x : tensor<f64>, tensor<64xf64>
    %s = tl.add %ax, %y : tensor<64xf64>, tensor<64xf64>
    tl.yield %s : tensor<64xf64>
  }
}
