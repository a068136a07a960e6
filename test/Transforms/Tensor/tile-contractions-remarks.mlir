// The plans of tl-tile-contractions, as its `emit-remarks` prints them (tiles
// per loop dimension, 0: whole; loop orders outermost first), for AVX-512
// (8 doubles, 16 floats per register) and AVX2 (4 doubles), and why it
// leaves other reductions alone.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=16 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32
// A Haswell-like core (AVX2, L1 32 KiB, L2 256 KiB): the same register
// tiles, smaller cache tiles (a 256-step depth block of 64 columns is half
// of L2).
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=262144 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HASWELL
// Without emit-remarks, nothing is said.
// RUN: tl-opt %s --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8}))" -o /dev/null 2>&1 | count 0

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Extents that divide: 8 x 16 register tiles (on AVX2, 8 x 8), cache tiles of
// 64 rows; all 256 columns and the whole depth (64 x 256 doubles, 128 KiB)
// in one cache tile.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[64,0,0] register=[8,1,16] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none
// AVX2's 16 registers hold 6 rows of two vectors; 128 = 21 x 6 + 2 rows
// (tiles of 4, 8 accumulators, would leave the FMA units waiting), in
// cache blocks of 48 rows and the 32 left, the last register tile of
// each 2 rows, peeled off inside the same loops.
// AVX512: remark: target: 512-bit vectors x 32, L1 48 KiB, L2 1024 KiB, lines of 64 B; planner cpu, for 64-bit elements: 8 lanes, register tile 8x16, cache tile 64x256x256, whole depth up to 262144 B
// AVX2: remark: target: 256-bit vectors x 16, L1 48 KiB, L2 1024 KiB, lines of 64 B; planner cpu, for 64-bit elements: 4 lanes, register tile 6x8, cache tile 64x256x256, whole depth up to 262144 B
// AVX2: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[48,0,0] register=[6,1,8] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none
// HASWELL: remark: target: 256-bit vectors x 16, L1 32 KiB, L2 256 KiB, lines of 64 B; planner cpu, for 64-bit elements: 4 lanes, register tile 6x8, cache tile 16x64x256, whole depth up to 65536 B
// HASWELL: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[12,0,64] register=[6,1,8] {{.*}} split=none
func.func @gemm(%a: tensor<128x64xf64>, %b: tensor<64x256xf64>, %c: tensor<128x256xf64>) -> tensor<128x256xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<128x64xf64>, tensor<64x256xf64>) outs(%c : tensor<128x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<128x256xf64>
  return %r : tensor<128x256xf64>
}

// 71 x 23 x 37, all prime: no tile size divides them, and none has to.
// The columns are two register tiles of 16 and a rest of 5 (one vector),
// the rows cache blocks of 40 (71 = 40 + 31) in register tiles of 8 and a
// rest of 7 (40 = 5 x 8, 31 = 3 x 8 + 7): each rest peeled off inside the
// same loops, a tile of its own, rather than every tile one row deep or
// a second contraction over the operands. On AVX2 a rest of 5 columns is
// no whole vector: the columns are split at 32 first, and the 5 left are
// register tiles of 4 and a rest of 1.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[40,0,0] register=[8,1,16] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none
// AVX512-NOT: split=d
// AVX2: remark: tiling plan: {{.*}} split=d2@32
// AVX2: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[36,0,0] register=[6,1,8] {{.*}} split=none
// AVX2: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[36,0,0] register=[6,1,4] {{.*}} split=none
func.func @prime(%a: tensor<71x23xf64>, %b: tensor<23x37xf64>) -> tensor<71x37xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<71x37xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<71x37xf64>) -> tensor<71x37xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<71x23xf64>, tensor<23x37xf64>) outs(%c : tensor<71x37xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<71x37xf64>
  return %r : tensor<71x37xf64>
}

// 72 columns: three AVX-512 registers (24) divide them, in tiles at most 6
// rows deep; AVX2's two registers (8) divide them already.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,0] register=[6,1,24] {{.*}} split=none
// AVX2: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,0] register=[6,1,8] {{.*}} split=none
func.func @three_registers(%a: tensor<24x32xf64>, %b: tensor<32x72xf64>, %c: tensor<24x72xf64>) -> tensor<24x72xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<24x32xf64>, tensor<32x72xf64>) outs(%c : tensor<24x72xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<24x72xf64>
  return %r : tensor<24x72xf64>
}

