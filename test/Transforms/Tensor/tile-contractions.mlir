// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8 whole-depth-panel-bytes=1 l2-block-bytes=2 parallel=1}))" | FileCheck %s --check-prefix=PAR
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=4 register-columns=8 cache-rows=8 cache-columns=16 cache-depth=8}))" | FileCheck %s --check-prefix=WHOLE

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A matrix product: column blocks, depth blocks, row blocks for the caches;
// 4 x 8 register tiles with the reduction innermost, each one contraction
// of a column of A with a row of B.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %[[C8]]
// CHECK: scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %[[C8]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C8]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C1]]
// CHECK: %[[A:.*]] = vector.transfer_read {{.*}} : tensor<{{.*}}>, vector<4x1xf64>
// CHECK: %[[B:.*]] = vector.transfer_read {{.*}} : tensor<{{.*}}>, vector<1x8xf64>
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<{{.*}}>, vector<4x8xf64>
// CHECK: vector.contract {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} %[[A]], %[[B]], %[[ACC]] : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK-NOT: linalg.generic
// With parallel=1, threads share the column blocks (no reduction is split):
// PAR-LABEL: func.func @matmul
// PAR: scf.forall (%{{.*}}) = (0) to (32) step (16) shared_outs
// PAR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// PAR: vector.contract
// PAR: scf.forall.in_parallel
func.func @matmul(%a: tensor<32x24xf64>, %b: tensor<24x32xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<24x32xf64>) outs(%c : tensor<32x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}

// -----

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// A batch of products (one per element e, as in the CFD kernels), with odd
// extents: the whole short extent 5 is one register tile of rows, and the
// batch dimension is a loop of single steps whose unit dimension is dropped
// before vectorizing.
// CHECK-LABEL: func.func @batched_odd
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}) -> (tensor<3x5x16xf64>)
// CHECK: vector.transfer_read {{.*}} : tensor<5x1xf64>, vector<5x1xf64>
// CHECK: vector.contract {{.*}} into vector<5x8xf64>
// CHECK-NOT: linalg.generic
// PAR-LABEL: func.func @batched_odd
// PAR: scf.forall (%{{.*}}) in (3) shared_outs
func.func @batched_odd(%u: tensor<3x7x16xf64>, %m: tensor<5x7xf64>, %v: tensor<3x5x16xf64>) -> tensor<3x5x16xf64> {
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<3x7x16xf64>, tensor<5x7xf64>) outs(%v : tensor<3x5x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %p, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3x5x16xf64>
  return %r : tensor<3x5x16xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#bt = affine_map<(i, k, j) -> (j, k)>
#c = affine_map<(i, k, j) -> (i, j)>

// The columns are not contiguous in B (A times B transposed), but B is
// small: it is copied into the transposed layout first, and the copy is
// read with the columns last.
// CHECK-LABEL: func.func @strided_columns
// CHECK: %[[BT:.*]] = linalg.transpose ins(%{{.*}} : tensor<32x24xf64>) outs(%{{.*}} : tensor<24x32xf64>) permutation = [1, 0]
// CHECK: tensor.extract_slice %[[BT]]
// CHECK: vector.contract
func.func @strided_columns(%a: tensor<32x24xf64>, %b: tensor<32x24xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<32x24xf64>) outs(%c : tensor<32x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#bt = affine_map<(i, k, j) -> (j, k)>
#c = affine_map<(i, k, j) -> (i, j)>

// A large operand with the columns elsewhere than last, each element used
// 32 times: copied with the columns last (linalg.transpose), then tiled
// into register tiles (the untiled loop nest would be 5-15x slower).
// CHECK-LABEL: func.func @strided_large
// CHECK: linalg.transpose
// CHECK: vector.contract
func.func @strided_large(%a: tensor<32x256xf64>, %b: tensor<256x256xf64>, %c: tensor<32x256xf64>) -> tensor<32x256xf64> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x256xf64>, tensor<256x256xf64>) outs(%c : tensor<32x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x256xf64>
  return %r : tensor<32x256xf64>
}

// Used only 4 times per element, it is not copied: the loop lowering stays.
// CHECK-LABEL: func.func @strided_large_little_reused
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK-NOT: vector.contract
func.func @strided_large_little_reused(%a: tensor<4x256xf64>, %b: tensor<256x256xf64>, %c: tensor<4x256xf64>) -> tensor<4x256xf64> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<4x256xf64>, tensor<256x256xf64>) outs(%c : tensor<4x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x256xf64>
  return %r : tensor<4x256xf64>
}

