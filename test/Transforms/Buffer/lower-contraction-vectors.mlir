// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile of 2 x 8 accumulators: each row read once before the
// reduction loop, carried through it as a vector of its own, written once
// after it; inside, one broadcast and one FMA per row.
// CHECK-LABEL: func.func @register_tile
// CHECK: %[[ROW0:.*]] = vector.transfer_read %{{.*}} : memref<2x8xf64>, vector<8xf64>
// CHECK: %[[ROW1:.*]] = vector.transfer_read %{{.*}} : memref<2x8xf64>, vector<8xf64>
// CHECK: %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%[[IT0:.*]] = %[[ROW0]], %[[IT1:.*]] = %[[ROW1]]) -> (vector<8xf64>, vector<8xf64>)
// CHECK: %[[B:.*]] = vector.transfer_read %{{.*}} : memref<4x8xf64>, vector<8xf64>
// CHECK: %[[A0:.*]] = vector.broadcast %{{.*}} : f64 to vector<8xf64>
// CHECK: %[[F0:.*]] = vector.fma %[[A0]], %[[B]], %[[IT0]] : vector<8xf64>
// CHECK: %[[A1:.*]] = vector.broadcast %{{.*}} : f64 to vector<8xf64>
// CHECK: %[[F1:.*]] = vector.fma %[[A1]], %[[B]], %[[IT1]] : vector<8xf64>
// CHECK-NOT: vector.contract
// CHECK: scf.yield %[[F0]], %[[F1]]
// CHECK: vector.transfer_write %[[SUM]]#0, %{{.*}} : vector<8xf64>, memref<2x8xf64>
// CHECK: vector.transfer_write %[[SUM]]#1, %{{.*}} : vector<8xf64>, memref<2x8xf64>
// CHECK-NOT: from_elements
func.func @register_tile(%a: memref<2x4xf64>, %b: memref<4x8xf64>, %c: memref<2x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The rows are A's last dimension (A[k][i]): each step's rows are one run
// of A. Each row's element is loaded on its own, where the run was read,
// and broadcast (a broadcast from memory, a load), not read as one vector
// whose lanes are then broadcast from a register (shuffles, on the ports
// of the FMAs).
// CHECK-LABEL: func.func @rows_along_a_run
// CHECK-SAME: (%[[A:.*]]: memref<4x3xf64>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: vector.transfer_read %[[A]]
// CHECK: %[[X0:.*]] = memref.load %[[A]][%[[K]], %c0{{(_[0-9]+)?}}] : memref<4x3xf64>
// CHECK: %[[X1:.*]] = memref.load %[[A]][%[[K]], %c1{{(_[0-9]+)?}}] : memref<4x3xf64>
// CHECK: %[[X2:.*]] = memref.load %[[A]][%[[K]], %c2{{(_[0-9]+)?}}] : memref<4x3xf64>
// CHECK: vector.broadcast %[[X0]] : f64 to vector<8xf64>
// CHECK: vector.broadcast %[[X1]] : f64 to vector<8xf64>
// CHECK: vector.broadcast %[[X2]] : f64 to vector<8xf64>
// CHECK-NOT: vector.transfer_read %[[A]]
// CHECK: scf.yield
func.func @rows_along_a_run(%a: memref<4x3xf64>, %b: memref<4x8xf64>, %c: memref<3x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x3xf64>, vector<3x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<3x8xf64>, vector<3x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<3x1xf64>, vector<1x8xf64> into vector<3x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<3x8xf64>, memref<3x8xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The same rows, where the run may end inside the vector (a row past A's
// edge reads the padding): they stay one vector read, whose out-of-bounds
// lanes are never loaded.
// CHECK-LABEL: func.func @rows_past_the_edge
// CHECK-SAME: (%[[A:.*]]: memref<4x?xf64>
// CHECK: scf.for
// CHECK: vector.transfer_read %[[A]]
// CHECK-NOT: memref.load %[[A]]
// CHECK: scf.yield
func.func @rows_past_the_edge(%a: memref<4x?xf64>, %b: memref<4x8xf64>, %c: memref<3x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f64
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [false, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x?xf64>, vector<3x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<3x8xf64>, vector<3x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<3x1xf64>, vector<1x8xf64> into vector<3x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<3x8xf64>, memref<3x8xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A vector read whose lanes are used other than by broadcasts (here
// summed) is left as it is.
// CHECK-LABEL: func.func @lanes_used_otherwise
// CHECK-SAME: %[[D:[a-z0-9]+]]: memref<4xf64>
// CHECK: %[[LANES:.*]] = vector.transfer_read %[[D]]
// CHECK: vector.extract %[[LANES]][1] : f64 from vector<4xf64>
// CHECK-NOT: memref.load %[[D]]
func.func @lanes_used_otherwise(%a: memref<2x4xf64>, %b: memref<4x8xf64>, %c: memref<2x8xf64>, %d: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
  }
  %run = vector.transfer_read %d[%c0], %pad {in_bounds = [true]} : memref<4xf64>, vector<4xf64>
  %e0 = vector.extract %run[0] : f64 from vector<4xf64>
  %e1 = vector.extract %run[1] : f64 from vector<4xf64>
  %sum = arith.addf %e0, %e1 : f64
  return %sum : f64
}

// -----

// Functions without contractions are left as they are.
// CHECK-LABEL: func.func @no_contraction
// CHECK: vector.transfer_read %{{.*}} : memref<2x8xf64>, vector<2x8xf64>
func.func @no_contraction(%c: memref<2x8xf64>) -> vector<2x8xf64> {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f64
  %v = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
  return %v : vector<2x8xf64>
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The accumulator is a function argument (a statement's target) that a
// fill also writes through a subview before the loop, and its row index is
// computed in the loop body from an outer induction variable: it is still
// hoisted, since nothing else in the loop touches that argument.
// CHECK-LABEL: func.func @argument_tile
// CHECK: linalg.fill
// CHECK: scf.for %[[I:.*]] =
// CHECK: vector.transfer_read %{{.*}} : memref<4x8xf64>, vector<8xf64>
// CHECK: scf.for {{.*}} -> (vector<8xf64>, vector<8xf64>)
// CHECK-NOT: vector.transfer_write
// CHECK: scf.yield
// CHECK: vector.transfer_write {{.*}} : vector<8xf64>, memref<4x8xf64>
func.func @argument_tile(%a: memref<4x4xf64>, %b: memref<4x8xf64>, %c: memref<4x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %view = memref.subview %c[0, 0] [4, 8] [1, 1] : memref<4x8xf64> to memref<4x8xf64, strided<[8, 1]>>
  linalg.fill ins(%zero : f64) outs(%view : memref<4x8xf64, strided<[8, 1]>>)
  scf.for %i = %c0 to %c4 step %c2 {
    scf.for %k = %c0 to %c4 step %c1 {
      %row = affine.apply affine_map<(d0) -> (d0)>(%i)
      %x = vector.transfer_read %a[%row, %k], %pad {in_bounds = [true, true]} : memref<4x4xf64>, vector<2x1xf64>
      %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
      %acc = vector.transfer_read %c[%row, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<2x8xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
      vector.transfer_write %r, %c[%row, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<4x8xf64>
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Something else in the loop reads the accumulator's buffer (through a
// view): the tile stays in memory.
// CHECK-LABEL: func.func @tile_read_elsewhere
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: vector.transfer_read %{{.*}} : memref<2x8xf64, strided<[8, 1]>>, vector<8xf64>
// CHECK: vector.fma
// CHECK: vector.transfer_write
// CHECK-NEXT: vector.transfer_write
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: return
func.func @tile_read_elsewhere(%a: memref<2x4xf64>, %b: memref<4x8xf64>, %c: memref<2x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  %view = memref.subview %c[0, 0] [2, 8] [1, 1] : memref<2x8xf64> to memref<2x8xf64, strided<[8, 1]>>
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %view[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64, strided<[8, 1]>>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile zeroed right before its reduction loop (by a fill of
// exactly its elements, as tl-tile-contractions leaves it) starts from
// zeros in registers: neither the fill nor the accumulator's read remains,
// only the write after the loop. A fill of other elements (the second
// nest: rows 0-1 whatever the tile) stays, and the tile is read.
// CHECK-LABEL: func.func @tile_from_fill
// CHECK-SAME: (%{{.*}}: memref<4x4xf64>, %{{.*}}: memref<4x8xf64>, %[[C:.*]]: memref<4x8xf64>)
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK: scf.for %[[I:.*]] =
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]]) -> (vector<8xf64>, vector<8xf64>)
// CHECK: vector.transfer_write {{.*}}, %[[C]]
// CHECK: linalg.fill
// CHECK-NEXT: vector.transfer_read %[[C]]
func.func @tile_from_fill(%a: memref<4x4xf64>, %b: memref<4x8xf64>, %c: memref<4x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  scf.for %i = %c0 to %c4 step %c2 {
    %tile = memref.subview %c[%i, 0] [2, 8] [1, 1] : memref<4x8xf64> to memref<2x8xf64, strided<[8, 1], offset: ?>>
    linalg.fill ins(%zero : f64) outs(%tile : memref<2x8xf64, strided<[8, 1], offset: ?>>)
    scf.for %k = %c0 to %c4 step %c1 {
      %x = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<4x4xf64>, vector<2x1xf64>
      %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
      %acc = vector.transfer_read %c[%i, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<2x8xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
      vector.transfer_write %r, %c[%i, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<4x8xf64>
    }
  }
  scf.for %i = %c0 to %c4 step %c2 {
    %rows = memref.subview %c[0, 0] [2, 8] [1, 1] : memref<4x8xf64> to memref<2x8xf64, strided<[8, 1]>>
    linalg.fill ins(%zero : f64) outs(%rows : memref<2x8xf64, strided<[8, 1]>>)
    scf.for %k = %c0 to %c4 step %c1 {
      %x = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<4x4xf64>, vector<2x1xf64>
      %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
      %acc = vector.transfer_read %c[%i, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<2x8xf64>
      %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
      vector.transfer_write %r, %c[%i, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<4x8xf64>
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile at an edge of the sizes sums in an allocation of one
// padded tile, filled whole (not a subview) before its loop: it starts
// from zeros in registers as well, and the allocation goes (its write
// after the loop forwarded to the write back, a write per row in bounds).
// Its fill and reads were once kept: a store and a load of every element
// per edge tile.
// CHECK-LABEL: func.func @padded_tile_from_fill
// CHECK-SAME: (%{{.*}}: memref<4x4xf64>, %{{.*}}: memref<4x8xf64>, %[[C:.*]]: memref<?x8xf64>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]]) -> (vector<8xf64>, vector<8xf64>)
// CHECK-NOT: memref.alloc
// CHECK: scf.if
// CHECK: vector.transfer_write %[[SUM]]#0, %[[C]][%c0, %c0]
// CHECK: scf.if
// CHECK: vector.transfer_write %[[SUM]]#1, %[[C]][%c1, %c0]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @padded_tile_from_fill(%a: memref<4x4xf64>, %b: memref<4x8xf64>, %c: memref<?x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %acc = memref.alloc() : memref<2x8xf64>
  linalg.fill ins(%zero : f64) outs(%acc : memref<2x8xf64>)
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<4x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %t = vector.transfer_read %acc[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
  }
  %tile = vector.transfer_read %acc[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
  vector.transfer_write %tile, %c[%c0, %c0] {in_bounds = [false, true]} : vector<2x8xf64>, memref<?x8xf64>
  memref.dealloc %acc : memref<2x8xf64>
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The same where the tile's rows and columns are not adjacent dimensions
// of the result (C[i, t, j] with t a unit step of an outer loop, as in
// TCCG abcdef-degc-gfab): the fill covers the read, which takes rows from
// dimension 0 and columns from dimension 2, so both go, and the 302 MB
// result of that contraction is only written (0.092 s to 0.032 s).
// CHECK-LABEL: func.func @tile_from_fill_apart
// CHECK-SAME: (%{{.*}}: memref<4x4xf64>, %{{.*}}: memref<4x8xf64>, %[[C:.*]]: memref<4x3x8xf64>)
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: vector.transfer_write {{.*}}, %[[C]]
func.func @tile_from_fill_apart(%a: memref<4x4xf64>, %b: memref<4x8xf64>, %c: memref<4x3x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  scf.for %t = %c0 to %c3 step %c1 {
    scf.for %i = %c0 to %c4 step %c2 {
      %tile = memref.subview %c[%i, %t, 0] [2, 1, 8] [1, 1, 1] : memref<4x3x8xf64> to memref<2x1x8xf64, strided<[24, 8, 1], offset: ?>>
      linalg.fill ins(%zero : f64) outs(%tile : memref<2x1x8xf64, strided<[24, 8, 1], offset: ?>>)
      scf.for %k = %c0 to %c4 step %c1 {
        %x = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<4x4xf64>, vector<2x1xf64>
        %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
        %acc = vector.transfer_read %c[%i, %t, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : memref<4x3x8xf64>, vector<2x8xf64>
        %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
        vector.transfer_write %r, %c[%i, %t, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : vector<2x8xf64>, memref<4x3x8xf64>
      }
    }
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A reduction loop long enough to hide a miss (64 steps): the tile's rows
// start from zeros, are prefetched for writing before the loop, and are
// read and added after it, off the path of the loop's first FMAs.
// CHECK-LABEL: func.func @tile_added_after_loop
// CHECK-SAME: (%{{.*}}: memref<2x64xf64>, %{{.*}}: memref<64x8xf64>, %[[C:.*]]: memref<2x8xf64>)
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK-DAG: memref.prefetch %[[C]][%[[C0:.*]], %[[C0]]], write, locality<3>, data
// CHECK-DAG: memref.prefetch %[[C]][%[[C1:.*]], %[[C0]]], write, locality<3>, data
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]])
// CHECK: scf.yield
// CHECK: %[[ROW0:.*]] = vector.transfer_read %[[C]][%[[C0]], %[[C0]]]
// CHECK: %[[NEW0:.*]] = arith.addf %[[SUM]]#0, %[[ROW0]] : vector<8xf64>
// CHECK: vector.transfer_write %[[NEW0]], %[[C]][%[[C0]], %[[C0]]]
// CHECK: %[[ROW1:.*]] = vector.transfer_read %[[C]][%[[C1]], %[[C0]]]
// CHECK: %[[NEW1:.*]] = arith.addf %[[SUM]]#1, %[[ROW1]] : vector<8xf64>
// CHECK: vector.transfer_write %[[NEW1]], %[[C]][%[[C1]], %[[C0]]]
func.func @tile_added_after_loop(%a: memref<2x64xf64>, %b: memref<64x8xf64>, %c: memref<2x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c64 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x64xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
  }
  return
}
