// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// An edge tile of a sized contraction: its slice of the result is 8 rows
// by at most 8 columns (the affine.min), each row read and written by a
// transfer masked to the slice. The masked writes cover every element the
// slice can have, so the start goes; in the first depth block the rows'
// reads take its value, zero, without loading.
// CHECK-LABEL: func.func @masked_columns
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// The reduction loop, versioned on B's stride (a size: prefetched where
// it is long), gives the rows.
// CHECK: %[[ROWS:.*]]:8 = scf.if
// CHECK: scf.for
// CHECK: } else {
// CHECK: scf.for
// CHECK-COUNT-8: scf.if %[[FIRST]] -> (vector<8xf64>) {
// CHECK-NEXT: scf.yield %[[ZERO]]
// CHECK-NEXT: } else {
// CHECK-NEXT: vector.transfer_read %[[SLICE:[a-z_0-9]+]][%c{{[0-7]}}, %c0], %cst :
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: arith.addf %[[ROWS]]#
// CHECK-NEXT: vector.transfer_write %{{.*}}, %[[SLICE]][%c{{[0-7]}}, %c0] :
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @masked_columns(%a: memref<8x?xf64>, %b: memref<?x?xf64>, %c: memref<8x?xf64>, %n: index, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  scf.for %j = %c0 to %n step %c8 {
    %w = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 8)>(%j)[%n]
    scf.for %kb = %c0 to %depth step %c256 {
      %first = arith.cmpi eq, %kb, %c0 : index
      %tile = memref.subview %c[0, %j] [8, %w] [1, 1] : memref<8x?xf64> to memref<8x?xf64, strided<[?, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x?xf64, strided<[?, 1], offset: ?>>) attrs = {tl.first_depth_block_start} {
      ^bb0(%out: f64):
        %s = arith.select %first, %zero, %out : f64
        linalg.yield %s : f64
      }
      scf.for %k = %c0 to %c256 step %c1 {
        %kk = arith.addi %kb, %k : index
        %x = vector.transfer_read %a[%c0, %kk], %zero {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
        %y = vector.transfer_read %b[%kk, %j], %zero {in_bounds = [true, false]} : memref<?x?xf64>, vector<1x8xf64>
        %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, false]} : memref<8x?xf64, strided<[?, 1], offset: ?>>, vector<8x8xf64>
        %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x8xf64> into vector<8x8xf64>
        vector.transfer_write %r, %tile[%c0, %c0] {in_bounds = [true, false]} : vector<8x8xf64>, memref<8x?xf64, strided<[?, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// An edge of at most 8 rows of 16 columns: each row is read and written
// under `scf.if` on its row being within the slice. The writes cover the
// slice, the start goes, and each row's read gets the first block's zero.
// CHECK-LABEL: func.func @guarded_rows
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf64>
// CHECK-COUNT-8: scf.if %{{.*}} -> (vector<8x16xf64>) {
// CHECK-NEXT: scf.if %[[FIRST]] -> (vector<16xf64>) {
// CHECK-NEXT: scf.yield %[[ZERO]]
// CHECK-NEXT: } else {
// CHECK-NEXT: vector.transfer_read %[[SLICE:[a-z_0-9]+]][%c{{[0-7]}}, %c0], %{{.*}} {in_bounds = [true]}
// CHECK: scf.for
// CHECK-COUNT-8: vector.transfer_write %{{.*}}, %[[SLICE]][%c{{[0-7]}}, %c0] {in_bounds = [true]}
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @guarded_rows(%a: memref<?x?xf64>, %b: memref<?x16xf64>, %c: memref<?x16xf64>, %m: index, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %m step %c8 {
    %h = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 8)>(%i)[%m]
    scf.for %kb = %c0 to %depth step %c256 {
      %first = arith.cmpi eq, %kb, %c0 : index
      %tile = memref.subview %c[%i, 0] [%h, 16] [1, 1] : memref<?x16xf64> to memref<?x16xf64, strided<[16, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<?x16xf64, strided<[16, 1], offset: ?>>) attrs = {tl.first_depth_block_start} {
      ^bb0(%out: f64):
        %s = arith.select %first, %zero, %out : f64
        linalg.yield %s : f64
      }
      scf.for %k = %c0 to %c256 step %c1 {
        %kk = arith.addi %kb, %k : index
        %x = vector.transfer_read %a[%i, %kk], %zero {in_bounds = [false, true]} : memref<?x?xf64>, vector<8x1xf64>
        %y = vector.transfer_read %b[%kk, %c0], %zero {in_bounds = [true, true]} : memref<?x16xf64>, vector<1x16xf64>
        %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [false, true]} : memref<?x16xf64, strided<[16, 1], offset: ?>>, vector<8x16xf64>
        %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
        vector.transfer_write %r, %tile[%c0, %c0] {in_bounds = [false, true]} : vector<8x16xf64>, memref<?x16xf64, strided<[16, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A slice whose columns nothing bounds: rows of 8 may not cover it, so the
// start stays, a fill in the first block only; the rows' reads after it
// still get its value there without loading.
// CHECK-LABEL: func.func @unbounded_columns
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: }
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK-COUNT-8: scf.if %[[FIRST]] -> (vector<8xf64>) {
func.func @unbounded_columns(%a: memref<8x?xf64>, %b: memref<?x?xf64>, %c: memref<8x?xf64>, %w: index, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  scf.for %kb = %c0 to %depth step %c256 {
    %first = arith.cmpi eq, %kb, %c0 : index
    %tile = memref.subview %c[0, 0] [8, %w] [1, 1] : memref<8x?xf64> to memref<8x?xf64, strided<[?, 1]>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x?xf64, strided<[?, 1]>>) attrs = {tl.first_depth_block_start} {
    ^bb0(%out: f64):
      %s = arith.select %first, %zero, %out : f64
      linalg.yield %s : f64
    }
    scf.for %k = %c0 to %c256 step %c1 {
      %kk = arith.addi %kb, %k : index
      %x = vector.transfer_read %a[%c0, %kk], %zero {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
      %y = vector.transfer_read %b[%kk, %c0], %zero {in_bounds = [true, false]} : memref<?x?xf64>, vector<1x8xf64>
      %acc = vector.transfer_read %tile[%c0, %c0], %zero {in_bounds = [true, false]} : memref<8x?xf64, strided<[?, 1]>>, vector<8x8xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x8xf64> into vector<8x8xf64>
      vector.transfer_write %r, %tile[%c0, %c0] {in_bounds = [true, false]} : vector<8x8xf64>, memref<8x?xf64, strided<[?, 1]>>
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Rows read with a padding other than the start's value: a read's lanes
// past the slice would differ, so the reads stay loads after a fill in
// the first block.
// CHECK-LABEL: func.func @other_padding
// CHECK: %[[FIRST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: }
// CHECK-NOT: scf.if %[[FIRST]] -> 
// CHECK: return
func.func @other_padding(%a: memref<8x?xf64>, %b: memref<?x?xf64>, %c: memref<8x?xf64>, %n: index, %depth: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  scf.for %j = %c0 to %n step %c8 {
    %w = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 8)>(%j)[%n]
    scf.for %kb = %c0 to %depth step %c256 {
      %first = arith.cmpi eq, %kb, %c0 : index
      %tile = memref.subview %c[0, %j] [8, %w] [1, 1] : memref<8x?xf64> to memref<8x?xf64, strided<[?, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%tile : memref<8x?xf64, strided<[?, 1], offset: ?>>) attrs = {tl.first_depth_block_start} {
      ^bb0(%out: f64):
        %s = arith.select %first, %zero, %out : f64
        linalg.yield %s : f64
      }
      scf.for %k = %c0 to %c256 step %c1 {
        %kk = arith.addi %kb, %k : index
        %x = vector.transfer_read %a[%c0, %kk], %zero {in_bounds = [true, true]} : memref<8x?xf64>, vector<8x1xf64>
        %y = vector.transfer_read %b[%kk, %j], %zero {in_bounds = [true, false]} : memref<?x?xf64>, vector<1x8xf64>
        %acc = vector.transfer_read %tile[%c0, %c0], %one {in_bounds = [true, false]} : memref<8x?xf64, strided<[?, 1], offset: ?>>, vector<8x8xf64>
        %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x8xf64> into vector<8x8xf64>
        vector.transfer_write %r, %tile[%c0, %c0] {in_bounds = [true, false]} : vector<8x8xf64>, memref<8x?xf64, strided<[?, 1], offset: ?>>
      }
    }
  }
  return
}
