// With one core's share of L3 in the target (BLIS's blocks), the columns'
// block takes half of it rather than half of L2, and the rows' block beside
// such a block half of L2: the rows' operand is then copied into panels of
// rows (each row tile serves a hundred column tiles) and the columns' into
// panels (each element serves a hundred rows). AVX2 (6 x 8 register tiles),
// 32 KiB L1, 512 KiB L2, 4 MiB of L3 a core: depth blocks of 256 steps
// (here 253 = 1009 / 4), so 2 MiB / (256 x 8 B) = 1024 columns at most
// (2496 = 3 x 832), and 512 KiB / 2 / (256 x 8 B) = 128 rows at most (211
// = 108 + 103). Without an L3, blocks of 104 columns and 30 rows, no
// panels of rows. Prime extents; the last 7 columns are a contraction of
// their own.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-L3
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288 l3-cache-bytes=4194304 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=L3
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288 l3-cache-bytes=4194304}))" | FileCheck %s --check-prefix=IR
// A 2 MiB L2 (an Intel Xeon of the Emerald Rapids generation: AVX-512, 48
// KiB L1, 5 MiB of L3 a core) holds blocks of 512 columns, 32 register
// tiles of 16, wide enough for panels of rows (24 tiles or more): no L3
// blocks, the plan of the L2 rule, as without the L3 (rows 211, a prime, in
// two blocks of at most 2 MiB / 8 / (256 x 8 B) = 128, 106 rounded up to
// 8s = 112; depth 1009, a prime, in four blocks, 253; columns 2503 in five
// blocks of at most 512, 501 rounded up to 16s = 512). The old rule's L3
// blocks would be 1024 columns (2.5 MiB / (256 x 8 B), a power of two).
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l1-cache-bytes=49152 l2-cache-bytes=2097152 l3-cache-bytes=5242880 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE-L2
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l1-cache-bytes=49152 l2-cache-bytes=2097152 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE-L2

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// NO-L3: remark: target: 256-bit vectors x 16, L1 32 KiB, L2 512 KiB, lines of 64 B; {{.*}} cache tile 32x128x256
// NO-L3: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[30,253,104] register=[6,1,8] {{.*}} split=none panels=in1{{$}}
// L3: remark: target: 256-bit vectors x 16, L1 32 KiB, L2 512 KiB, L3 4096 KiB a core, lines of 64 B; {{.*}} cache tile 32x1024x256
// L3: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[] {{.*}} split=d2@2496
// L3: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[108,253,832] register=[6,1,8] {{.*}} split=none panels=in1 row-panels=in0{{$}}
// L3: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[30,0,0] register=[6,1,4] {{.*}} split=none panels=in1{{$}}
// WIDE-L2: remark: target: 512-bit vectors x 32, L1 48 KiB, L2 2048 KiB, {{(L3 5120 KiB a core, )?}}lines of 64 B; {{.*}} cache tile 128x512x256
// WIDE-L2: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[112,253,512] register=[8,1,16] {{.*}} split=none panels=in1 row-panels=in0{{$}}
// IR-LABEL: func.func @wide
// The columns' block in 104 panels of 8 columns, the rows' blocks (108
// rows, then the 103 after them) in 18 panels of 6 rows each.
// IR: tensor.empty() : tensor<104x253x8xf64>
// IR: tensor.empty() : tensor<18x253x6xf64>
// IR: scf.for %{{.*}} = %c0 to %c2496 step %c832
// IR: scf.for %{{.*}} = %c0 to %c759 step %c253
// IR: scf.for %{{.*}} = %c0 to %c108 step %c6
func.func @wide(%a: tensor<211x1009xf64>, %b: tensor<1009x2503xf64>, %c: tensor<211x2503xf64>) -> tensor<211x2503xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<211x1009xf64>, tensor<1009x2503xf64>) outs(%c : tensor<211x2503xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<211x2503xf64>
  return %r : tensor<211x2503xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// The share of L3 read from the module's target, as every pass reads the
// target: the same plan without the option.
// NO-L3: remark: target: 256-bit vectors x 16, L1 32 KiB, L2 512 KiB, L3 4096 KiB a core, lines of 64 B;
// NO-L3: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[108,253,832] register=[6,1,8] {{.*}} split=none panels=in1 row-panels=in0{{$}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", vector_bits = 256, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 524288, l3_cache_bytes = 4194304, cache_line_bytes = 64>} {
func.func @wide_from_target(%a: tensor<211x1009xf64>, %b: tensor<1009x2503xf64>, %c: tensor<211x2503xf64>) -> tensor<211x2503xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<211x1009xf64>, tensor<1009x2503xf64>) outs(%c : tensor<211x2503xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<211x2503xf64>
  return %r : tensor<211x2503xf64>
}
}

