// RUN: tl-opt %s --tl-vector-math-library | FileCheck %s

// Vector exp and log of 128, 256 and 512 bits call glibc's libmvec under
// the x86-64 vector function ABI names; one declaration per function.
// CHECK-DAG: func.func private @_ZGVeN8v_exp(vector<8xf64>) -> vector<8xf64>
// CHECK-DAG: func.func private @_ZGVdN4v_log(vector<4xf64>) -> vector<4xf64>
// CHECK-DAG: func.func private @_ZGVeN16v_expf(vector<16xf32>) -> vector<16xf32>
// CHECK-DAG: func.func private @_ZGVbN4v_logf(vector<4xf32>) -> vector<4xf32>
// CHECK-LABEL: func.func @vectors(
// CHECK-NEXT: %[[E1:.*]] = call @_ZGVeN8v_exp(%arg0) : (vector<8xf64>) -> vector<8xf64>
// CHECK-NEXT: %[[E2:.*]] = call @_ZGVeN8v_exp(%[[E1]]) : (vector<8xf64>) -> vector<8xf64>
// CHECK-NEXT: call @_ZGVdN4v_log(%arg1)
// CHECK-NEXT: call @_ZGVeN16v_expf(%arg2)
// CHECK-NEXT: call @_ZGVbN4v_logf(%arg3)
func.func @vectors(%a: vector<8xf64>, %b: vector<4xf64>, %c: vector<16xf32>,
                   %d: vector<4xf32>) -> (vector<8xf64>, vector<4xf64>,
                                          vector<16xf32>, vector<4xf32>) {
  %0 = math.exp %a : vector<8xf64>
  %1 = math.exp %0 : vector<8xf64>
  %2 = math.log %b : vector<4xf64>
  %3 = math.exp %c : vector<16xf32>
  %4 = math.log %d : vector<4xf32>
  return %1, %2, %3, %4 : vector<8xf64>, vector<4xf64>, vector<16xf32>, vector<4xf32>
}

// Scalars, widths libmvec lacks and 2-D vectors keep their math ops, and so
// do the functions that have instructions (sqrt).
// CHECK-LABEL: func.func @unchanged(
// CHECK-NEXT: math.exp %{{.*}} : f64
// CHECK-NEXT: math.exp %{{.*}} : vector<3xf64>
// CHECK-NEXT: math.log %{{.*}} : vector<16xf64>
// CHECK-NEXT: math.exp %{{.*}} : vector<2x4xf64>
// CHECK-NEXT: math.sqrt %{{.*}} : vector<8xf64>
func.func @unchanged(%a: f64, %b: vector<3xf64>, %c: vector<16xf64>,
                     %d: vector<2x4xf64>, %e: vector<8xf64>) {
  %0 = math.exp %a : f64
  %1 = math.exp %b : vector<3xf64>
  %2 = math.log %c : vector<16xf64>
  %3 = math.exp %d : vector<2x4xf64>
  %4 = math.sqrt %e : vector<8xf64>
  return
}