// f32 with 16 lanes: register tiles two registers (32 floats) wide, cache
// tiles of 128 rows (of 256 steps of 4 bytes: an eighth of L2); the depth
// panel (512 x 128 floats, 256 KiB) still fits whole.
// F32: remark: target: 512-bit vectors x 32, L1 48 KiB, L2 1024 KiB, lines of 64 B; planner cpu, for 32-bit elements: 16 lanes, register tile 8x32, cache tile 128x512x256, whole depth up to 262144 B
// F32: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,0] register=[8,1,32] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none
func.func @gemm_f32(%a: tensor<96x512xf32>, %b: tensor<512x128xf32>, %c: tensor<96x128xf32>) -> tensor<96x128xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<96x512xf32>, tensor<512x128xf32>) outs(%c : tensor<96x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<96x128xf32>
  return %r : tensor<96x128xf32>
}

// A depth blocked for the caches (its panel, 311 x 128 doubles, exceeds
// 256 KiB) with no divisor near 256: two blocks of 156 and 155, the last
// peeled off inside the same loops. A depth of 5041 = 71 x 71 has no
// divisor within three quarters of 256 either: 20 blocks of 253 (and one
// of 234) rather than 71 of 71, each of which reads and writes the
// result tile once more.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,156,0] register=[8,1,16] {{.*}} split=none
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,253,0] register=[8,1,16] {{.*}} split=none
func.func @prime_depth(%a: tensor<32x311xf64>, %b: tensor<311x128xf64>, %c: tensor<32x128xf64>) -> tensor<32x128xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x311xf64>, tensor<311x128xf64>) outs(%c : tensor<32x128xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x128xf64>
  return %r : tensor<32x128xf64>
}
func.func @square_depth(%a: tensor<8x5041xf64>, %b: tensor<5041x16xf64>, %c: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<8x5041xf64>, tensor<5041x16xf64>) outs(%c : tensor<8x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x16xf64>
  return %r : tensor<8x16xf64>
}

// With a result larger than L2 (here 1 MiB beyond four whole-depth panels),
// every depth block reads and writes it once more: blocks of 79 of 5135 =
// 5 x 13 x 79 would double that traffic, so the depth is in 21 blocks of
// 245 (the last 235, peeled).
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[64,245,256] {{.*}} split=none panels=in1
func.func @long_depth_large_result(%a: tensor<512x5135xf64>, %b: tensor<5135x512xf64>, %c: tensor<512x512xf64>) -> tensor<512x512xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<512x5135xf64>, tensor<5135x512xf64>) outs(%c : tensor<512x512xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<512x512xf64>
  return %r : tensor<512x512xf64>
}

// Rows many times the tallest tile (645 = 3 x 5 x 43): tiles of 8 rows,
// in cache blocks of 64, and the 5 left one tile in a block of their own,
// rather than tiles of 5 throughout (which stay where the rows are few: 15
// = 3 x 5 rows are tiles of 5).
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[64,0,0] register=[8,1,16] {{.*}} split=none
func.func @many_rows(%a: tensor<645x64xf64>, %b: tensor<64x256xf64>, %c: tensor<645x256xf64>) -> tensor<645x256xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<645x64xf64>, tensor<64x256xf64>) outs(%c : tensor<645x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<645x256xf64>
  return %r : tensor<645x256xf64>
}

// A second reduction (l, 19 steps) above 16 with no divisor up to 8: blocks
// of 7, 7 and 5.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,0,7] register=[8,1,16,1] {{.*}} split=none
func.func @prime_second_reduction(%a: tensor<16x40x19xf64>, %b: tensor<40x19x32xf64>, %c: tensor<16x32xf64>) -> tensor<16x32xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j, l) -> (i, k, l)>, affine_map<(i, k, j, l) -> (k, l, j)>, affine_map<(i, k, j, l) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x40x19xf64>, tensor<40x19x32xf64>) outs(%c : tensor<16x32xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x32xf64>
  return %r : tensor<16x32xf64>
}

