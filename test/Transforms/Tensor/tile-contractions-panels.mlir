// The block of the columns' operand that each cache tile reads is copied
// into panels of the register tile's width ([column tile][...][16]), out of
// the loops it does not depend on, where enough rows share it; the register
// tiles read one contiguous run of 16 per depth step from them, and the
// last, partial panel holds only the columns left (83 = 5 x 16 + 3).
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// 67 rows in cache tiles of 40 and a peeled 27, which read the same panels:
// one copy.
// CHECK: #[[$PANEL_OF:.*]] = affine_map<(d0) -> (d0 floordiv 16)>
// CHECK-LABEL: func.func @prime_columns
// CHECK-SAME: (%{{.*}}: tensor<67x101xf64>, %[[B:arg[0-9]+]]: tensor<101x83xf64>,
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<6x101x16xf64>
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[B]][0, 0] [101, 80] [1, 1]
// CHECK: %[[EXPANDED:.*]] = tensor.expand_shape %[[WHOLE]] {{\[}}[0], [1, 2]] output_shape [101, 5, 16]
// CHECK: %[[MOVED:.*]] = linalg.transpose ins(%[[EXPANDED]] : tensor<101x5x16xf64>) outs(%{{.*}} : tensor<5x101x16xf64>) permutation = [1, 0, 2]
// CHECK: %[[FULL:.*]] = tensor.insert_slice %[[MOVED]] into %[[EMPTY]][0, 0, 0] [5, 101, 16] [1, 1, 1]
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[B]][0, 80] [101, 3] [1, 1]
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[FULL]][5, 0, 0] [1, 101, 3] [1, 1, 1] : tensor<6x101x16xf64> to tensor<101x3xf64>
// CHECK: %[[COPIED:.*]] = linalg.copy ins(%[[REST]] : tensor<101x3xf64>) outs(%[[SLOT]] : tensor<101x3xf64>)
// CHECK: %[[PANELS:.*]] = tensor.insert_slice %[[COPIED]] into %[[FULL]][5, 0, 0] [1, 101, 3] [1, 1, 1]
// CHECK: scf.for %{{.*}} = %c0 to %c40 step %c8
// CHECK: scf.for %[[J:.*]] = %c0 to %c80 step %c16
// CHECK: scf.for %[[K:.*]] = %c0 to %c101 step %c1
// CHECK: %[[PANEL:.*]] = affine.apply #[[$PANEL_OF]](%[[J]])
// CHECK: tensor.extract_slice %[[PANELS]][%[[PANEL]], %[[K]], 0] [1, 1, 16] [1, 1, 1] : tensor<6x101x16xf64> to tensor<1x16xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: tensor.extract_slice %[[PANELS]][5, %{{.*}}, 0] [1, 1, 3] [1, 1, 1] : tensor<6x101x16xf64> to tensor<1x3xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x3xf64> into vector<8x3xf64>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.copy
// CHECK: tensor.extract_slice %[[PANELS]][%{{.*}}, %{{.*}}, 0] [1, 1, 16] [1, 1, 1] : tensor<6x101x16xf64> to tensor<1x16xf64>
// CHECK: vector.contract {{.*}} : vector<3x1xf64>, vector<1x16xf64> into vector<3x16xf64>
// CHECK-NOT: linalg.generic
// CHECK: return
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[40,0,0] register=[8,1,16] {{.*}} split=none panels=in1{{$}}
func.func @prime_columns(%a: tensor<67x101xf64>, %b: tensor<101x83xf64>, %c: tensor<67x83xf64>) -> tensor<67x83xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<67x101xf64>, tensor<101x83xf64>) outs(%c : tensor<67x83xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<67x83xf64>
  return %r : tensor<67x83xf64>
}

// -----

#a = affine_map<(e, i, f, k, j) -> (e, i, k)>
#b = affine_map<(e, i, f, k, j) -> (f, k, j)>
#c = affine_map<(e, i, f, k, j) -> (e, i, f, j)>

