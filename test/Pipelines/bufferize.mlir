// RUN: tl-opt %s --convert-tl-to-linalg --tl-bufferize | FileCheck %s

// After bufferization: the matrix product and B = B + C write straight into
// the caller's buffers; the transposition reads A while it would overwrite
// it, so it goes through a temporary that is copied back and freed. Each
// statement is its own function; the program's function calls them.
// CHECK-LABEL: func.func private @statements.s0(
// CHECK-SAME: %[[A:[^:]*]]: memref<4x4xf64> {tl.name = "A"}
// CHECK-SAME: %[[B:[^:]*]]: memref<4x4xf64> {tl.name = "B"}
// CHECK-SAME: %[[C:[^:]*]]: memref<4x4xf64> {tl.name = "C"}
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%[[C]] : memref<4x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<4x4xf64>, memref<4x4xf64>) outs(%[[C]] : memref<4x4xf64>)
// CHECK-LABEL: func.func private @statements.s1(
// CHECK-SAME: %[[B1:[^:]*]]: memref<4x4xf64> {tl.name = "B"}
// CHECK-SAME: %[[C1:[^:]*]]: memref<4x4xf64> {tl.name = "C"}
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[B1]], %[[C1]] : memref<4x4xf64>, memref<4x4xf64>) outs(%[[B1]] : memref<4x4xf64>)
// CHECK-LABEL: func.func private @statements.s2(
// CHECK-SAME: %[[A2:[^:]*]]: memref<4x4xf64> {tl.name = "A"})
// CHECK: %[[TMP:.*]] = memref.alloc() {{.*}} : memref<4x4xf64>
// CHECK: linalg.generic {{.*}} ins(%[[A2]] : memref<4x4xf64>) outs(%[[TMP]] : memref<4x4xf64>)
// CHECK: memref.copy %[[TMP]], %[[A2]]
// CHECK: memref.dealloc %[[TMP]]
// CHECK-NOT: memref.alloc
// CHECK-LABEL: func.func @statements(
// CHECK-SAME: %[[MA:[^:]*]]: memref<4x4xf64> {tl.name = "A"}
// CHECK-SAME: %[[MB:[^:]*]]: memref<4x4xf64> {tl.name = "B"}
// CHECK-SAME: %[[MC:[^:]*]]: memref<4x4xf64> {tl.name = "C"}
// CHECK-NEXT: call @statements.s0(%[[MA]], %[[MB]], %[[MC]])
// CHECK-NEXT: call @statements.s1(%[[MB]], %[[MC]])
// CHECK-NEXT: call @statements.s2(%[[MA]])
// CHECK-NEXT: return
tl.program @statements {
  tl.var @A : tensor<4x4xf64>
  tl.var @B : tensor<4x4xf64>
  tl.var @C : tensor<4x4xf64>
  tl.assign @C = {
    %a = tl.use @A : tensor<4x4xf64>
    %b = tl.use @B : tensor<4x4xf64>
    %p = tl.outer %a, %b : tensor<4x4xf64>, tensor<4x4xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4x4x4x4xf64>
    tl.yield %c : tensor<4x4xf64>
  }
  tl.assign @B = {
    %b = tl.use @B : tensor<4x4xf64>
    %c = tl.use @C : tensor<4x4xf64>
    %s = tl.add %b, %c : tensor<4x4xf64>, tensor<4x4xf64>
    tl.yield %s : tensor<4x4xf64>
  }
  tl.assign @A = {
    %a = tl.use @A : tensor<4x4xf64>
    %t = tl.transpose %a [[0, 1]] : tensor<4x4xf64>
    tl.yield %t : tensor<4x4xf64>
  }
}
