// An operand with the columns elsewhere than last, too large to transpose
// whole and too little reused to repay it, whose last dimension is a batch
// (TCCG abcde-ecbfa-fd: C[e,d,c,b,a] = A[a,f,b,c,e] B[d,f]) is packed:
// each cache tile (one step of every other batch dimension, runs of the
// packed one) copies its block of the operand with the columns last, inside
// the batch loops, and its register tiles read the copy.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#a = affine_map<(a, b, c, e, f, d) -> (a, f, b, c, e)>
#b = affine_map<(a, b, c, e, f, d) -> (d, f)>
#c = affine_map<(a, b, c, e, f, d) -> (e, d, c, b, a)>

// A: 65,536 elements (above the 32,768 always transposed), 8 uses each.
// CHECK-LABEL: func.func @packed_batch_last
// CHECK:       scf.for {{.*}} -> (tensor<16x8x4x4x16xf64>)
// CHECK:         scf.for {{.*}} -> (tensor<16x8x4x4x16xf64>)
// CHECK:           %[[BLOCK:.*]] = tensor.extract_slice %{{.*}}[0, 0, %{{.*}}, %{{.*}}, 0] [16, 16, 1, 1, 16] [1, 1, 1, 1, 1] : tensor<16x16x4x4x16xf64> to tensor<16x16x1x1x16xf64>
// CHECK:           %[[PACKED:.*]] = linalg.transpose ins(%[[BLOCK]] : tensor<16x16x1x1x16xf64>) outs(%{{.*}} : tensor<16x1x1x16x16xf64>) permutation = [1, 2, 3, 4, 0]
// CHECK:           vector.contract
// CHECK-NOT:   linalg.transpose
// REMARK: remark: tiling plan: rows=d5 columns=d0 depth=d4 cache=[0,1,1,0,0,0] {{.*}} split=none pack=in0{{$}}
func.func @packed_batch_last(%a: tensor<16x16x4x4x16xf64>, %b: tensor<8x16xf64>) -> tensor<16x8x4x4x16xf64> {
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<16x8x4x4x16xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%init : tensor<16x8x4x4x16xf64>) -> tensor<16x8x4x4x16xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x16x4x4x16xf64>, tensor<8x16xf64>) outs(%fill : tensor<16x8x4x4x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x8x4x4x16xf64>
  return %r : tensor<16x8x4x4x16xf64>
}

// -----

#a = affine_map<(a, b, c, e, f, d) -> (a, f, b, c, e)>
#b = affine_map<(a, b, c, e, f, d) -> (d, f)>
#c = affine_map<(a, b, c, e, f, d) -> (e, d, c, b, a)>

// The same with A small enough (16,384 elements) to be transposed whole,
// once, before the loops.
// CHECK-LABEL: func.func @small_transposed_whole
// CHECK:       linalg.transpose ins(%{{.*}} : tensor<16x16x2x4x16xf64>)
// CHECK:       scf.for
// CHECK-NOT:   linalg.transpose
// REMARK: remark: tiling plan: {{.*}} split=none{{$}}
func.func @small_transposed_whole(%a: tensor<16x16x2x4x16xf64>, %b: tensor<8x16xf64>) -> tensor<16x8x4x2x16xf64> {
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<16x8x4x2x16xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%init : tensor<16x8x4x2x16xf64>) -> tensor<16x8x4x2x16xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x16x2x4x16xf64>, tensor<8x16xf64>) outs(%fill : tensor<16x8x4x2x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x8x4x2x16xf64>
  return %r : tensor<16x8x4x2x16xf64>
}

// -----

#a = affine_map<(a, b, c, e, f, d) -> (a, f, b, c, e)>
#b = affine_map<(a, b, c, e, f, d) -> (d, f)>
#c = affine_map<(a, b, c, e, f, d) -> (e, d, c, b, a)>

// The same with every extent a size: A serves one use per step of d, 16
// with the sizes as short as kShortExtentOfSize (1280 at planning extents,
// which would transpose it whole). Its sized blocks are packed in the
// cache tiles, with extents known at run time.
// CHECK-LABEL: func.func @sized_packed
// CHECK-NOT:   linalg.transpose ins(%arg0
// CHECK:       scf.for
// CHECK:       %[[PACKED:.*]] = linalg.transpose ins(%{{.*}} : tensor<?x256x1x1x?xf64>) outs(%{{.*}} : tensor<256x1x1x?x?xf64>) permutation = [1, 2, 3, 4, 0]
// CHECK:       vector.contract
// The versions for short sizes (at most 512 each at run time) block the
// columns by one register tile, 24 or 16 (the planned extents would take
// them whole, and the block is then up to 16^3 times larger at run time).
// REMARK: remark: tiling plan: rows=d5 columns=d0 depth=d4 cache=[24,1,1,0,0,0] register=[24,1,1,1,1,6] {{.*}} pack=in0 sized=d0,d1,d2,d3,d4,d5 (edges padded; planned as 24)
// REMARK: remark: tiling plan: rows=d5 columns=d0 depth=d4 cache=[16,1,1,0,0,0] register=[16,1,1,1,1,8] {{.*}} pack=in0 sized=d0,d1,d2,d3,d4,d5 (edges padded; planned as 32)
// REMARK: remark: tiling plan: rows=d5 columns=d0 depth=d4 {{.*}} pack=in0 sized=d0,d1,d2,d3,d4,d5 (edges padded)
func.func @sized_packed(%a: tensor<?x?x?x?x?xf64>, %b: tensor<?x?xf64>, %init: tensor<?x?x?x?x?xf64>) -> tensor<?x?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%init : tensor<?x?x?x?x?xf64>) -> tensor<?x?x?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?x?x?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?x?xf64>
  return %r : tensor<?x?x?x?x?xf64>
}
