// A cache tile's block of the rows' operand is copied into panels of the
// register tile's rows, [row tile][depth][8], where its rows are a page or
// more apart and at least 24 register tiles of columns read each of them:
// the register tile then broadcasts its rows' elements for each depth
// step from one line (Goto's packed A). A target with a 2 MiB L2 (blocks
// of up to 512 columns); prime extents: 67 rows (8 panels of 8 and one of
// 3), depth blocks of 174 and 173, 401 = 25 x 16 + 1 columns.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l2-cache-bytes=2097152}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l2-cache-bytes=2097152 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Rows of A 521 doubles (4168 B) apart, 25 register tiles of columns.
// CHECK-LABEL: func.func @rows_apart_prime
// CHECK: %[[WHOLE:.*]] = tensor.empty() : tensor<8x174x8xf64>
// CHECK: %[[EXPANDED:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [8, 8, 174] : tensor<64x174xf64> into tensor<8x8x174xf64>
// CHECK: linalg.transpose ins(%[[EXPANDED]] : tensor<8x8x174xf64>) outs(%[[WHOLE]] : tensor<8x174x8xf64>) permutation = [0, 2, 1]
// The last 3 rows in a ninth panel.
// CHECK: %[[LAST:.*]] = tensor.extract_slice %{{.*}}[8, 0, 0] [1, 174, 3] [1, 1, 1] : tensor<9x174x8xf64> to tensor<174x3xf64>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<3x174xf64>) outs(%[[LAST]] : tensor<174x3xf64>) permutation = [1, 0]
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c400 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c174 step %c1
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, 0] [1, 1, 8] [1, 1, 1] : tensor<9x174x8xf64> to tensor<1x8xf64>
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: tensor.extract_slice %{{.*}}[8, %{{.*}}, 0] [1, 1, 3] [1, 1, 1] : tensor<9x174x8xf64> to tensor<1x3xf64>
// CHECK: vector.contract {{.*}} : vector<1x3xf64>, vector<1x16xf64> into vector<3x16xf64>
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,174,0] register=[8,1,16] {{.*}} split=none panels=in1 row-panels=in0{{$}}
func.func @rows_apart_prime(%a: tensor<67x521xf64>, %b: tensor<521x401xf64>, %c: tensor<67x401xf64>) -> tensor<67x401xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<67x521xf64>, tensor<521x401xf64>) outs(%c : tensor<67x401xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<67x401xf64>
  return %r : tensor<67x401xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// The same rows 496 doubles (3968 B) apart, less than a page: A is read
// where it is.
// CHECK-LABEL: func.func @rows_less_than_a_page_apart
// CHECK-NOT: output_shape [{{[0-9]+}}, 8, {{[0-9]+}}]
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// REMARK: remark: tiling plan: rows=d0 columns=d2 {{.*}} split=none panels=in1{{$}}
func.func @rows_less_than_a_page_apart(%a: tensor<67x496xf64>, %b: tensor<496x401xf64>, %c: tensor<67x401xf64>) -> tensor<67x401xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<67x496xf64>, tensor<496x401xf64>) outs(%c : tensor<67x401xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<67x401xf64>
  return %r : tensor<67x401xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Rows far apart but 17 register tiles of columns (263 = 16 x 16 + 7):
// too few reads of each panel to repay the copy.
// CHECK-LABEL: func.func @too_few_columns
// CHECK-NOT: output_shape [{{[0-9]+}}, 8, {{[0-9]+}}]
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// REMARK: remark: tiling plan: rows=d0 columns=d2 {{.*}} split=none panels=in1{{$}}
func.func @too_few_columns(%a: tensor<67x521xf64>, %b: tensor<521x263xf64>, %c: tensor<67x263xf64>) -> tensor<67x263xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<67x521xf64>, tensor<521x263xf64>) outs(%c : tensor<67x263xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<67x263xf64>
  return %r : tensor<67x263xf64>
}

// -----

#a = affine_map<(j, i, k, b) -> (k, j)>
#b = affine_map<(j, i, k, b) -> (b, i, k)>
#c = affine_map<(j, i, k, b) -> (b, i, j)>

// The rows' operand has a batch that the columns' lacks (TCCG ccsd6 with
// its transposition folded): the panels of all 5 batches would be 5 x 67
// rows, more than a row block of this L2 (128), so the batch is stepped
// one at a time inside the depth blocks, each step copying its own rows'
// panels; the columns' panels, which do not depend on the batch, are
// copied once per depth block, outside the batch's loop.
// CHECK-LABEL: func.func @batch_of_row_panels
// CHECK: scf.for %{{.*}} = %c0 to %c348 step %c174
// CHECK: linalg.transpose ins(%{{.*}} : tensor<174x25x16xf64>) outs(%{{.*}} : tensor<25x174x16xf64>)
// CHECK-NOT: linalg.transpose
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x8x8x174xf64>) outs(%{{.*}} : tensor<8x1x174x8xf64>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x174xf64>) outs(%{{.*}} : tensor<1x174x3xf64>)
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x16xf64> into vector<8x16xf64>
// REMARK: remark: tiling plan: rows=d1 columns=d0 depth=d2 cache=[0,0,174,1] register=[16,8,1,1] cache-order=[d0,d2,d3,d1] register-order=[d3,d1,d0,d2] split=none panels=in0 row-panels=in1{{$}}
func.func @batch_of_row_panels(%a: tensor<521x401xf64>, %b: tensor<5x67x521xf64>, %c: tensor<5x67x401xf64>) -> tensor<5x67x401xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<521x401xf64>, tensor<5x67x521xf64>) outs(%c : tensor<5x67x401xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<5x67x401xf64>
  return %r : tensor<5x67x401xf64>
}

// -----

#a = affine_map<(j, i, k, b) -> (k, j)>
#b = affine_map<(j, i, k, b) -> (b, i, k)>
#c = affine_map<(j, i, k, b) -> (b, i, j)>

// 2 x 61 rows fit a row block: the panels of both batches are copied at
// once, and the register tiles step through the batch.
// CHECK-LABEL: func.func @batch_rows_within_a_row_block
// CHECK: scf.for %{{.*}} = %c0 to %c348 step %c174
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x7x8x174xf64>) outs(%{{.*}} : tensor<7x2x174x8xf64>)
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// REMARK: remark: tiling plan: rows=d1 columns=d0 depth=d2 cache=[0,0,174,0] register=[16,8,1,1] cache-order=[d3,d0,d2,d1] register-order=[d3,d1,d0,d2] split=none panels=in0 row-panels=in1{{$}}
func.func @batch_rows_within_a_row_block(%a: tensor<521x401xf64>, %b: tensor<2x61x521xf64>, %c: tensor<2x61x401xf64>) -> tensor<2x61x401xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<521x401xf64>, tensor<2x61x521xf64>) outs(%c : tensor<2x61x401xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<2x61x401xf64>
  return %r : tensor<2x61x401xf64>
}