// -----

#x = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>

// A full reduction has no columns to vectorize along: left alone.
// CHECK-LABEL: func.func @dot
// CHECK: linalg.generic
// CHECK-NOT: scf.for
func.func @dot(%a: tensor<64xf64>, %b: tensor<64xf64>, %c: tensor<f64>) -> tensor<f64> {
  %r = linalg.generic {indexing_maps = [#x, #x, #s], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<64xf64>, tensor<64xf64>) outs(%c : tensor<f64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A body other than multiply-accumulate (here a recomputed difference) is
// left to the loop lowering.
// CHECK-LABEL: func.func @other_body
// CHECK: linalg.generic
// CHECK-NOT: vector.contract
func.func @other_body(%a: tensor<32x24xf64>, %b: tensor<24x32xf64>, %c: tensor<32x32xf64>) -> tensor<32x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<24x32xf64>) outs(%c : tensor<32x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %d = arith.subf %x, %y : f64
    %s = arith.addf %acc, %d : f64
    linalg.yield %s : f64
  } -> tensor<32x32xf64>
  return %r : tensor<32x32xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A column extent above the register width that it does not divide is
// split: the bulk at the full width (32: vectors of 8), then the rest in
// rounds, each a power of two or a short whole vector (5 = 4 + 1), each
// part tiled and vectorized on its own.
// CHECK-LABEL: func.func @prime_columns
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [32, 32] [1, 1] : tensor<32x37xf64> to tensor<32x32xf64>
// CHECK: vector.contract {{.*}} into vector<4x8xf64>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [32, 32] [1, 1] : tensor<32x32xf64> into tensor<32x37xf64>
// CHECK: vector.contract {{.*}} into vector<4x4xf64>
// CHECK: vector.contract {{.*}} into vector<4x1xf64>
// CHECK-NOT: linalg.generic
func.func @prime_columns(%a: tensor<32x24xf64>, %b: tensor<24x37xf64>, %c: tensor<32x37xf64>) -> tensor<32x37xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x24xf64>, tensor<24x37xf64>) outs(%c : tensor<32x37xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x37xf64>
  return %r : tensor<32x37xf64>
}

// -----

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// p = 11 columns (the CFD kernels): a vector of 11 would be widened to 16
// lanes and assembled lane by lane, so the columns are 8, then 3, peeled
// off inside the same loops. The 11 rows (no divisor up to 4) are cache
// blocks of 8 and 3, and each block register tiles of 4 rows and a rest
// (8 = 2 x 4, 3): the rests in tiles of their own rather than every tile
// one row deep. The depth (blocked: whole-depth-panel-bytes=1) is 6 + 5.
// Each statement gets its own zeroed accumulator rather than sharing one
// fill.
// CHECK-LABEL: func.func @p11_columns
// CHECK-COUNT-2: linalg.fill {{.*}} -> tensor<2x11x11xf64>
// CHECK: scf.for {{.*}} to %c6 step %c1
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x3xf64> into vector<4x3xf64>
// CHECK: vector.contract {{.*}} : vector<3x1xf64>, vector<1x8xf64> into vector<3x8xf64>
// CHECK: vector.contract {{.*}} : vector<3x1xf64>, vector<1x3xf64> into vector<3x3xf64>
// CHECK: scf.for {{.*}} to %c5 step %c1
// CHECK: vector.contract {{.*}} into vector<4x8xf64>
// CHECK: vector.contract {{.*}} into vector<3x3xf64>
// CHECK-NOT: linalg.generic
func.func @p11_columns(%u: tensor<2x11x11xf64>, %m: tensor<11x11xf64>) -> (tensor<2x11x11xf64>, tensor<2x11x11xf64>) {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<2x11x11xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<2x11x11xf64>) -> tensor<2x11x11xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<2x11x11xf64>, tensor<11x11xf64>) outs(%acc : tensor<2x11x11xf64>) {
  ^bb0(%x: f64, %y: f64, %a: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %a, %p : f64
    linalg.yield %s : f64
  } -> tensor<2x11x11xf64>
  %r2 = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%r, %m : tensor<2x11x11xf64>, tensor<11x11xf64>) outs(%acc : tensor<2x11x11xf64>) {
  ^bb0(%x: f64, %y: f64, %a: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %a, %p : f64
    linalg.yield %s : f64
  } -> tensor<2x11x11xf64>
  return %r, %r2 : tensor<2x11x11xf64>, tensor<2x11x11xf64>
}

