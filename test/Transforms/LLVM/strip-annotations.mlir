// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-strip-annotations))" | FileCheck %s

// CHECK-LABEL: func.func @f(%{{.*}}: memref<2xf64>, %{{.*}}: memref<2xf64> {llvm.noalias})
// CHECK-NOT: tl.
func.func @f(%a: memref<2xf64> {tl.name = "A", tl.input}, %b: memref<2xf64> {tl.name = "B", llvm.noalias}) attributes {tl.note = "x"} {
  return
}
