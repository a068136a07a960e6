// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=8 register-columns=16 vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{register-rows=8 register-columns=16}))" | FileCheck %s --check-prefix=SPLIT

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// 72 columns, where the preferred width is two registers of 8 (16): three
// registers (24) divide them, so the register tiles are 24 wide, and 6
// rows deep (of 12: 18 accumulators, 3 vectors of columns and a broadcast
// per row fit AVX-512's 32 registers, 8 rows would not). Without
// vector-lanes, the columns are split in 64 and 8.
// CHECK-LABEL: func.func @three_registers
// CHECK-NOT: tensor.extract_slice %{{.*}}[0, 0] [12, 64]
// CHECK: vector.contract {{.*}} : vector<6x1xf64>, vector<1x24xf64> into vector<6x24xf64>
// CHECK-NOT: vector.contract
// SPLIT-LABEL: func.func @three_registers
// SPLIT-DAG: vector.contract {{.*}} into vector<{{[0-9]+}}x16xf64>
// SPLIT-DAG: vector.contract {{.*}} into vector<{{[0-9]+}}x8xf64>
func.func @three_registers(%a: tensor<12x32xf64>, %b: tensor<32x72xf64>, %c: tensor<12x72xf64>) -> tensor<12x72xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<12x32xf64>, tensor<32x72xf64>) outs(%c : tensor<12x72xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<12x72xf64>
  return %r : tensor<12x72xf64>
}

// -----

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// 64 columns: the preferred width divides them, and stays.
// CHECK-LABEL: func.func @two_registers
// CHECK: vector.contract {{.*}} into vector<8x16xf64>
func.func @two_registers(%a: tensor<16x32xf64>, %b: tensor<32x64xf64>, %c: tensor<16x64xf64>) -> tensor<16x64xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<16x32xf64>, tensor<32x64xf64>) outs(%c : tensor<16x64xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<16x64xf64>
  return %r : tensor<16x64xf64>
}