// -----

#a = affine_map<(i, k, j, l) -> (i, k, l)>
#b = affine_map<(i, k, j, l) -> (k, l, j)>
#c = affine_map<(i, k, j, l) -> (i, j)>

// Two reductions that cannot collapse into one (they are not adjacent
// among the loops). The depth of the cache tiles is l: at least half as
// long as k (24 of 32) and a step apart in A, the rows' operand, where k
// is 24 elements apart. The other, above 16 steps, is blocked for the
// caches too (8 at a time, outermost), so that a register tile does not
// run through all of it over operand slices that leave L2.
// CHECK-LABEL: func.func @two_reductions
// CHECK-NOT: tensor.collapse_shape
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8 iter_args
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c24 step %c8 iter_args
// CHECK: vector.contract
func.func @two_reductions(%a: tensor<16x32x24xf64>, %b: tensor<32x24x16xf64>, %c: tensor<16x16xf64>) -> tensor<16x16xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x32x24xf64>, tensor<32x24x16xf64>) outs(%c : tensor<16x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x16xf64>
  return %r : tensor<16x16xf64>
}

// -----

#ra = affine_map<(i, j, k, l) -> (i, l, k)>
#rb = affine_map<(i, j, k, l) -> (k, l, j)>
#rc = affine_map<(i, j, k, l) -> (i, j)>

