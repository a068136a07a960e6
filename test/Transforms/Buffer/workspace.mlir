// RUN: tl-opt %s --split-input-file --tl-workspace | FileCheck %s
// RUN: tl-opt %s --split-input-file --tl-workspace --tl-workspace | FileCheck %s

// The program function's own temporary (an intermediate, 40 bytes, so 64
// with alignment) comes first in the workspace; the statement functions'
// temporaries share the bytes after it: the larger statement's 128 bytes
// decide, 192 in all.
// Temporaries of a run-time extent that is not a size of the program
// (workspace-sized.mlir has those), allocated in a loop, or freed other than by
// a top-level dealloc of the allocation stay allocations.

// CHECK-LABEL: func.func private @p.s0(
// CHECK-SAME: %[[A:.*]]: memref<4x4xf64>, %[[E:.*]]: index, %[[WS:.*]]: memref<192xi8>)
// CHECK: %[[OFFSET:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[T:.*]] = memref.view %[[WS]][%[[OFFSET]]][] : memref<192xi8> to memref<4x4xf64>
// CHECK: memref.copy %[[A]], %[[T]]
// CHECK: memref.alloc(%[[E]]) : memref<?xf64>
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() : memref<2xf64>
// CHECK-NOT: memref.dealloc %[[T]]
// CHECK: return
func.func private @p.s0(%a: memref<4x4xf64>, %e: index) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4x4xf64>
  memref.copy %a, %t : memref<4x4xf64> to memref<4x4xf64>
  %d = memref.alloc(%e) : memref<?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %l = memref.alloc() : memref<2xf64>
    memref.dealloc %l : memref<2xf64>
  }
  memref.dealloc %d : memref<?xf64>
  memref.dealloc %t : memref<4x4xf64>
  return
}

// A temporary freed only on one path stays an allocation.
// CHECK-LABEL: func.func private @p.s1(
// CHECK-SAME: %{{.*}}: memref<4x4xf64>, %{{.*}}: i1, %[[WS:.*]]: memref<192xi8>)
// CHECK: %[[U:.*]] = memref.alloc() : memref<3xf64>
// CHECK: memref.dealloc %[[U]]
func.func private @p.s1(%a: memref<4x4xf64>, %c: i1) {
  %u = memref.alloc() : memref<3xf64>
  scf.if %c {
    memref.dealloc %u : memref<3xf64>
  }
  return
}

// CHECK-LABEL: func.func @p_ws(
// CHECK-SAME: %[[A:.*]]: memref<4x4xf64> {tl.name = "A"}, %[[E:.*]]: index, %[[C:.*]]: i1, %[[WS:.*]]: memref<192xi8>) attributes {tl.workspace_variant} {
// CHECK: %[[OFFSET:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[I:.*]] = memref.view %[[WS]][%[[OFFSET]]][] : memref<192xi8> to memref<5xf64>
// CHECK: call @p.s0(%[[A]], %[[E]], %[[WS]])
// CHECK-NEXT: call @p.s1(%[[A]], %[[C]], %[[WS]])
// CHECK-NOT: memref.dealloc
// CHECK: return
// The plain function allocates a workspace around a call.
// CHECK-LABEL: func.func @p(
// CHECK-SAME: %[[A:.*]]: memref<4x4xf64> {tl.name = "A"}, %[[E:.*]]: index, %[[C:.*]]: i1) {
// CHECK-NEXT: %[[BLOCK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<192xi8>
// CHECK-NEXT: call @p_ws(%[[A]], %[[E]], %[[C]], %[[BLOCK]])
// CHECK-NEXT: memref.dealloc %[[BLOCK]] : memref<192xi8>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @p_workspace_size() -> i64 {
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 192 : i64
// CHECK-NEXT: return %[[SIZE]]
func.func @p(%a: memref<4x4xf64> {tl.name = "A"}, %e: index, %c: i1) {
  %i = memref.alloc() {alignment = 64 : i64} : memref<5xf64>
  call @p.s0(%a, %e) : (memref<4x4xf64>, index) -> ()
  call @p.s1(%a, %c) : (memref<4x4xf64>, i1) -> ()
  memref.dealloc %i : memref<5xf64>
  return
}

// A declaration (a runtime function) is left alone.
// CHECK-LABEL: func.func private @runtime(i32)
func.func private @runtime(i32)

// -----

// No temporaries: an empty workspace, on the stack. A helper that another
// function calls too takes no workspace; an i1 temporary (a byte per
// element) stays an allocation. A second run changes nothing.
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME: %{{.*}}: memref<4xf64>) {
// CHECK-LABEL: func.func private @q.s0(
// CHECK-SAME: %{{.*}}: memref<4xf64>, %{{.*}}: memref<0xi8>)
// CHECK: memref.alloc() : memref<4xi1>
// CHECK-LABEL: func.func @q_ws(
// CHECK-SAME: %{{.*}}: memref<4xf64>, %{{.*}}: memref<0xi8>) attributes {tl.workspace_variant}
// CHECK-LABEL: func.func @q(
// CHECK-NEXT: %[[EMPTY:.*]] = memref.alloca() : memref<0xi8>
// CHECK-NEXT: call @q_ws(%{{.*}}, %[[EMPTY]])
// CHECK-NEXT: return
// CHECK-LABEL: func.func @q_workspace_size() -> i64 {
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-LABEL: func.func @other(
// CHECK-NOT: q_ws_ws
func.func private @helper(%a: memref<4xf64>) {
  return
}
func.func private @q.s0(%a: memref<4xf64>) {
  %m = memref.alloc() : memref<4xi1>
  memref.dealloc %m : memref<4xi1>
  return
}
func.func @q(%a: memref<4xf64>) {
  call @q.s0(%a) : (memref<4xf64>) -> ()
  call @helper(%a) : (memref<4xf64>) -> ()
  return
}
func.func @other(%a: memref<4xf64>) {
  call @helper(%a) : (memref<4xf64>) -> ()
  return
}
