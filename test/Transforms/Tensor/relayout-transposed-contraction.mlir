// A contraction whose transposition stays after it (folding would pack its
// largest input for the columns) computes into the layout whose last
// dimension is its largest input's last, and the transposition copies from
// that layout; where the own layout reads that input in place already, or
// the input's last dimension is a reduction, nothing changes.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8}))" | FileCheck %s

// TCCG abc-bda-dc: C[c][b][a] = sum_d A[a][d][b] B[c][d]. The own layout
// is [a][b][c]; the relaid one [a][c][b], and the copy reads it as
// (p, q, r) -> (r, p, q): C[p][q][r] = T[r][p][q].
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[RELAID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK-DAG: #[[WRITE:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @relaid
// CHECK: %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<40x3x40xf64>
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[RELAID]]]{{.*}} outs(%[[FILL]] : tensor<40x3x40xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[READ]], #[[WRITE]]]{{.*}} ins(%[[T]] : tensor<40x3x40xf64>) outs(%{{.*}} : tensor<3x40x40xf64>) attrs = {{.*}}tl.kept_transposition
func.func @relaid(%a: tensor<40x40x40xf64>, %b: tensor<3x40xf64>, %out: tensor<3x40x40xf64>) -> tensor<3x40x40xf64> {
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

// -----

// TCCG abc-dca-bd's shape, C[b][c][a] = sum_d A[a][c][d] B[d][b]: A's last
// dimension is the reduction; the contraction keeps its own layout.
// CHECK-LABEL: func.func @largest_input_ends_in_a_reduction
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<40x40x3xf64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<40x40x3xf64>) outs(%{{.*}} : tensor<3x40x40xf64>) {
func.func @largest_input_ends_in_a_reduction(%a: tensor<40x40x40xf64>, %b: tensor<40x3xf64>, %out: tensor<3x40x40xf64>) -> tensor<3x40x40xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<40x40x3xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<40x40x3xf64>) -> tensor<40x40x3xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(a, c, b, d) -> (a, c, d)>, affine_map<(a, c, b, d) -> (d, b)>, affine_map<(a, c, b, d) -> (a, c, b)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x40x40xf64>, tensor<40x3xf64>) outs(%acc : tensor<40x40x3xf64>) {
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