// Adjacent reductions of 256 terms per element, over operands whose
// elements are each used 256 times, collapse into one: a matrix product. A
// is copied with them in loop order (k, then l), both operands are
// collapsed, and the single reduction is tiled like a product's depth.
// CHECK-LABEL: func.func @collapsed_reductions
// CHECK-SAME: (%[[A:.*]]: tensor<256x16x16xf64>, %[[B:.*]]: tensor<16x16x256xf64>
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<256x16x16xf64>) {{.*}} permutation = [0, 2, 1]
// CHECK-DAG: tensor.collapse_shape %[[AT]] {{\[}}[0], [1, 2]] : tensor<256x16x16xf64> into tensor<256x256xf64>
// CHECK-DAG: tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : tensor<16x16x256xf64> into tensor<256x256xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
func.func @collapsed_reductions(%a: tensor<256x16x16xf64>, %b: tensor<16x16x256xf64>, %c: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %r = linalg.generic {indexing_maps = [#ra, #rb, #rc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<256x16x16xf64>, tensor<16x16x256xf64>) outs(%c : tensor<256x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<256x256xf64>
  return %r : tensor<256x256xf64>
}

// -----

// An operand copied for its reductions anyway gets its columns last in the
// same copy: B (j, l, k) becomes [k][l][j] in one transposition, not
// [j][k][l] and then [k][l][j] for the register tiles.
// CHECK-LABEL: func.func @collapsed_reductions_columns_last
// CHECK-SAME: (%[[A:.*]]: tensor<16x256x16xf64>, %[[B:.*]]: tensor<256x16x16xf64>
// CHECK-DAG: linalg.transpose ins(%[[A]] : tensor<16x256x16xf64>) {{.*}} permutation = [1, 0, 2]
// CHECK-DAG: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<256x16x16xf64>) {{.*}} permutation = [2, 1, 0]
// CHECK-DAG: tensor.collapse_shape %[[BT]] {{\[}}[0, 1], [2]] : tensor<16x16x256xf64> into tensor<256x256xf64>
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract
func.func @collapsed_reductions_columns_last(%a: tensor<16x256x16xf64>, %b: tensor<256x16x16xf64>, %c: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, l, j) -> (k, i, l)>, affine_map<(i, k, l, j) -> (j, l, k)>, affine_map<(i, k, l, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x256x16xf64>, tensor<256x16x16xf64>) outs(%c : tensor<256x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<256x256xf64>
  return %r : tensor<256x256xf64>
}

// -----

// TCCG ccsd6 (abcd-aefb-fdce, row-major) at prime extents: C[b][a][c][d] =
// sum over e, f of A[b][f][e][a] B[e][c][d][f], 272 terms per element. A
// is copied to [b][a][f][e], B to [f][e][c][d] (the reductions first, since
// its other dimensions c, d end the result in its order); then b and a
// collapse into the rows, f and e into the depth, c and d into the
// columns: a matrix product of 299 x 272 x 323, whose register tiles run
// along 323 columns rather than 19 (the last tile of 3 of every 19).
// CHECK-LABEL: func.func @collapsed_free_dimensions
// CHECK-SAME: (%[[A:.*]]: tensor<13x16x17x23xf64>, %[[B:.*]]: tensor<17x17x19x16xf64>
// CHECK-DAG: %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<13x16x17x23xf64>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-DAG: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<17x17x19x16xf64>) {{.*}} permutation = [3, 0, 1, 2]
// CHECK-DAG: tensor.collapse_shape %[[AT]] {{\[}}[0, 1], [2, 3]] : tensor<13x23x16x17xf64> into tensor<299x272xf64>
// CHECK-DAG: tensor.collapse_shape %[[BT]] {{\[}}[0, 1], [2, 3]] : tensor<16x17x17x19xf64> into tensor<272x323xf64>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<13x23x17x19xf64> into tensor<299x323xf64>
// CHECK: vector.contract {{.*}} : vector<4x1xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK: tensor.expand_shape {{.*}} {{\[}}[0, 1], [2, 3]] output_shape [13, 23, 17, 19] : tensor<299x323xf64> into tensor<13x23x17x19xf64>
func.func @collapsed_free_dimensions(%a: tensor<13x16x17x23xf64>, %b: tensor<17x17x19x16xf64>, %c: tensor<13x23x17x19xf64>) -> tensor<13x23x17x19xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, a, c, f, e, d) -> (b, f, e, a)>, affine_map<(b, a, c, f, e, d) -> (e, c, d, f)>, affine_map<(b, a, c, f, e, d) -> (b, a, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<13x16x17x23xf64>, tensor<17x17x19x16xf64>) outs(%c : tensor<13x23x17x19xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<13x23x17x19xf64>
  return %r : tensor<13x23x17x19xf64>
}

// -----

// The same product with B already [f][e][c][d] (the reductions first, in
// loop order): B is not copied, and the product still collapses into 299 x
// 272 x 323.
// CHECK-LABEL: func.func @collapsed_free_dimensions_in_place
// CHECK-SAME: (%{{.*}}: tensor<13x16x17x23xf64>, %[[B:.*]]: tensor<16x17x17x19xf64>
// CHECK-NOT: linalg.transpose ins(%[[B]]
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2, 3]] : tensor<16x17x17x19xf64> into tensor<272x323xf64>
// CHECK: vector.contract
func.func @collapsed_free_dimensions_in_place(%a: tensor<13x16x17x23xf64>, %b: tensor<16x17x17x19xf64>, %c: tensor<13x23x17x19xf64>) -> tensor<13x23x17x19xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, a, c, f, e, d) -> (b, f, e, a)>, affine_map<(b, a, c, f, e, d) -> (f, e, c, d)>, affine_map<(b, a, c, f, e, d) -> (b, a, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<13x16x17x23xf64>, tensor<16x17x17x19xf64>) outs(%c : tensor<13x23x17x19xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<13x23x17x19xf64>
  return %r : tensor<13x23x17x19xf64>
}

// -----

