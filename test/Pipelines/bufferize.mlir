// RUN: tl-opt %s --convert-tl-to-linalg --tl-bufferize | FileCheck %s

// After bufferization: the matrix product and A = A + B write straight into
// the caller's buffers; the transposition reads A while it would overwrite
// it, so it goes through a temporary that is copied back and freed.
// CHECK-LABEL: func.func @statements(
// CHECK-SAME: %[[A:[^:]*]]: memref<4x4xf64>
// CHECK-SAME: %[[B:[^:]*]]: memref<4x4xf64>
// CHECK-SAME: %[[C:[^:]*]]: memref<4x4xf64>
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%[[C]] : memref<4x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<4x4xf64>, memref<4x4xf64>) outs(%[[C]] : memref<4x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[B]], %[[C]] : memref<4x4xf64>, memref<4x4xf64>) outs(%[[B]] : memref<4x4xf64>)
// CHECK: %[[TMP:.*]] = memref.alloc() {{.*}} : memref<4x4xf64>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4x4xf64>) outs(%[[TMP]] : memref<4x4xf64>)
// CHECK: memref.copy %[[TMP]], %[[A]]
// CHECK: memref.dealloc %[[TMP]]
// CHECK-NOT: memref.alloc
// CHECK: return
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
