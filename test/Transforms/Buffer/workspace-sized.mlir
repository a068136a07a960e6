// RUN: tl-opt %s --split-input-file --tl-workspace --canonicalize --cse | FileCheck %s
// RUN: tl-opt %s --split-input-file --tl-workspace --tl-workspace --canonicalize --cse | FileCheck %s

// A program with sizes (`tl.size` arguments): temporaries whose shape is
// computed from the sizes also get a place in the workspace, after the
// static ones, at offsets computed from the sizes; the statements'
// temporaries come first, the program function's after the largest
// statement's. The workspace is a pointer (memref<i8>, as the sized
// variables are) that each function views as bytes, and the size function
// takes the sizes.
//
// @r.s0: the static 2 x f64 at 0 (64 bytes with alignment), E x 3 f64 at
// 64, 2E f32 at 64 + align(24E); 64 + align(24E) + align(8E) in all.
// @r: its 5 x f64 at that total, its F x f64 64 bytes later; a temporary
// whose extent is not a size (%x) stays an allocation.

// CHECK-LABEL: func.func private @r.s0(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %{{.*}}: memref<4xf64>, %[[WS:.*]]: memref<i8>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[T_BYTES:.*]] = arith.muli %[[E]], %c24
// CHECK-NEXT: %[[T_LINES:.*]] = arith.ceildivui %[[T_BYTES]], %[[C64]]
// CHECK-NEXT: %[[T_ALIGNED:.*]] = arith.muli %[[T_LINES]], %[[C64]]
// CHECK-NEXT: %[[U_BYTES:.*]] = arith.muli %[[E]], %c8
// CHECK-NEXT: %[[U_LINES:.*]] = arith.ceildivui %[[U_BYTES]], %[[C64]]
// CHECK-NEXT: %[[U_ALIGNED:.*]] = arith.muli %[[U_LINES]], %[[C64]]
// CHECK-NEXT: %[[SIZED:.*]] = arith.addi %[[T_ALIGNED]], %[[U_ALIGNED]]
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addi %[[SIZED]], %[[C64]]
// CHECK-NEXT: %[[BYTES:.*]] = memref.reinterpret_cast %[[WS]] to offset: [0], sizes: [%[[TOTAL]]], strides: [1] : memref<i8> to memref<?xi8>
// CHECK-NEXT: %[[T:.*]] = memref.view %[[BYTES]][%[[C64]]][%[[E]]] : memref<?xi8> to memref<?x3xf64>
// CHECK-NEXT: %[[S:.*]] = memref.view %[[BYTES]][%[[C0]]][] : memref<?xi8> to memref<2xf64>
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[E]], %c2
// CHECK-NEXT: %[[U_AT:.*]] = arith.addi %[[T_ALIGNED]], %[[C64]]
// CHECK-NEXT: %[[U:.*]] = memref.view %[[BYTES]][%[[U_AT]]][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK-NEXT: call @use3(%[[T]], %[[S]], %[[U]])
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func private @r.s0(%e: index {tl.size = "E"}, %a: memref<4xf64>) {
  %t = memref.alloc(%e) {alignment = 64 : i64} : memref<?x3xf64>
  %s = memref.alloc() : memref<2xf64>
  %c2 = arith.constant 2 : index
  %n = arith.muli %e, %c2 : index
  %u = memref.alloc(%n) : memref<?xf32>
  call @use3(%t, %s, %u) : (memref<?x3xf64>, memref<2xf64>, memref<?xf32>) -> ()
  memref.dealloc %u : memref<?xf32>
  memref.dealloc %s : memref<2xf64>
  memref.dealloc %t : memref<?x3xf64>
  return
}

