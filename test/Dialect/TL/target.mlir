// RUN: tl-opt %s | FileCheck %s
// RUN: tl-opt %s | tl-opt | FileCheck %s
// RUN: tl-opt %s --mlir-print-op-generic | tl-opt | FileCheck %s

// The target a module is compiled for, with its optional parameters left
// out where they have their defaults (no features, fixed-width vectors, none
// of the x86 or glibc facilities).
// CHECK: module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "a64fx", vector_bits = 512, scalable_vectors = true, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 699050, cache_line_bytes = 256, huge_pages = true>}
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu",
    cpu = "a64fx", vector_bits = 512, scalable_vectors = true,
    vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 699050,
    cache_line_bytes = 256, huge_pages = true>} {
}
