// Sizes in the IR: tl.size declarations, and types whose dynamic
// dimensions the encoding names. Round trip, and the verifier accepts the
// typing rules on sized types.
// RUN: tl-opt %s | tl-opt | FileCheck %s
// RUN: tl-opt %s | tl-translate --export-tl | FileCheck %s --check-prefix=SOURCE

// CHECK-LABEL: tl.program @global_sum
// CHECK-NEXT: tl.size @E
// CHECK-NEXT: tl.var input @u : tensor<?x3xf64, [@E]>
// CHECK: tl.contract %{{.*}} {{\[\[}}0, 2], [1, 3]] : tensor<?x3x?x3xf64, [@E, @E]>
// SOURCE: size E
// SOURCE-NEXT: var input u : [E 3]
// SOURCE-NEXT: var output s : []
// SOURCE: s = u # u . {{\[\[}}1 3] [2 4]]
tl.program @global_sum {
  tl.size @E
  tl.var input @u : tensor<?x3xf64, [@E]>
  tl.var output @s : tensor<f64>
  tl.assign @s = {
    %u = tl.use @u : tensor<?x3xf64, [@E]>
    %p = tl.outer %u, %u : tensor<?x3xf64, [@E]>, tensor<?x3xf64, [@E]>
    %c = tl.contract %p [[0, 2], [1, 3]] : tensor<?x3x?x3xf64, [@E, @E]>
    tl.yield %c : tensor<f64>
  }
}