// CHECK-LABEL: func.func @r_ws(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[F:.*]]: index {tl.size = "F"}, %[[A:.*]]: memref<4xf64>, %[[X:.*]]: index, %[[WS:.*]]: memref<i8>) attributes {tl.workspace_variant} {
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[I_BYTES:.*]] = arith.muli %[[F]], %c8
// CHECK: %[[I_ALIGNED:.*]] = arith.muli %{{.*}}, %[[C64]]
// CHECK: %[[STATEMENT_SIZED:.*]] = arith.addi %{{.*}}, %{{.*}}
// CHECK-NEXT: %[[STATEMENT:.*]] = arith.addi %[[STATEMENT_SIZED]], %[[C64]]
// CHECK-NEXT: %[[OWN:.*]] = arith.addi %[[I_ALIGNED]], %[[C64]]
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addi %[[STATEMENT]], %[[OWN]]
// CHECK-NEXT: %[[BYTES:.*]] = memref.reinterpret_cast %[[WS]] to offset: [0], sizes: [%[[TOTAL]]], strides: [1]
// CHECK-NEXT: %[[I_AT:.*]] = arith.addi %[[STATEMENT_SIZED]], %[[C128]]
// CHECK-NEXT: %[[I:.*]] = memref.view %[[BYTES]][%[[I_AT]]][%[[F]]] : memref<?xi8> to memref<?xf64>
// CHECK-NEXT: %[[J:.*]] = memref.alloc(%[[X]]) : memref<?xf64>
// CHECK-NEXT: %[[K:.*]] = memref.view %[[BYTES]][%[[STATEMENT]]][] : memref<?xi8> to memref<5xf64>
// CHECK-NEXT: call @r.s0(%[[E]], %[[A]], %[[WS]])
// CHECK-NEXT: call @use2(%[[I]], %[[J]], %[[K]])
// CHECK-NEXT: memref.dealloc %[[J]]
// CHECK-NEXT: return

// The plain function allocates what the size function says, as bytes,
// and passes a pointer to them.
// CHECK-LABEL: func.func @r(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[F:.*]]: index {tl.size = "F"}, %[[A:.*]]: memref<4xf64>, %[[X:.*]]: index) {
// CHECK-NEXT: %[[SIZE:.*]] = call @r_workspace_size(%[[E]], %[[F]]) : (index, index) -> i64
// CHECK-NEXT: %[[EXTENT:.*]] = arith.index_cast %[[SIZE]] : i64 to index
// CHECK-NEXT: %[[BLOCK:.*]] = memref.alloc(%[[EXTENT]]) {alignment = 64 : i64} : memref<?xi8>
// CHECK-NEXT: %[[POINTER:.*]] = memref.reinterpret_cast %[[BLOCK]] to offset: [0], sizes: [], strides: [] : memref<?xi8> to memref<i8>
// CHECK-NEXT: call @r_ws(%[[E]], %[[F]], %[[A]], %[[X]], %[[POINTER]])
// CHECK-NEXT: memref.dealloc %[[BLOCK]] : memref<?xi8>
// CHECK-NEXT: return

// The size function: the largest statement's bytes, then the program
// function's.
// CHECK-LABEL: func.func @r_workspace_size(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[F:.*]]: index {tl.size = "F"}) -> i64 {
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[I_BYTES:.*]] = arith.muli %[[F]], %c8
// CHECK-NEXT: %[[I_LINES:.*]] = arith.ceildivui %[[I_BYTES]], %[[C64]]
// CHECK-NEXT: %[[I_ALIGNED:.*]] = arith.muli %[[I_LINES]], %[[C64]]
// CHECK-NEXT: %[[OWN:.*]] = arith.addi %[[I_ALIGNED]], %[[C64]]
// CHECK-NEXT: %[[T_BYTES:.*]] = arith.muli %[[E]], %c24
// CHECK-NEXT: %[[T_LINES:.*]] = arith.ceildivui %[[T_BYTES]], %[[C64]]
// CHECK-NEXT: %[[T_ALIGNED:.*]] = arith.muli %[[T_LINES]], %[[C64]]
// CHECK-NEXT: %[[U_BYTES:.*]] = arith.muli %[[E]], %c8
// CHECK-NEXT: %[[U_LINES:.*]] = arith.ceildivui %[[U_BYTES]], %[[C64]]
// CHECK-NEXT: %[[U_ALIGNED:.*]] = arith.muli %[[U_LINES]], %[[C64]]
// CHECK-NEXT: %[[SIZED:.*]] = arith.addi %[[T_ALIGNED]], %[[U_ALIGNED]]
// CHECK-NEXT: %[[STATEMENT:.*]] = arith.addi %[[SIZED]], %[[C64]]
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addi %[[OWN]], %[[STATEMENT]]
// CHECK-NEXT: %[[RESULT:.*]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK-NEXT: return %[[RESULT]] : i64
func.func @r(%e: index {tl.size = "E"}, %f: index {tl.size = "F"}, %a: memref<4xf64>, %x: index) {
  %i = memref.alloc(%f) : memref<?xf64>
  %j = memref.alloc(%x) : memref<?xf64>
  %k = memref.alloc() : memref<5xf64>
  call @r.s0(%e, %a) : (index, memref<4xf64>) -> ()
  call @use2(%i, %j, %k) : (memref<?xf64>, memref<?xf64>, memref<5xf64>) -> ()
  memref.dealloc %i : memref<?xf64>
  memref.dealloc %j : memref<?xf64>
  memref.dealloc %k : memref<5xf64>
  return
}
func.func private @use3(memref<?x3xf64>, memref<2xf64>, memref<?xf32>)
func.func private @use2(memref<?xf64>, memref<?xf64>, memref<5xf64>)

