// The passes that depend on the machine read it from the module's
// #tl.target, so that a test states its target in the IR; a nonzero option
// still overrides it.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-registers=16 l2-cache-bytes=262144 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS
// The target picks the planner; the option overrides it.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{planner=cpu emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{planner=gpu}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: tl-opt %s --split-input-file --tl-vector-math-library | FileCheck %s --check-prefix=MATH
// RUN: tl-opt %s --split-input-file --tl-huge-page-temporaries | FileCheck %s --check-prefix=PAGES

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A64FX: 512-bit SVE, 64 KiB of L1, its share of L2, 256-byte lines. The
// aarch64 planner's register tiles: 10 rows of two vectors (6 of 16
// registers), where the cpu planner takes 8.
// TILES: remark: target: 512-bit SVE vectors x 32, L1 64 KiB, L2 682 KiB, lines of 256 B; planner aarch64, for 64-bit elements: 8 lanes, register tile 10x16
// OPTIONS: remark: target: 512-bit SVE vectors x 16, L1 64 KiB, L2 256 KiB, lines of 256 B; planner aarch64, for 64-bit elements: 8 lanes, register tile 6x16
// CPU: remark: target: 512-bit SVE vectors x 32, L1 64 KiB, L2 682 KiB, lines of 256 B; planner cpu, for 64-bit elements: 8 lanes, register tile 8x16
// UNKNOWN: error: tl-tile-contractions: no planner 'gpu' (known: aarch64, cpu)
// Only glibc on x86-64 has libmvec, and the target says it has not.
// MATH-LABEL: func.func @gemm
// MATH: math.exp %{{.*}} : vector<8xf64>
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "a64fx", vector_bits = 512, scalable_vectors = true, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 699050, cache_line_bytes = 256, huge_pages = true>} {
func.func @gemm(%a: tensor<128x64xf64>, %b: tensor<64x256xf64>, %c: tensor<128x256xf64>, %v: vector<8xf64>) -> (tensor<128x256xf64>, vector<8xf64>) {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<128x64xf64>, tensor<64x256xf64>) outs(%c : tensor<128x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<128x256xf64>
  %e = math.exp %v : vector<8xf64>
  return %r, %e : tensor<128x256xf64>, vector<8xf64>
}
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// Neoverse V2 (NVIDIA Grace): 128-bit NEON, 32 registers: 6 rows of four
// vectors (the cpu planner: 8 rows of two).
// TILES: remark: target: 128-bit vectors x 32, L1 64 KiB, L2 1024 KiB, lines of 64 B; planner aarch64, for 64-bit elements: 2 lanes, register tile 6x8
// TILES: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache={{\[}}{{[0-9]+}},0,0] register=[6,1,8]
// CPU: remark: target: 128-bit vectors x 32, L1 64 KiB, L2 1024 KiB, lines of 64 B; planner cpu, for 64-bit elements: 2 lanes, register tile 8x4
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "neoverse-v2", vector_bits = 128, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 1048576, cache_line_bytes = 64, huge_pages = true>} {
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
}

// -----

// An x86-64 glibc target calls libmvec.
// MATH-LABEL: func.func @vectors
// MATH: call @_ZGVeN8v_exp
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64, vector_math_library = true, x86_sfence = true, huge_pages = true>} {
func.func @vectors(%v: vector<8xf64>) -> vector<8xf64> {
  %e = math.exp %v : vector<8xf64>
  return %e : vector<8xf64>
}
}

// -----

// Huge pages are advised on Linux only: a macOS target keeps malloc.
// PAGES-LABEL: llvm.func @temporaries
// PAGES: llvm.call @malloc
// PAGES-NOT: malloc_huge_pages
module attributes {tl.target = #tl.target<triple = "arm64-apple-macosx", cpu = "apple-m1", vector_bits = 128, vector_registers = 32, l1_cache_bytes = 131072, l2_cache_bytes = 4194304, cache_line_bytes = 128>} {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @temporaries() {
    %size = llvm.mlir.constant(16777216 : i64) : i64
    %block = llvm.call @malloc(%size) : (i64) -> !llvm.ptr
    llvm.return
  }
}