// -----

// A transposition of a contraction of many terms (TCCG ccsd6 abcd-aecf-fbed
// at 71) is weighed against the contraction in its own layout as it tiles,
// with its reductions collapsed: there its rows (c, a) and columns (d, b)
// collapse too, into a product of 5041 x 5041 x 5041 whose blocks with L3
// copy both operands into panels. The folded contraction keeps columns of
// 71, cut at 64, and no panels of rows: the transposition is kept after the
// product. Its blocks as in @wide: depth 5041 / 20 = 253 (252.05 rounded up
// to a whole step); with L3 at most 1024 columns, 5041 / 5 = 1008.2 rounded
// up to 8s = 1016, rows at most 128: 126 = 21 x 6 (40 blocks, one row left);
// without L3 the L2 rule's 128 columns and 30 rows.
// NO-L3: remark: transposition kept after its contraction: the contraction sums too many terms per element, and the transposed contraction would read its columns without the panels the contraction in its own layout copies them into
// NO-L3: remark: tiling plan: rows=d0 columns=d1 depth=d2 cache=[30,128,253] register=[6,8,1] {{.*}} split=none panels=in1{{$}}
// L3: remark: transposition kept after its contraction: the contraction sums too many terms per element, and the transposed contraction would read its columns and rows without the panels the contraction in its own layout copies them into
// L3: remark: tiling plan: rows=d0 columns=d1 depth=d2 cache=[126,1016,253] register=[6,8,1] {{.*}} split=none panels=in1 row-panels=in0{{$}}
// The operands copied and collapsed, the product's column blocks, and the
// transposition of its result after it.
// IR-LABEL: func.func @ccsd6_transposed
// IR-COUNT-2: tensor.collapse_shape {{.*}} into tensor<5041x5041xf64>
// IR: scf.for %{{.*}} = %c0 to %c4064 step %c1016
// IR: tensor.expand_shape {{.*}} output_shape [71, 71, 71, 71] : tensor<5041x5041xf64> into tensor<71x71x71x71xf64>
// IR-NEXT: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
func.func @ccsd6_transposed(%a: tensor<71x71x71x71xf64>, %b: tensor<71x71x71x71xf64>, %out: tensor<71x71x71x71xf64>) -> tensor<71x71x71x71xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<71x71x71x71xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<71x71x71x71xf64>) -> tensor<71x71x71x71xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(c, a, d, e, f, b) -> (e, c, f, a)>, affine_map<(c, a, d, e, f, b) -> (d, f, b, e)>, affine_map<(c, a, d, e, f, b) -> (c, a, d, b)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<71x71x71x71xf64>, tensor<71x71x71x71xf64>) outs(%acc : tensor<71x71x71x71xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<71x71x71x71xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q, r, s) -> (q, s, p, r)>, affine_map<(p, q, r, s) -> (p, q, r, s)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<71x71x71x71xf64>) outs(%out : tensor<71x71x71x71xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<71x71x71x71xf64>
  return %t : tensor<71x71x71x71xf64>
}
