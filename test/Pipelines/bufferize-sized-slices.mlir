// RUN: tl-opt %s --tl-bufferize | FileCheck %s

// Before bufferizing, the minimums that a loop's bounds decide are folded
// (scf-for-loop-canonicalization): in a loop of single steps over a size,
// min(n - i, 1) is 1. One-shot bufferization compares slices such as
// these to find those that are the same, and an unfolded minimum makes
// each comparison follow it back through every enclosing loop
// (docs/robustness.md: seconds for a sized TCCG program).
// CHECK-LABEL: func.func @rows
// CHECK-NOT:   affine.min
// CHECK:       scf.for %[[I:.*]] =
// CHECK-NOT:     affine.min
// CHECK:         memref.subview %{{.*}}[%[[I]], 0] [1, %{{.*}}] [1, 1]
// CHECK-NOT:   affine.min
// CHECK:       return
#min = affine_map<(i)[n] -> (n - i, 1)>
func.func @rows(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %n = tensor.dim %a, %c0 : tensor<?x?xf64>
  %m = tensor.dim %a, %c1 : tensor<?x?xf64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<?x?xf64>) {
    %rows = affine.min #min(%i)[%n]
    %row = tensor.extract_slice %acc[%i, 0] [%rows, %m] [1, 1] : tensor<?x?xf64> to tensor<?x?xf64>
    %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%row : tensor<?x?xf64>) {
    ^bb0(%x: f64):
      %y = arith.mulf %x, %two : f64
      linalg.yield %y : f64
    } -> tensor<?x?xf64>
    %next = tensor.insert_slice %scaled into %acc[%i, 0] [%rows, %m] [1, 1] : tensor<?x?xf64> into tensor<?x?xf64>
    scf.yield %next : tensor<?x?xf64>
  }
  return %r : tensor<?x?xf64>
}