// A transposition of a product of few terms is folded into it where the
// folded product copies at most twice the result for its columns; here
// the folded product's columns (i) are A's first dimension, and A (512
// elements) is more than twice the result (128): TTGT, the product in its own
// layout, then the transposition.
// AVX512: remark: transposition kept after its contraction: the transposed contraction would copy 512 operand elements, more than twice what transposing the result after it would (128)
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 {{.*}} split=none
func.func @transposed_product_ttgt(%a: tensor<64x8xf64>, %b: tensor<8x2xf64>, %out: tensor<2x64xf64>) -> tensor<2x64xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<64x2xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<64x2xf64>) -> tensor<64x2xf64>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<64x8xf64>, tensor<8x2xf64>) outs(%acc : tensor<64x2xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<64x2xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q) -> (q, p)>, affine_map<(p, q) -> (p, q)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x2xf64>) outs(%out : tensor<2x64xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<2x64xf64>
  return %t : tensor<2x64xf64>
}

// The same with a wide B (2 x 64 both ways): folded, computed straight into
// the transposed layout (A, 512 elements, copied for the columns, against
// a 4096-element result).
// AVX512: remark: transposition folded into its contraction
func.func @transposed_product_folded(%a: tensor<64x8xf64>, %b: tensor<8x64xf64>, %out: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<64x64xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<64x64xf64>) -> tensor<64x64xf64>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<64x8xf64>, tensor<8x64xf64>) outs(%acc : tensor<64x64xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<64x64xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q) -> (q, p)>, affine_map<(p, q) -> (p, q)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x64xf64>) outs(%out : tensor<64x64xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<64x64xf64>
  return %t : tensor<64x64xf64>
}

// Of more terms per element (300), a transposition is folded only where the
// folded product copies strictly less: here its columns (i) are last in A
// already and it copies nothing, where the product in its own layout copies
// B (2400 elements) for its columns (j) and transposes the result (128).
// AVX512: remark: transposition folded into its contraction
func.func @transposed_long_product_folded(%a: tensor<300x16xf64>, %b: tensor<8x300xf64>, %out: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<16x8xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<16x8xf64>) -> tensor<16x8xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, i)>, affine_map<(i, k, j) -> (j, k)>, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<300x16xf64>, tensor<8x300xf64>) outs(%acc : tensor<16x8xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<16x8xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q) -> (q, p)>, affine_map<(p, q) -> (p, q)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x8xf64>) outs(%out : tensor<8x16xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<8x16xf64>
  return %t : tensor<8x16xf64>
}

// The same number of terms where folding would copy A (4800 elements, its
// columns i first) against a 3200-element result transposed after: within
// twice, which a product of few terms would fold, but not fewer.
// AVX512: remark: transposition kept after its contraction: the contraction sums too many terms per element, and the transposed contraction would copy 4800 operand elements, no fewer than transposing the result after it would (3200)
func.func @transposed_long_product_kept(%a: tensor<16x300xf64>, %b: tensor<300x200xf64>, %out: tensor<200x16xf64>) -> tensor<200x16xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<16x200xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<16x200xf64>) -> tensor<16x200xf64>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x300xf64>, tensor<300x200xf64>) outs(%acc : tensor<16x200xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<16x200xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q) -> (q, p)>, affine_map<(p, q) -> (p, q)>], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16x200xf64>) outs(%out : tensor<200x16xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<200x16xf64>
  return %t : tensor<200x16xf64>
}