// -----

// A statement's argument named as a size that the program function does
// not have, and an extent read from memory, are not computable from the
// sizes: those temporaries stay allocations. A program with sizes and
// only static temporaries (none here) has a static workspace and a
// constant size function that still takes the sizes.
// CHECK-LABEL: func.func private @q.s0(
// CHECK-SAME: %[[G:.*]]: index {tl.size = "G"}, %[[M:.*]]: memref<index>, %[[WS:.*]]: memref<0xi8>)
// CHECK-DAG: memref.alloc(%[[G]]) : memref<?xf64>
// CHECK-DAG: %[[LOADED:.*]] = memref.load %[[M]][]
// CHECK-DAG: memref.alloc(%[[LOADED]]) : memref<?xf64>
// CHECK-LABEL: func.func @q(
// CHECK-NEXT: memref.alloca() : memref<0xi8>
// CHECK-LABEL: func.func @q_workspace_size(
// CHECK-SAME: %{{.*}}: index {tl.size = "E"}) -> i64 {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: return %[[ZERO]]
func.func private @q.s0(%g: index {tl.size = "G"}, %m: memref<index>) {
  %a = memref.alloc(%g) : memref<?xf64>
  %n = memref.load %m[] : memref<index>
  %b = memref.alloc(%n) : memref<?xf64>
  call @use(%a, %b) : (memref<?xf64>, memref<?xf64>) -> ()
  memref.dealloc %a : memref<?xf64>
  memref.dealloc %b : memref<?xf64>
  return
}
func.func @q(%e: index {tl.size = "E"}, %m: memref<index>) {
  call @q.s0(%e, %m) : (index, memref<index>) -> ()
  return
}
func.func private @use(memref<?xf64>, memref<?xf64>)

// -----

// A statement given a value computed from a size where its argument is
// named as the size: the size function would compute its temporary from
// the size itself, not the value passed, so it stays an allocation. The
// same statement's static temporary still has its place.
// CHECK-LABEL: func.func private @m.s0(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[WS:.*]]: memref<64xi8>)
// CHECK: %[[T:.*]] = memref.alloc(%[[E]]) : memref<?xf64>
// CHECK: memref.view %[[WS]][%{{.*}}][] : memref<64xi8> to memref<2xf64>
// CHECK: memref.dealloc %[[T]]
// CHECK-LABEL: func.func @m_workspace_size(
// CHECK-SAME: %{{.*}}: index {tl.size = "E"}) -> i64 {
// CHECK-NEXT: %[[SIZE:.*]] = arith.constant 64 : i64
// CHECK-NEXT: return %[[SIZE]]
func.func private @m.s0(%e: index {tl.size = "E"}) {
  %t = memref.alloc(%e) : memref<?xf64>
  %s = memref.alloc() : memref<2xf64>
  call @use(%t, %s) : (memref<?xf64>, memref<2xf64>) -> ()
  memref.dealloc %s : memref<2xf64>
  memref.dealloc %t : memref<?xf64>
  return
}
func.func @m(%e: index {tl.size = "E"}) {
  %c2 = arith.constant 2 : index
  %twice = arith.muli %e, %c2 : index
  call @m.s0(%twice) : (index) -> ()
  return
}
func.func private @use(memref<?xf64>, memref<2xf64>)

// -----

// The versions of a contraction chosen at run time (an scf.if at the top
// level) each allocate a temporary of the same type and extents, which the
// choice yields and the function frees through its metadata: the two
// become one allocation before the choice, which yields it from both
// branches, so it takes its place in the workspace like any other, and
// its deallocation goes.
// CHECK-LABEL: func.func @versions_ws(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %{{.*}}: i1, %[[OUT:.*]]: memref<?xf64>, %[[WS:.*]]: memref<i8>)
// CHECK-NOT: memref.alloc
// CHECK: %[[T:.*]] = memref.view %{{.*}}[%{{.*}}][%[[E]]] : memref<?xi8> to memref<?xf64>
// CHECK: scf.if
// CHECK: linalg.fill {{.*}} outs(%[[T]]
// CHECK: } else {
// CHECK: linalg.fill {{.*}} outs(%[[T]]
// CHECK: }
// CHECK: memref.copy %[[T]], %[[OUT]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @versions(%e: index {tl.size = "E"}, %short: i1, %out: memref<?xf64>) {
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %t = scf.if %short -> (memref<?xf64>) {
    %a = memref.alloc(%e) {alignment = 64 : i64} : memref<?xf64>
    linalg.fill ins(%one : f64) outs(%a : memref<?xf64>)
    scf.yield %a : memref<?xf64>
  } else {
    %b = memref.alloc(%e) {alignment = 64 : i64} : memref<?xf64>
    linalg.fill ins(%two : f64) outs(%b : memref<?xf64>)
    scf.yield %b : memref<?xf64>
  }
  memref.copy %t, %out : memref<?xf64> to memref<?xf64>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %t : memref<?xf64> -> memref<f64>, index, index, index
  memref.dealloc %base : memref<f64>
  return
}

