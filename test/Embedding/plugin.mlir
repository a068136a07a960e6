// Upstream mlir-opt (Debian's, from mlir-22-tools) loads TensorLang as a
// dialect and pass plugin.
// UNSUPPORTED: sanitized
// RUN: mlir-opt --load-dialect-plugin=%tl_plugin --load-pass-plugin=%tl_plugin %s | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt --load-dialect-plugin=%tl_plugin --load-pass-plugin=%tl_plugin %s --pass-pipeline="builtin.module(tl.program(tl-pad{multiple=4}),convert-tl-to-linalg)" | FileCheck %s --check-prefix=LINALG
// RUN: mlir-opt --load-dialect-plugin=%tl_plugin --load-pass-plugin=%tl_plugin %s --pass-pipeline="builtin.module(tl-to-llvm)" | FileCheck %s --check-prefix=LLVM
// The verifiers, with every expected diagnostic, work the same in mlir-opt.
// RUN: mlir-opt --load-dialect-plugin=%tl_plugin %S/../Dialect/TL/invalid.mlir --split-input-file --verify-diagnostics -allow-unregistered-dialect > /dev/null

// PARSE: tl.program @scale
// PARSE: tl.mul %{{.*}}, %{{.*}} : tensor<f64>, tensor<3xf64>
// LINALG: func.func private @scale.s0(%{{.*}}: memref<4xf64> {tl.name = "x"}, %{{.*}}: memref<f64> {tl.name = "s"})
// LINALG: linalg.generic
// LINALG: func.func @scale(%{{.*}}: memref<4xf64> {tl.name = "x"}, %{{.*}}: memref<f64> {tl.name = "s"})
// LINALG: call @scale.s0
// LLVM: llvm.func @scale(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
tl.program @scale {
  tl.var @x : tensor<3xf64>
  tl.var @s : tensor<f64>
  tl.assign @x = {
    %x = tl.use @x : tensor<3xf64>
    %s = tl.use @s : tensor<f64>
    %y = tl.mul %s, %x : tensor<f64>, tensor<3xf64>
    tl.yield %y : tensor<3xf64>
  }
}
