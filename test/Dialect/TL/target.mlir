// RUN: tl-opt %s --split-input-file | FileCheck %s
// RUN: tl-opt %s --split-input-file | tl-opt --split-input-file | FileCheck %s
// RUN: tl-opt %s --split-input-file --mlir-print-op-generic | tl-opt --split-input-file | FileCheck %s

// The target a module is compiled for, with its optional parameters left
// out where they have their defaults (no features, fixed-width vectors, none
// of the x86 or glibc facilities).
// CHECK: module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "a64fx", vector_bits = 512, scalable_vectors = true, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 699050, cache_line_bytes = 256, huge_pages = true>}
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu",
    cpu = "a64fx", vector_bits = 512, scalable_vectors = true,
    vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 699050,
    cache_line_bytes = 256, huge_pages = true>} {
}

// -----

// The GPU target: the statements on an sm_90, the rest of it the host.
// CHECK: #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "host", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64, vector_math_library = true, x86_sfence = true, huge_pages = true, gpu_chip = "sm_90">
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "host", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64, vector_math_library = true, x86_sfence = true, huge_pages = true, gpu_chip = "sm_90">} {
}

// -----

// One core's share of L3 (a 32 MiB L3 for 8 cores), printed where it is
// not 0.
// CHECK: #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", vector_bits = 256, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 524288, l3_cache_bytes = 4194304, cache_line_bytes = 64>
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", vector_bits = 256, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 524288, l3_cache_bytes = 4194304, cache_line_bytes = 64>} {
}