// -----

// Only one version computes into a temporary, which the choice yields; the
// other writes the output in place. The temporary stays in its branch: the
// function frees the choice's result only where that branch ran, so moved
// out it would be allocated on every call and freed on some (a leak in the
// long version of a sized product).
// CHECK-LABEL: func.func @one_version_ws(
// CHECK-SAME: %[[E:.*]]: index {tl.size = "E"}, %[[SHORT:.*]]: i1, %[[OUT:.*]]: memref<?xf64>, %{{.*}}: memref<0xi8>)
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[T:.*]] = scf.if %[[SHORT]]
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%[[E]])
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT: scf.yield %[[A]]
// CHECK-NEXT: } else {
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[OUT]]
// CHECK-NEXT: scf.yield %[[OUT]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.copy %[[T]], %[[OUT]]
// CHECK-NEXT: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[T]]
// CHECK-NEXT: scf.if %[[SHORT]] {
// CHECK-NEXT: memref.dealloc %[[BASE]]
func.func @one_version(%e: index {tl.size = "E"}, %short: i1, %out: memref<?xf64>) {
  %one = arith.constant 1.0 : f64
  %t = scf.if %short -> (memref<?xf64>) {
    %a = memref.alloc(%e) {alignment = 64 : i64} : memref<?xf64>
    linalg.fill ins(%one : f64) outs(%a : memref<?xf64>)
    scf.yield %a : memref<?xf64>
  } else {
    linalg.fill ins(%one : f64) outs(%out : memref<?xf64>)
    scf.yield %out : memref<?xf64>
  }
  memref.copy %t, %out : memref<?xf64> to memref<?xf64>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %t : memref<?xf64> -> memref<f64>, index, index, index
  scf.if %short {
    memref.dealloc %base : memref<f64>
  }
  return
}

// -----

// The extents of a sized variable read back from its view (memref.dim of
// the memref.reinterpret_cast that gives it its sizes) are those sizes: a
// temporary of them (a transposed copy of the variable) has its place in
// the workspace, computed from the size, rather than an allocation on every
// call. A static extent of the view is a constant.
// CHECK-LABEL: func.func @transposed_ws(
// CHECK-SAME: %[[M:.*]]: index {tl.size = "M"}, %[[A:.*]]: memref<f64>, %[[WS:.*]]: memref<i8>)
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C56:.*]] = arith.constant 56 : index
// CHECK: %[[T_BYTES:.*]] = arith.muli %[[M]], %[[C56]]
// CHECK: %[[BYTES:.*]] = memref.reinterpret_cast %[[WS]]
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[T:.*]] = memref.view %[[BYTES]][%[[C0]]][%[[M]]] : memref<?xi8> to memref<7x?xf64>
// CHECK: %[[T_CAST:.*]] = memref.cast %[[T]]
// CHECK-NEXT: call @copy(%[[VIEW]], %[[T_CAST]])
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK-LABEL: func.func @transposed_workspace_size(
// CHECK-SAME: %[[M:.*]]: index {tl.size = "M"}) -> i64 {
// CHECK: arith.muli %[[M]], %c56
func.func @transposed(%m: index {tl.size = "M"}, %a: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %view = memref.reinterpret_cast %a to offset: [0], sizes: [%m, 7], strides: [7, 1] : memref<f64> to memref<?x7xf64>
  %rows = memref.dim %view, %c0 : memref<?x7xf64>
  %columns = memref.dim %view, %c1 : memref<?x7xf64>
  %t = memref.alloc(%columns, %rows) {alignment = 64 : i64} : memref<?x?xf64>
  call @copy(%view, %t) : (memref<?x7xf64>, memref<?x?xf64>) -> ()
  call @use(%t) : (memref<?x?xf64>) -> ()
  memref.dealloc %t : memref<?x?xf64>
  return
}
func.func private @use(memref<?x?xf64>)
func.func private @copy(memref<?x7xf64>, memref<?x?xf64>)
