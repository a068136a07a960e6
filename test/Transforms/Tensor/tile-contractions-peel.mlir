// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s

// Tiles need not divide the extents: the last, partial step of each loop
// of tiles is peeled off into a static tile of its own inside the same
// loops. 71 rows are cache blocks of 40 and 31, in register tiles of 8
// rows (40 = 5 x 8, 31 = 3 x 8 + 7); 37 columns are register tiles of 16
// and a rest of 5 (one vector). Every tile, rest or not, is a vector
// contraction that zeroes its own part of the result and sums the whole
// depth (311, prime, taken whole); none stays a scalar linalg.generic,
// and nothing is split into a second contraction over the operands.

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// CHECK-LABEL: func.func @prime
// The first row block (40 rows).
// CHECK: scf.for {{.*}} = %c0 to %c40 step %c8
// CHECK: scf.for {{.*}} = %c0 to %c32 step %c16
// CHECK: linalg.fill {{.*}} -> tensor<8x16xf64>
// CHECK: scf.for {{.*}} = %c0 to %c311 step %c1
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: linalg.fill {{.*}} -> tensor<8x5xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x5xf64> into vector<8x5xf64>
// The second (31 rows): three register tiles of 8 rows, then one of 7.
// CHECK: scf.for {{.*}} = %c0 to %c24 step %c8
// CHECK: vector.contract {{.*}} into vector<8x16xf64>
// CHECK: vector.contract {{.*}} into vector<8x5xf64>
// CHECK: linalg.fill {{.*}} -> tensor<7x16xf64>
// CHECK: vector.contract {{.*}} : vector<7x1xf64>, vector<1x16xf64> into vector<7x16xf64>
// CHECK: linalg.fill {{.*}} -> tensor<7x5xf64>
// CHECK: vector.contract {{.*}} : vector<7x1xf64>, vector<1x5xf64> into vector<7x5xf64>
// CHECK-NOT: linalg.generic
// CHECK-NOT: tl.cache_tile
// CHECK-NOT: tl.register_tile
func.func @prime(%a: tensor<71x311xf64>, %b: tensor<311x37xf64>) -> tensor<71x37xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<71x37xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<71x37xf64>) -> tensor<71x37xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<71x311xf64>, tensor<311x37xf64>) outs(%c : tensor<71x37xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<71x37xf64>
  return %r : tensor<71x37xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A depth blocked for the caches with no divisor near the preferred block
// (5135 = 5 x 13 x 79, blocks of up to 256 on this target): 20 blocks of
// 245 and a last one of 235, peeled, each summing into the result the
// blocks before it left (no per-tile fill across depth blocks).
// CHECK-LABEL: func.func @prime_depth
// CHECK: scf.for {{.*}} = %c0 to %c4900 step %c245
// CHECK: scf.for {{.*}} = %c0 to %c245 step %c1
// CHECK: vector.contract {{.*}} into vector<8x16xf64>
// CHECK: scf.for {{.*}} = %c0 to %c235 step %c1
// CHECK: vector.contract {{.*}} into vector<8x16xf64>
// CHECK-NOT: linalg.generic
func.func @prime_depth(%a: tensor<16x5135xf64>, %b: tensor<5135x32xf64>, %c: tensor<16x32xf64>) -> tensor<16x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x5135xf64>, tensor<5135x32xf64>) outs(%c : tensor<16x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x32xf64>
  return %r : tensor<16x32xf64>
}