// TCCG abc-bda-dc's shape, C[c][b][a] = sum_d A[a][d][b] B[c][d]: folded,
// the columns (a) are A's first dimension, and A (64000 elements) is
// packed a cache block at a time (pack=in0). The packing transposes
// every block all the same, and counts for half of A: more than twice the
// result (4800) and B's copy (120) when the contraction keeps its own
// layout. (On Zen 5 at TCCG's sizes: 0.041 s folded, 0.025 s kept.)
// Kept, the contraction computes into [a][c][b] rather than [a][b][c]:
// its columns are then A's rows (b, d1), read in place, where its own
// layout broadcast A across them (rows of b, a line per depth step) and
// copied B for the columns c.
// AVX512: remark: transposition kept after its contraction (the transposed contraction would copy 32000 operand elements, more than twice what transposing the result after it would (4920)); the contraction computes into the layout that reads its largest input in place for its columns
// AVX512: remark: tiling plan: rows=d2 columns=d1 depth=d3
func.func @transposed_product_packed_kept(%a: tensor<40x40x40xf64>, %b: tensor<3x40xf64>, %out: tensor<3x40x40xf64>) -> tensor<3x40x40xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<40x40x3xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<40x40x3xf64>) -> tensor<40x40x3xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, d, b)>, affine_map<(a, b, c, d) -> (c, d)>, affine_map<(a, b, c, d) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x40x40xf64>, tensor<3x40xf64>) outs(%acc : tensor<40x40x3xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<40x40x3xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q, r) -> (r, q, p)>, affine_map<(p, q, r) -> (p, q, r)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<40x40x3xf64>) outs(%out : tensor<3x40x40xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<3x40x40xf64>
  return %t : tensor<3x40x40xf64>
}

// The same with 24 rows of B: the result (38400 elements) is as large as
// half of A, and the contraction is folded, A packed.
// AVX512: remark: transposition folded into its contraction
// AVX512: remark: tiling plan: {{.*}} pack=in0
func.func @transposed_product_packed_folded(%a: tensor<40x40x40xf64>, %b: tensor<24x40xf64>, %out: tensor<24x40x40xf64>) -> tensor<24x40x40xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<40x40x24xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<40x40x24xf64>) -> tensor<40x40x24xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, d, b)>, affine_map<(a, b, c, d) -> (c, d)>, affine_map<(a, b, c, d) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x40x40xf64>, tensor<24x40xf64>) outs(%acc : tensor<40x40x24xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<40x40x24xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q, r) -> (r, q, p)>, affine_map<(p, q, r) -> (p, q, r)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<40x40x24xf64>) outs(%out : tensor<24x40x40xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<24x40x40xf64>
  return %t : tensor<24x40x40xf64>
}

// Refused: a reduction that does not multiply and add.
// AVX512: remark: not tiled: the body is not a multiply-accumulate (out + in0 * in1)
func.func @row_max(%a: tensor<16x32xf64>, %c: tensor<16xf64>) -> tensor<16xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x32xf64>) outs(%c : tensor<16xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.maximumf %acc, %x : f64
    linalg.yield %s : f64
  } -> tensor<16xf64>
  return %r : tensor<16xf64>
}

// Sized extents (here the rows) are planned as long ones; the partial
// tiles at their edges are padded at run time.
// AVX512: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[64,0,0] register=[8,1,16] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none sized=d0 (edges padded)
func.func @dynamic(%a: tensor<?x32xf64>, %b: tensor<32x16xf64>, %c: tensor<?x16xf64>) -> tensor<?x16xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x32xf64>, tensor<32x16xf64>) outs(%c : tensor<?x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x16xf64>
  return %r : tensor<?x16xf64>
}