// The same product with B as [c][f][e][d]: its own layout puts the
// reductions before the columns already, but c and d, which end the result
// in its order, are apart; B is copied with the reductions first all the
// same, and the product collapses into 299 x 272 x 323 rather than keeping
// 19 columns (71 at ccsd6's size: 4.4-4.6 s -> 3.4-3.5 s on Zen 5).
// CHECK-LABEL: func.func @collapsed_free_dimensions_from_own_layout
// CHECK-SAME: (%{{.*}}: tensor<13x16x17x23xf64>, %[[B:.*]]: tensor<17x16x17x19xf64>
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<17x16x17x19xf64>) {{.*}} permutation = [1, 2, 0, 3]
// CHECK: tensor.collapse_shape %[[BT]] {{\[}}[0, 1], [2, 3]] : tensor<16x17x17x19xf64> into tensor<272x323xf64>
// CHECK: vector.contract
// CHECK: tensor.expand_shape {{.*}} {{\[}}[0, 1], [2, 3]] output_shape [13, 23, 17, 19] : tensor<299x323xf64> into tensor<13x23x17x19xf64>
func.func @collapsed_free_dimensions_from_own_layout(%a: tensor<13x16x17x23xf64>, %b: tensor<17x16x17x19xf64>, %c: tensor<13x23x17x19xf64>) -> tensor<13x23x17x19xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, a, c, f, e, d) -> (b, f, e, a)>, affine_map<(b, a, c, f, e, d) -> (c, f, e, d)>, affine_map<(b, a, c, f, e, d) -> (b, a, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<13x16x17x23xf64>, tensor<17x16x17x19xf64>) outs(%c : tensor<13x23x17x19xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<13x23x17x19xf64>
  return %r : tensor<13x23x17x19xf64>
}

// -----

// The same product into C[b][c][a][d]: neither input's other dimensions
// follow each other in the result, so only the reductions collapse, and B
// keeps its columns last ([c][f][e][d]).
// CHECK-LABEL: func.func @interleaved_free_dimensions
// CHECK-SAME: (%{{.*}}: tensor<13x16x17x23xf64>, %[[B:.*]]: tensor<17x17x19x16xf64>
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<17x17x19x16xf64>) {{.*}} permutation = [1, 3, 0, 2]
// CHECK: tensor.collapse_shape %[[BT]] {{\[}}[0], [1, 2], [3]] : tensor<17x16x17x19xf64> into tensor<17x272x19xf64>
// CHECK-NOT: tensor.collapse_shape {{.*}} into tensor<13x17x23x19xf64>
// CHECK: vector.contract
func.func @interleaved_free_dimensions(%a: tensor<13x16x17x23xf64>, %b: tensor<17x17x19x16xf64>, %c: tensor<13x17x23x19xf64>) -> tensor<13x17x23x19xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, a, c, f, e, d) -> (b, f, e, a)>, affine_map<(b, a, c, f, e, d) -> (e, c, d, f)>, affine_map<(b, a, c, f, e, d) -> (b, c, a, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<13x16x17x23xf64>, tensor<17x17x19x16xf64>) outs(%c : tensor<13x17x23x19xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<13x17x23x19xf64>
  return %r : tensor<13x17x23x19xf64>
}


// -----

#ta = affine_map<(i, k, j) -> (i, k)>
#tb = affine_map<(i, k, j) -> (k, j)>
#tc = affine_map<(i, k, j) -> (i, j)>
#swap = affine_map<(p, q) -> (q, p)>
#same = affine_map<(p, q) -> (p, q)>