// B's other dimension (f) is kept in the panels; they are copied once,
// before every loop, and shared by the 5 x 13 rows.
// CHECK-LABEL: func.func @other_dimension_of_the_operand
// CHECK-SAME: %[[B:arg[0-9]+]]: tensor<7x37x32xf64>,
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x7x37x16xf64>
// CHECK: %[[EXPANDED:.*]] = tensor.expand_shape %[[B]] {{\[}}[0], [1], [2, 3]] output_shape [7, 37, 2, 16]
// CHECK: %[[PANELS:.*]] = linalg.transpose ins(%[[EXPANDED]] : tensor<7x37x2x16xf64>) outs(%[[EMPTY]] : tensor<2x7x37x16xf64>) permutation = [2, 0, 1, 3]
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1
// CHECK: scf.for %[[F:.*]] = %c0 to %c7 step %c1
// CHECK: scf.for %[[J:.*]] = %c0 to %c32 step %c16
// CHECK: scf.for %[[K:.*]] = %c0 to %c37 step %c1
// CHECK: %[[PANEL:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: tensor.extract_slice %[[PANELS]][%[[PANEL]], %[[F]], %[[K]], 0] [1, 1, 1, 16] [1, 1, 1, 1] : tensor<2x7x37x16xf64> to tensor<1x1x16xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract {{.*}} : vector<5x1xf64>, vector<1x16xf64> into vector<5x16xf64>
// CHECK-NOT: linalg.generic
// REMARK: remark: tiling plan: rows=d1 columns=d4 depth=d3 {{.*}} split=none panels=in1{{$}}
func.func @other_dimension_of_the_operand(%a: tensor<5x13x37xf64>, %b: tensor<7x37x32xf64>, %c: tensor<5x13x7x32xf64>) -> tensor<5x13x7x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<5x13x37xf64>, tensor<7x37x32xf64>) outs(%c : tensor<5x13x7x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<5x13x7x32xf64>
  return %r : tensor<5x13x7x32xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// 61 rows share each element of B: too few for the copy to pay; the
// register tiles read B where it is.
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.copy
// CHECK: vector.contract
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 {{.*}} split=none{{$}}
func.func @few_rows(%a: tensor<61x101xf64>, %b: tensor<101x83xf64>, %c: tensor<61x83xf64>) -> tensor<61x83xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<61x101xf64>, tensor<101x83xf64>) outs(%c : tensor<61x83xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<61x83xf64>
  return %r : tensor<61x83xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// 16 columns are one panel: B's rows are contiguous runs of 16 already.
// CHECK-LABEL: func.func @one_panel_of_columns
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.copy
// CHECK: vector.contract
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 {{.*}} split=none{{$}}
func.func @one_panel_of_columns(%a: tensor<257x101xf64>, %b: tensor<101x16xf64>, %c: tensor<257x16xf64>) -> tensor<257x16xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<257x101xf64>, tensor<101x16xf64>) outs(%c : tensor<257x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<257x16xf64>
  return %r : tensor<257x16xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Two contractions with the same columns' operand, whole in their cache
// tiles, and register tiles of the same width: they share its panels.
// CHECK-LABEL: func.func @shared_operand
// CHECK: %[[PANELS:.*]] = linalg.transpose
// CHECK-NOT: linalg.transpose
// CHECK: tensor.extract_slice %[[PANELS]]
// CHECK: tensor.extract_slice %[[PANELS]]
// CHECK: return
func.func @shared_operand(%a: tensor<64x101xf64>, %a2: tensor<96x101xf64>, %b: tensor<101x32xf64>, %c: tensor<64x32xf64>, %c2: tensor<96x32xf64>) -> (tensor<64x32xf64>, tensor<96x32xf64>) {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<64x101xf64>, tensor<101x32xf64>) outs(%c : tensor<64x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<64x32xf64>
  %r2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a2, %b : tensor<96x101xf64>, tensor<101x32xf64>) outs(%c2 : tensor<96x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<96x32xf64>
  return %r, %r2 : tensor<64x32xf64>, tensor<96x32xf64>
}

// -----

#a = affine_map<(i, b, c, k, j) -> (i, k)>
#b = affine_map<(i, b, c, k, j) -> (b, c, k, j)>
#c = affine_map<(i, b, c, k, j) -> (i, b, c, j)>

// Every dimension of the 3.6 MB block is one of B's: the register tiles
// read it once, from memory; a copy would be two more passes through
// memory (TCCG abcd-eb-aecd). Nor are the rows cut into blocks (40 and 31
// of a 64-row block): the loops over b and c run inside each block of rows,
// which would read all of B once per block.
// CHECK-LABEL: func.func @large_block_read_once
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract
// REMARK: remark: tiling plan: rows=d0 columns=d4 depth=d3 cache=[0,0,0,0,0] {{.*}} split=none{{$}}
func.func @large_block_read_once(%a: tensor<71x71xf64>, %b: tensor<9x9x71x71xf64>, %c: tensor<71x9x9x71xf64>) -> tensor<71x9x9x71xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<71x71xf64>, tensor<9x9x71x71xf64>) outs(%c : tensor<71x9x9x71xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<71x9x9x71xf64>
  return %r : tensor<71x9x9x71xf64>
}

// -----

#a = affine_map<(e, i, f, k, j) -> (e, i, k)>
#b = affine_map<(e, i, f, k, j) -> (f, k, j)>
#c = affine_map<(e, i, f, k, j) -> (e, i, f, j)>

// A 655 KB block, more than half of L2, read whole once per step of e (8):
// its panels are copied once for all of them (TCCG ccsd6).
// CHECK-LABEL: func.func @large_block_read_per_step
// CHECK: tensor.empty() : tensor<2x40x64x16xf64>
// CHECK: linalg.transpose
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract
// REMARK: remark: tiling plan: rows=d1 columns=d4 depth=d3 cache=[0,0,0,0,0] {{.*}} split=none panels=in1{{$}}
func.func @large_block_read_per_step(%a: tensor<8x13x64xf64>, %b: tensor<40x64x32xf64>, %c: tensor<8x13x40x32xf64>) -> tensor<8x13x40x32xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<8x13x64xf64>, tensor<40x64x32xf64>) outs(%c : tensor<8x13x40x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x13x40x32xf64>
  return %r : tensor<8x13x40x32xf64>
}
