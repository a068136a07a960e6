// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s --check-prefix=WHOLE

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile three vector registers wide (2 x 24) is unrolled into
// three tiles of one register's width: 6 carried rows of vector<8xf64>,
// and one read per register of the operand with the columns. The fill
// that zeroes the tile is forwarded to all three pieces, and then erased.
// Without vector-lanes, the rows stay 24 wide (vectors that LLVM widens
// to 32 lanes).
// CHECK-LABEL: func.func @three_registers_wide
// CHECK-SAME: (%{{.*}}: memref<2x4xf64>, %[[B:.*]]: memref<4x24xf64>, %[[C:.*]]: memref<2x24xf64>)
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: %[[SUM:.*]]:6 = scf.for {{.*}} -> (vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>)
// CHECK-COUNT-3: vector.transfer_read %[[B]]{{.*}} : memref<4x24xf64>, vector<8xf64>
// CHECK-COUNT-6: vector.fma
// CHECK-NOT: vector.contract
// CHECK: scf.yield
// CHECK-COUNT-6: vector.transfer_write {{.*}} : vector<8xf64>, memref<2x24xf64>
// CHECK-NOT: linalg.fill
// WHOLE-LABEL: func.func @three_registers_wide
// WHOLE-NOT: linalg.fill
// WHOLE: scf.for {{.*}} -> (vector<24xf64>, vector<24xf64>)
func.func @three_registers_wide(%a: memref<2x4xf64>, %b: memref<4x24xf64>, %c: memref<2x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %tile = memref.subview %c[0, 0] [2, 24] [1, 1] : memref<2x24xf64> to memref<2x24xf64, strided<[24, 1]>>
  linalg.fill ins(%zero : f64) outs(%tile : memref<2x24xf64, strided<[24, 1]>>)
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x24xf64>, vector<1x24xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x24xf64>, vector<2x24xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x24xf64> into vector<2x24xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x24xf64>, memref<2x24xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The fill covers only the first 16 of the tile's 24 columns: the two
// pieces it covers start from zeros, and since they cover all of it, it
// is erased; the third piece reads its rows from memory.
// CHECK-LABEL: func.func @fill_of_part_of_tile
// CHECK-SAME: (%{{.*}}: memref<2x4xf64>, %{{.*}}: memref<4x24xf64>, %[[C:.*]]: memref<2x24xf64>)
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NOT: linalg.fill
// CHECK: %[[ROW0:.*]] = vector.transfer_read %[[C]][%{{.*}}, %[[C16]]]
// CHECK: %[[ROW1:.*]] = vector.transfer_read %[[C]][%{{.*}}, %[[C16]]]
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ZEROS]], %{{.*}} = %[[ROW0]], %{{.*}} = %[[ROW1]])
// CHECK-NOT: linalg.fill
// WHOLE-LABEL: func.func @fill_of_part_of_tile
// WHOLE: linalg.fill
func.func @fill_of_part_of_tile(%a: memref<2x4xf64>, %b: memref<4x24xf64>, %c: memref<2x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %part = memref.subview %c[0, 0] [2, 16] [1, 1] : memref<2x24xf64> to memref<2x16xf64, strided<[24, 1]>>
  linalg.fill ins(%zero : f64) outs(%part : memref<2x16xf64, strided<[24, 1]>>)
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x24xf64>, vector<1x24xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x24xf64>, vector<2x24xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x24xf64> into vector<2x24xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x24xf64>, memref<2x24xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A fill of the tile's first piece and half of its second: the second
// piece is not within it, so it is read, and the fill stays (the first
// piece does not cover it).
// CHECK-LABEL: func.func @fill_across_pieces
// CHECK-SAME: (%{{.*}}: memref<2x4xf64>, %{{.*}}: memref<4x24xf64>, %[[C:.*]]: memref<2x24xf64>)
// CHECK: linalg.fill
// CHECK-COUNT-4: vector.transfer_read %[[C]]
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: scf.for
func.func @fill_across_pieces(%a: memref<2x4xf64>, %b: memref<4x24xf64>, %c: memref<2x24xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %pad = ub.poison : f64
  %part = memref.subview %c[0, 0] [2, 12] [1, 1] : memref<2x24xf64> to memref<2x12xf64, strided<[24, 1]>>
  linalg.fill ins(%zero : f64) outs(%part : memref<2x12xf64, strided<[24, 1]>>)
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x24xf64>, vector<1x24xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x24xf64>, vector<2x24xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x24xf64> into vector<2x24xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x24xf64>, memref<2x24xf64>
  }
  return
}
