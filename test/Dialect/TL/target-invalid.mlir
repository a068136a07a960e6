// RUN: tl-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown target triple 'tpu-unknown-none'}}
module attributes {tl.target = #tl.target<triple = "tpu-unknown-none", cpu = "generic", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 64>} {
}

// -----

// expected-error @+1 {{l1_cache_bytes must be positive, got 0}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "generic", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 0, l2_cache_bytes = 262144, cache_line_bytes = 64>} {
}

// -----

// expected-error @+1 {{l3_cache_bytes must not be negative, got -1}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "generic", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 262144, l3_cache_bytes = -1, cache_line_bytes = 64>} {
}

// -----

// expected-error @+1 {{cache_line_bytes must be a power of two, got 48}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "generic", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 48>} {
}

// -----

// expected-error @+1 {{scalable vectors are AArch64's SVE, a multiple of 128 bits; got 512 bits on 'x86_64-unknown-linux-gnu'}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "generic", vector_bits = 512, scalable_vectors = true, vector_registers = 32, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 64>} {
}

// -----

// expected-error @+1 {{x86_sfence on the non-x86 target 'aarch64-unknown-linux-gnu'}}
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "generic", vector_bits = 128, vector_registers = 32, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 64, x86_sfence = true>} {
}

// -----

// expected-error @+1 {{the target needs a CPU name}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 64>} {
}

// -----

// expected-error @+1 {{'tl.target' must be a #tl.target attribute}}
module attributes {tl.target = "aarch64-linux-gnu"} {
}

// -----

module {
  // expected-error @+1 {{'tl.target' belongs on a builtin.module}}
  func.func @f() attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "generic", vector_bits = 128, vector_registers = 16, l1_cache_bytes = 32768, l2_cache_bytes = 262144, cache_line_bytes = 64>} {
    return
  }
}

// -----

// expected-error @+1 {{unknown GPU chip 'volta' (expected sm_NN, such as sm_90)}}
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "host", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64, gpu_chip = "volta">} {
}