// A product of few terms (k = 8) whose only use transposes it is computed
// straight into the transposed layout, tiled with its columns along i (the
// result's last dimension) and its rows along j, the rows operand first:
// no temporary, no second loop nest. The whole reduction is in each tile,
// so each register tile zeroes its own slice of the result.
// CHECK-LABEL: func.func @transposed_product
// CHECK-SAME: (%{{.*}}: tensor<32x8xf64>, %{{.*}}: tensor<8x16xf64>, %[[OUT:.*]]: tensor<16x32xf64>)
// CHECK-NOT: linalg.fill {{.*}} -> tensor<16x32xf64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[OUT]])
// CHECK: %[[ZEROED:.*]] = linalg.fill {{.*}} -> tensor<4x8xf64>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %[[ZEROED]])
// CHECK: vector.contract {{.*}} : vector<1x4xf64>, vector<1x8xf64> into vector<4x8xf64>
// CHECK-NOT: linalg.generic
func.func @transposed_product(%a: tensor<32x8xf64>, %b: tensor<8x16xf64>, %out: tensor<16x32xf64>) -> tensor<16x32xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<32x16xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<32x16xf64>) -> tensor<32x16xf64>
  %p = linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x8xf64>, tensor<8x16xf64>) outs(%acc : tensor<32x16xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<32x16xf64>
  %t = linalg.generic {indexing_maps = [#swap, #same], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<32x16xf64>) outs(%out : tensor<16x32xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<16x32xf64>
  return %t : tensor<16x32xf64>
}

// -----

#ta = affine_map<(i, k, j) -> (i, k)>
#tb = affine_map<(i, k, j) -> (k, j)>
#tc = affine_map<(i, k, j) -> (i, j)>
#swap = affine_map<(p, q) -> (q, p)>
#same = affine_map<(p, q) -> (p, q)>

// With many terms per element (k = 512) the transposition costs nothing
// next to the sums: the product keeps its layout and is tiled there, and
// the transposition stays a loop nest of its own.
// CHECK-LABEL: func.func @transposed_long_product
// CHECK: vector.contract
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @transposed_long_product(%a: tensor<32x512xf64>, %b: tensor<512x16xf64>, %out: tensor<16x32xf64>) -> tensor<16x32xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<32x16xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<32x16xf64>) -> tensor<32x16xf64>
  %p = linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x512xf64>, tensor<512x16xf64>) outs(%acc : tensor<32x16xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<32x16xf64>
  %t = linalg.generic {indexing_maps = [#swap, #same], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<32x16xf64>) outs(%out : tensor<16x32xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<16x32xf64>
  return %t : tensor<16x32xf64>
}

// -----

#ta = affine_map<(i, k, j) -> (i, k)>
#tb = affine_map<(i, k, j) -> (k, j)>
#tc = affine_map<(i, k, j) -> (i, j)>
#swap = affine_map<(p, q) -> (q, p)>
#same = affine_map<(p, q) -> (p, q)>

// Few terms again (k = 8), but computed into the transposed layout the
// columns would be i, which A has first: A (512 elements) would be copied
// for them, more than twice the 128-element result transposed after the product
// in its own layout (TTGT). So the transposition stays a loop nest of its
// own.
// CHECK-LABEL: func.func @transposed_product_of_a_large_operand
// CHECK: vector.contract {{.*}} : vector<{{[0-9]+}}x1xf64>, vector<1x2xf64> into vector<{{[0-9]+}}x2xf64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @transposed_product_of_a_large_operand(%a: tensor<64x8xf64>, %b: tensor<8x2xf64>, %out: tensor<2x64xf64>) -> tensor<2x64xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<64x2xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<64x2xf64>) -> tensor<64x2xf64>
  %p = linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<64x8xf64>, tensor<8x2xf64>) outs(%acc : tensor<64x2xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<64x2xf64>
  %t = linalg.generic {indexing_maps = [#swap, #same], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x2xf64>) outs(%out : tensor<2x64xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<2x64xf64>
  return %t : tensor<2x64xf64>
}

// -----

#fa = affine_map<(i, k, j) -> (i, k)>
#fb = affine_map<(i, k, j) -> (k, j)>
#fc = affine_map<(i, k, j) -> (i, j)>

// A reduction the cache tiles leave whole (k = 6): each register tile
// zeroes its own slice of the result right before it sums into it, in
// cache, instead of the whole result being zeroed first.
// CHECK-LABEL: func.func @fill_per_tile
// CHECK-NOT: linalg.fill
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK-COUNT-3: tensor.extract_slice
// CHECK-NEXT: %[[ZEROED:.*]] = linalg.fill {{.*}} -> tensor<4x8xf64>
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c6 step %c1 iter_args(%{{.*}} = %[[ZEROED]])
// CHECK: vector.contract
func.func @fill_per_tile(%a: tensor<8x6xf64>, %b: tensor<6x16xf64>) -> tensor<8x16xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<8x16xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<8x16xf64>) -> tensor<8x16xf64>
  %r = linalg.generic {indexing_maps = [#fa, #fb, #fc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<8x6xf64>, tensor<6x16xf64>) outs(%acc : tensor<8x16xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %t = arith.addf %s, %m : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  return %r : tensor<8x16xf64>
}

// -----

#wa = affine_map<(i, k, j) -> (i, k)>
#wb = affine_map<(i, k, j) -> (k, j)>
#wc = affine_map<(i, k, j) -> (i, j)>

// A depth above cache-depth whose panel of the columns' operand (24 x 16
// doubles) fits whole-depth-panel-bytes is not blocked: each register tile
// holds its whole reduction and zeroes its own slice. Blocked (first RUN
// line, whole-depth-panel-bytes=1) the tiles sum in three depth blocks
// into a result zeroed first.
// WHOLE-LABEL: func.func @whole_depth
// WHOLE-NOT: to %c24 step %c8
// WHOLE: linalg.fill {{.*}} -> tensor<4x8xf64>
// WHOLE-NEXT: scf.for %{{.*}} = %c0 to %c24 step %c1
// CHECK-LABEL: func.func @whole_depth
// CHECK: linalg.fill {{.*}} -> tensor<8x16xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8
func.func @whole_depth(%a: tensor<8x24xf64>, %b: tensor<24x16xf64>) -> tensor<8x16xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<8x16xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<8x16xf64>) -> tensor<8x16xf64>
  %r = linalg.generic {indexing_maps = [#wa, #wb, #wc], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<8x24xf64>, tensor<24x16xf64>) outs(%acc : tensor<8x16xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %t = arith.addf %s, %m : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  return %r : tensor<8x16xf64>
}

// -----

#ta = affine_map<(i, j) -> (i, j)>
#tb = affine_map<(i, j) -> (j, i)>
#ts = affine_map<(i, j) -> ()>

// The trace of a product: two reductions, but each element is used once
// and the result is a scalar: nothing is copied or collapsed. B is read
// across its rows, so the sum goes a line of B (8 of i) at a time, i
// innermost in the block: one line of B and eight rows of A per step of j.
// CHECK-DAG: #[[AMAP:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @trace_of_product
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.collapse_shape
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8 iter_args
// CHECK: tensor.extract_slice {{.*}} : tensor<32x32xf64> to tensor<8x32xf64>
// CHECK: tensor.extract_slice {{.*}} : tensor<32x32xf64> to tensor<32x8xf64>
// CHECK: linalg.generic {indexing_maps = [#[[AMAP]], #[[BMAP]], #{{.*}}], iterator_types = ["reduction", "reduction"]}
func.func @trace_of_product(%a: tensor<32x32xf64>, %b: tensor<32x32xf64>, %s: tensor<f64>) -> tensor<f64> {
  %r = linalg.generic {indexing_maps = [#ta, #tb, #ts], iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<32x32xf64>, tensor<32x32xf64>) outs(%s : tensor<f64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %t = arith.addf %acc, %p : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}

// -----

// A split contraction of few terms per element (4) computes both parts of
// its 11 = 8 + 3 columns in each step of a shared loop over e, the
// dimension its register tiles do not span, rather than one part over all
// of e, then the other.
// CHECK-LABEL: func.func @split_parts_share_loops
// CHECK: %[[E:.*]] = scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: vector.contract {{.*}} into vector<4x8xf64>
// CHECK: vector.contract {{.*}} into vector<4x3xf64>
// CHECK: return %[[E]]
#u = affine_map<(e, i, k, j) -> (e, i, k)>
#m = affine_map<(e, i, k, j) -> (k, j)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>
func.func @split_parts_share_loops(%u: tensor<3x8x4xf64>, %m: tensor<4x11xf64>) -> tensor<3x8x11xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<3x8x11xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<3x8x11xf64>) -> tensor<3x8x11xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<3x8x4xf64>, tensor<4x11xf64>) outs(%acc : tensor<3x8x11xf64>) {
  ^bb0(%x: f64, %y: f64, %a: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %a, %p : f64
    linalg.yield %s : f64
  } -> tensor<3x8x11xf64>
  return %r : tensor<3x8x11xf64>
}
