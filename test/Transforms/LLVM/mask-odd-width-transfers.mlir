// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-mask-odd-width-transfers))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-mask-odd-width-transfers{force=true}))" | FileCheck %s --check-prefix=FORCE

// On AVX-512, an in-bounds row of 11 f32 (a register tile of K5F) is
// loaded and stored as masked vectors of 16: one instruction each. Rows of
// a power of two, of fewer than 3 lanes, or past a register (9 f64 would
// need 16 x 64 bits), and transfers that may leave the memref, stay.
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 49152, l2_cache_bytes = 1048576, cache_line_bytes = 64>} {
func.func @rows(%a: memref<11x11xf32>, %b: memref<4x9xf64>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %padd = arith.constant 0.0 : f64
  %row = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<11x11xf32>, vector<11xf32>
  %sum = arith.addf %row, %row : vector<11xf32>
  vector.transfer_write %sum, %a[%i, %c0] {in_bounds = [true]} : vector<11xf32>, memref<11x11xf32>
  %eight = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<11x11xf32>, vector<8xf32>
  vector.transfer_write %eight, %a[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<11x11xf32>
  %two = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<11x11xf32>, vector<2xf32>
  vector.transfer_write %two, %a[%i, %c0] {in_bounds = [true]} : vector<2xf32>, memref<11x11xf32>
  %nine = vector.transfer_read %b[%c0, %c0], %padd {in_bounds = [true]} : memref<4x9xf64>, vector<9xf64>
  vector.transfer_write %nine, %b[%c0, %c0] {in_bounds = [true]} : vector<9xf64>, memref<4x9xf64>
  %maybe = vector.transfer_read %a[%i, %i], %pad : memref<11x11xf32>, vector<11xf32>
  vector.transfer_write %maybe, %a[%i, %i] : vector<11xf32>, memref<11x11xf32>
  return
}
}
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[A:.*]]: memref<11x11xf32>, %[[B:.*]]: memref<4x9xf64>, %[[I:.*]]: index)
// CHECK: %[[MASK:.*]] = vector.constant_mask [11] : vector<16xi1>
// CHECK: %[[PASS:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[WIDE:.*]] = vector.maskedload %[[A]][%[[I]], %{{.*}}], %[[MASK]], %[[PASS]] : memref<11x11xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[ROW:.*]] = vector.extract_strided_slice %[[WIDE]] {offsets = [0], sizes = [11], strides = [1]} : vector<16xf32> to vector<11xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ROW]], %[[ROW]] : vector<11xf32>
// CHECK: %[[WMASK:.*]] = vector.constant_mask [11] : vector<16xi1>
// CHECK: %[[OUT:.*]] = vector.insert_strided_slice %[[SUM]], %{{.*}} {offsets = [0], strides = [1]} : vector<11xf32> into vector<16xf32>
// CHECK: vector.maskedstore %[[A]][%[[I]], %{{.*}}], %[[WMASK]], %[[OUT]] : memref<11x11xf32>, vector<16xi1>, vector<16xf32>
// CHECK: vector.transfer_read {{.*}} vector<8xf32>
// CHECK: vector.transfer_write {{.*}} vector<8xf32>
// CHECK: vector.transfer_read {{.*}} vector<2xf32>
// CHECK: vector.transfer_write {{.*}} vector<2xf32>
// CHECK: vector.transfer_read {{.*}} vector<9xf64>
// CHECK: vector.transfer_write {{.*}} vector<9xf64>
// CHECK: vector.transfer_read {{.*}} vector<11xf32>
// CHECK: vector.transfer_write {{.*}} vector<11xf32>

// -----

// Other targets keep their transfers: AVX2's masked moves are slower than
// the pieces, NEON has none. (force rewrites them anyway.)
module attributes {tl.target = #tl.target<triple = "aarch64-unknown-linux-gnu", cpu = "neoverse-v2", vector_bits = 128, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 1048576, cache_line_bytes = 64>} {
func.func @neon(%a: memref<4x3xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %row = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<4x3xf32>, vector<3xf32>
  vector.transfer_write %row, %a[%i, %c0] {in_bounds = [true]} : vector<3xf32>, memref<4x3xf32>
  return
}
}
// CHECK-LABEL: func.func @neon
// CHECK-NOT: vector.masked
// FORCE-LABEL: func.func @neon
// FORCE: vector.maskedload {{.*}} vector<4xf32>
// FORCE: vector.maskedstore {{.*}} vector<4xf32>

// -----

// 512-bit vectors on another architecture do not make them AVX-512.
module attributes {tl.target = #tl.target<triple = "riscv64-unknown-linux-gnu", cpu = "generic-rv64", vector_bits = 512, vector_registers = 32, l1_cache_bytes = 65536, l2_cache_bytes = 1048576, cache_line_bytes = 64>} {
func.func @riscv(%a: memref<4x11xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %row = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<4x11xf32>, vector<11xf32>
  vector.transfer_write %row, %a[%i, %c0] {in_bounds = [true]} : vector<11xf32>, memref<4x11xf32>
  return
}
}
// CHECK-LABEL: func.func @riscv
// CHECK-NOT: vector.masked
// FORCE-LABEL: func.func @riscv
// FORCE: vector.maskedload {{.*}} vector<16xf32>