// Refused: B has the columns (j) first, is too large to copy (65536
// doubles), and each element is used only 4 times.
// AVX512: remark: not tiled: no unit-stride column operand: input 1 has the columns (d2) elsewhere than last and is too large (65536 elements) and too little reused (4 uses per element) to transpose
func.func @strided_columns(%a: tensor<4x16xf64>, %b: tensor<4096x16xf64>, %c: tensor<4x4096xf64>) -> tensor<4x4096xf64> {
  %r = linalg.generic {indexing_maps = [#a, affine_map<(i, k, j) -> (j, k)>, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<4x16xf64>, tensor<4096x16xf64>) outs(%c : tensor<4x4096xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4096xf64>
  return %r : tensor<4x4096xf64>
}

// The same B used 32 times per element: it is copied with the columns last
// (a copy read 32 times costs little next to the untiled loop nest, 5-15x
// slower), and the contraction is tiled.
// AVX512: remarks.mlir:[[@LINE+2]]:8: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,256] register=[8,1,16] cache-order=[d2,d1,d0] register-order=[d0,d2,d1] split=none
func.func @strided_columns_reused(%a: tensor<32x16xf64>, %b: tensor<4096x16xf64>, %c: tensor<32x4096xf64>) -> tensor<32x4096xf64> {
  %r = linalg.generic {indexing_maps = [#a, affine_map<(i, k, j) -> (j, k)>, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<32x16xf64>, tensor<4096x16xf64>) outs(%c : tensor<32x4096xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<32x4096xf64>
  return %r : tensor<32x4096xf64>
}

// A batch of one step runs nothing inside the blocks of rows: the 128 rows
// are cut into blocks of 64 as in a plain product (a batch of more steps,
// whole at the cache level, would keep them whole:
// tile-contractions-panels.mlir, @large_block_read_once).
#ua = affine_map<(u, i, k, j) -> (u, i, k)>
#ub = affine_map<(u, i, k, j) -> (k, j)>
#uc = affine_map<(u, i, k, j) -> (u, i, j)>
// AVX512: remark: tiling plan: rows=d1 columns=d3 depth=d2 cache=[0,64,0,0] register=[1,8,1,16] {{.*}} split=none
func.func @gemm_unit_batch(%a: tensor<1x128x64xf64>, %b: tensor<64x256xf64>, %c: tensor<1x128x256xf64>) -> tensor<1x128x256xf64> {
  %r = linalg.generic {indexing_maps = [#ua, #ub, #uc], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<1x128x64xf64>, tensor<64x256xf64>) outs(%c : tensor<1x128x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<1x128x256xf64>
  return %r : tensor<1x128x256xf64>
}


#depth_a = affine_map<(c, a, b, e, d) -> (c, e, d, a)>
#depth_b = affine_map<(c, a, b, e, d) -> (d, b, e)>
#depth_c = affine_map<(c, a, b, e, d) -> (c, a, b)>

// Two reductions as long as each other (TCCG abc-adec-ebd): the depth is
// d (d4), whose steps are 24 elements apart in A, the rows' operand; e's
// are 576 apart, a line (and at TCCG's extents a page) per step.
// AVX512: remark: tiling plan: rows=d1 columns=d2 depth=d4
func.func @depth_closest_in_rows(%x: tensor<8x24x24x24xf64>, %y: tensor<24x24x24xf64>, %z: tensor<8x24x24xf64>) -> tensor<8x24x24xf64> {
  %r = linalg.generic {indexing_maps = [#depth_a, #depth_b, #depth_c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %y : tensor<8x24x24x24xf64>, tensor<24x24x24xf64>) outs(%z : tensor<8x24x24xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<8x24x24xf64>
  return %r : tensor<8x24x24xf64>
}

// The same, with d less than half as long as e (8 of 24): the depth is e
// (d3), the longest; each register tile's accumulators would be loaded
// and stored every 8 steps along d.
// AVX512: remark: tiling plan: rows=d1 columns=d2 depth=d3
func.func @depth_longest(%x: tensor<8x24x8x24xf64>, %y: tensor<8x24x24xf64>, %z: tensor<8x24x24xf64>) -> tensor<8x24x24xf64> {
  %r = linalg.generic {indexing_maps = [#depth_a, #depth_b, #depth_c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %y : tensor<8x24x8x24xf64>, tensor<8x24x24xf64>) outs(%z : tensor<8x24x24xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<8x24x24xf64>
  return %r : tensor<8x24x24xf64>
}

// d exactly half as long as e (12 of 24) still counts: the depth is d.
// AVX512: remark: tiling plan: rows=d1 columns=d2 depth=d4
func.func @depth_half_as_long(%x: tensor<8x24x12x24xf64>, %y: tensor<12x24x24xf64>, %z: tensor<8x24x24xf64>) -> tensor<8x24x24xf64> {
  %r = linalg.generic {indexing_maps = [#depth_a, #depth_b, #depth_c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %y : tensor<8x24x12x24xf64>, tensor<12x24x24xf64>) outs(%z : tensor<8x24x24xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<8x24x24xf64>
  return %r : tensor<8x24x24xf64>
}
