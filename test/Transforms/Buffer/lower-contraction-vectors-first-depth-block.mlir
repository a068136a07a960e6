// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors{streaming-min-bytes=-1}))" | FileCheck %s --check-prefix=NOSTREAM

// NOSTREAM-NOT: nontemporal
// NOSTREAM-NOT: llvm.fence

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile of a sized contraction whose depth is blocked: in the
// first depth block, the start (a select of the fill's value) makes its
// slice of the result the fill's value. The rows added to the result
// after the loop cover the slice, so the start goes: in the first block
// the rows are written as summed, without reading the result; where the
// block is also the last (the depth fits one), the result holds 32 MiB or
// more, and its rows start on lines and are whole lines, they are written
// by non-temporal stores, and the rows' prefetches for writing are
// skipped. A fence follows the loop nest.
// CHECK-LABEL: func.func @only_depth_block
// CHECK-SAME: (%{{.*}}: memref<8x?xf64>, %{{.*}}: memref<?x16xf64>, %[[C:.*]]: memref<?x?xf64>, %[[DEPTH:.*]]: index)
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[C]]
// CHECK: arith.cmpi uge, %{{.*}}, %c33554432
// CHECK: scf.for %[[BLOCK:.*]] = %{{.*}} to %[[DEPTH]] step %[[STEP:.*]] {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[BLOCK]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[BLOCK]], %[[STEP]] : index
// CHECK: %[[LAST:.*]] = arith.cmpi sge, %[[NEXT]], %[[DEPTH]] : index
// CHECK: %[[ONLY:.*]] = arith.andi %[[FIRST]], %[[LAST]] : i1
// CHECK-NOT: linalg.generic
// CHECK: %[[FETCHES:.*]] = arith.xori %{{.*}}, %true
// CHECK: scf.if %[[FETCHES]] {
// CHECK-COUNT-8: memref.prefetch %[[C]]{{.*}}, write
// CHECK: }
// CHECK: %[[ROWS:.*]]:8 = scf.for
// CHECK: scf.if %[[FIRST]] {
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-8: vector.store %[[ROWS]]#{{.*}}, %[[C]]{{.*}} {alignment = 64 : i64, nontemporal = true}
// CHECK: } else {
// CHECK-COUNT-8: vector.transfer_write %[[ROWS]]#{{.*}}, %[[C]]
// CHECK: }
// CHECK: } else {
// CHECK-COUNT-8: vector.transfer_read %[[C]]
// CHECK-NOT: llvm.fence
// CHECK: vector.transfer_write
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: return
func.func @only_depth_block(%a: memref<8x?xf64>, %b: memref<?x16xf64>, %c: memref<?x?xf64>, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  scf.for %kb = %c0 to %depth step %c256 {
    %first = arith.cmpi eq, %kb, %c0 : index
    %tile = memref.subview %c[0, 0] [8, 16] [1, 1] : memref<?x?xf64> to memref<8x16xf64, strided<[?, 1]>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x16xf64, strided<[?, 1]>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%out: f64):
      %s = arith.select %first, %zero, %out : f64
      linalg.yield %s : f64
    }
    scf.for %k = %c0 to %c256 step %c1 {
      %kk = arith.addi %kb, %k : index
      %x = vector.transfer_read %a[%c0, %kk], %pad {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
      %y = vector.transfer_read %b[%kk, %c0], %pad {in_bounds = [true, true]} : memref<?x16xf64>, vector<1x16xf64>
      %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf64>, vector<8x16xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
      vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<?x?xf64>
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The same tile into a temporary: the first block writes its rows
// without reading them, with ordinary stores only (the temporary is read
// again), and there is no fence.
// CHECK-LABEL: func.func @temporary_result
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]]:8 = scf.for
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: vector.transfer_read
// CHECK-COUNT-8: vector.transfer_write %[[ROWS]]#
// CHECK: } else {
// CHECK-COUNT-8: vector.transfer_read
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
// CHECK: return
func.func @temporary_result(%a: memref<8x?xf64>, %b: memref<?x16xf64>, %n: index, %depth: index) -> memref<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %c = memref.alloc(%n, %n) : memref<?x?xf64>
  scf.for %kb = %c0 to %depth step %c256 {
    %first = arith.cmpi eq, %kb, %c0 : index
    %tile = memref.subview %c[0, 0] [8, 16] [1, 1] : memref<?x?xf64> to memref<8x16xf64, strided<[?, 1]>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x16xf64, strided<[?, 1]>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%out: f64):
      %s = arith.select %first, %zero, %out : f64
      linalg.yield %s : f64
    }
    scf.for %k = %c0 to %c256 step %c1 {
      %kk = arith.addi %kb, %k : index
      %x = vector.transfer_read %a[%c0, %kk], %pad {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
      %y = vector.transfer_read %b[%kk, %c0], %pad {in_bounds = [true, true]} : memref<?x16xf64>, vector<1x16xf64>
      %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf64>, vector<8x16xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
      vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<?x?xf64>
    }
  }
  return %c : memref<?x?xf64>
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A start over more than the tile's rows (16 rows, a tile of 8): the rows
// do not cover it, so it stays a start, as a fill in the first block only
// (the select was the identity in the others); the rows add to the
// result.
// CHECK-LABEL: func.func @rows_do_not_cover
// CHECK-SAME: %[[C:[^:]*]]: memref<?x?xf64>, %{{[^:]*}}: index)
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : memref<16x16xf64, strided<[?, 1]>>)
// CHECK-NEXT: }
// CHECK-NOT: linalg.generic
// CHECK: %[[ROWS:.*]]:8 = scf.for
// CHECK-NOT: scf.if
// CHECK: %[[ROW:.*]] = vector.transfer_read %[[C]]
// CHECK-NEXT: arith.addf %[[ROWS]]#0, %[[ROW]]
// CHECK-NOT: nontemporal
func.func @rows_do_not_cover(%a: memref<8x?xf64>, %b: memref<?x16xf64>, %c: memref<?x?xf64>, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  scf.for %kb = %c0 to %depth step %c256 {
    %first = arith.cmpi eq, %kb, %c0 : index
    %tile = memref.subview %c[0, 0] [16, 16] [1, 1] : memref<?x?xf64> to memref<16x16xf64, strided<[?, 1]>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<16x16xf64, strided<[?, 1]>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%out: f64):
      %s = arith.select %first, %zero, %out : f64
      linalg.yield %s : f64
    }
    scf.for %k = %c0 to %c256 step %c1 {
      %kk = arith.addi %kb, %k : index
      %x = vector.transfer_read %a[%c0, %kk], %pad {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
      %y = vector.transfer_read %b[%kk, %c0], %pad {in_bounds = [true, true]} : memref<?x16xf64>, vector<1x16xf64>
      %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf64>, vector<8x16xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
      vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<?x?xf64>
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// In a parallel loop the stores are fenced by each thread before the
// threads join, which only x86's sfence lets through the OpenMP lowering:
// without a target that has it, the tile is not streamed.
// CHECK-LABEL: func.func @parallel_without_sfence
// CHECK: scf.forall
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: nontemporal
// CHECK-NOT: llvm.fence
// CHECK: return
func.func @parallel_without_sfence(%a: memref<8x?xf64>, %b: memref<?x16xf64>, %c: memref<?x?xf64>, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  scf.forall (%thread) in (2) {
    scf.for %kb = %c0 to %depth step %c256 {
      %first = arith.cmpi eq, %kb, %c0 : index
      %tile = memref.subview %c[0, 0] [8, 16] [1, 1] : memref<?x?xf64> to memref<8x16xf64, strided<[?, 1]>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x16xf64, strided<[?, 1]>>) attrs = {tl.first_depth_block_start} {
      ^bb0(%out: f64):
        %s = arith.select %first, %zero, %out : f64
        linalg.yield %s : f64
      }
      scf.for %k = %c0 to %c256 step %c1 {
        %kk = arith.addi %kb, %k : index
        %x = vector.transfer_read %a[%c0, %kk], %pad {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
        %y = vector.transfer_read %b[%kk, %c0], %pad {in_bounds = [true, true]} : memref<?x16xf64>, vector<1x16xf64>
        %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf64>, vector<8x16xf64>
        %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
        vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<?x?xf64>
      }
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A tile padded at an edge sums in an allocation of one tile: its rows go
// there from the result and back. Reads of the allocation take the value
// last written at their place in the same block, and the allocation, left
// with writes only, goes: the rows go from the result to registers and
// back. A write inside a region between (the scf.if) ends what is known:
// the allocation of the second function stays.
// CHECK-LABEL: func.func @padded_tile
// CHECK-SAME: (%[[C:[^:]*]]: memref<?x?xf64>
// CHECK-NOT: memref.alloc
// CHECK: %[[ROW0:.*]] = vector.transfer_read %[[C]][%[[I0:.*]], %[[I0]]]
// CHECK: %[[ROW1:.*]] = vector.transfer_read %[[C]][%[[I1:.*]], %[[I0]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[ROW0]], %[[ROW0]]
// CHECK: vector.transfer_write %[[SUM]], %[[C]][%[[I0]], %[[I0]]]
// CHECK: vector.transfer_write %[[ROW1]], %[[C]][%[[I1]], %[[I0]]]
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @write_in_a_region
// CHECK: memref.alloc
// CHECK: scf.if
// CHECK: vector.transfer_read %alloc
func.func @padded_tile(%c: memref<?x?xf64>, %x: vector<2x1xf64>, %y: vector<1x8xf64>, %acc: vector<2x8xf64>) -> vector<2x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
  %tile = memref.alloc() : memref<2x8xf64>
  %row0 = vector.transfer_read %c[%c0, %c0], %zero : memref<?x?xf64>, vector<8xf64>
  vector.transfer_write %row0, %tile[%c0, %c0] {in_bounds = [true]} : vector<8xf64>, memref<2x8xf64>
  %row1 = vector.transfer_read %c[%c1, %c0], %zero : memref<?x?xf64>, vector<8xf64>
  vector.transfer_write %row1, %tile[%c1, %c0] {in_bounds = [true]} : vector<8xf64>, memref<2x8xf64>
  %a = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true]} : memref<2x8xf64>, vector<8xf64>
  %sum = arith.addf %a, %a : vector<8xf64>
  vector.transfer_write %sum, %tile[%c0, %c0] {in_bounds = [true]} : vector<8xf64>, memref<2x8xf64>
  %out0 = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true]} : memref<2x8xf64>, vector<8xf64>
  vector.transfer_write %out0, %c[%c0, %c0] : vector<8xf64>, memref<?x?xf64>
  %out1 = vector.transfer_read %tile[%c1, %c0], %zero {in_bounds = [true]} : memref<2x8xf64>, vector<8xf64>
  vector.transfer_write %out1, %c[%c1, %c0] : vector<8xf64>, memref<?x?xf64>
  memref.dealloc %tile : memref<2x8xf64>
  return %r : vector<2x8xf64>
}

func.func @write_in_a_region(%c: memref<?x?xf64>, %x: vector<2x1xf64>, %y: vector<1x8xf64>, %acc: vector<2x8xf64>, %cond: i1) -> vector<2x8xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
  %tile = memref.alloc() : memref<2x8xf64>
  %row0 = vector.transfer_read %c[%c0, %c0], %zero : memref<?x?xf64>, vector<8xf64>
  vector.transfer_write %row0, %tile[%c0, %c0] {in_bounds = [true]} : vector<8xf64>, memref<2x8xf64>
  scf.if %cond {
    %other = arith.constant dense<1.0> : vector<8xf64>
    vector.transfer_write %other, %tile[%c0, %c0] {in_bounds = [true]} : vector<8xf64>, memref<2x8xf64>
  }
  %out0 = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true]} : memref<2x8xf64>, vector<8xf64>
  vector.transfer_write %out0, %c[%c0, %c0] : vector<8xf64>, memref<?x?xf64>
  memref.dealloc %tile : memref<2x8xf64>
  return %r : vector<2x8xf64>
}
