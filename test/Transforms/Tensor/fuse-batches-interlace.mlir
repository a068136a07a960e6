// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{min-intermediate-bytes=0 interlace=true}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{min-intermediate-bytes=0 interlace=true},canonicalize,tl-interlace-batches))" | FileCheck %s --check-prefix=ROT
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{min-intermediate-bytes=0}))" | FileCheck %s --check-prefix=OFF

// With no tl.target, the reference target: AVX-512, f64 in 8 lanes, register
// tiles 16 columns wide.

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// Two contractions over 40 elements of 5 x 5 doubles (rows of 5: 3 idle
// lanes of 8): tiled by 16 elements, the loop of whole tiles marked for
// tl-interlace-batches, and the 8 left peeled off after it, one element at
// a time.
// CHECK-LABEL: func.func @chain
// CHECK: %[[WHOLE:.*]] = scf.for %[[E:.*]] = %{{.*}} to %c32 step %c16
// CHECK: tensor.extract_slice %{{.*}}[%[[E]], 0, 0] [%c16, 5, 5]
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: } {tl.interlace_batches}
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x5x5xf64>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x5x5xf64>)
// CHECK-NOT: tl.interlace_batches
// CHECK: return

// Each slice of 16 elements transposed in, the batch last in every map and
// type of the chain, and transposed back into the result's slice.
// ROT-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
// ROT-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d0)>
// ROT-LABEL: func.func @chain
// ROT: scf.for %[[E:[a-z0-9]+]] = %{{.*}} to %c32 step %c16 iter_args(%[[DEST:[a-z0-9]+]] = %{{.*}})
// ROT: %[[U:.*]] = tensor.extract_slice %arg0[%[[E]], 0, 0] [16, 5, 5]
// ROT: %[[UT:.*]] = linalg.transpose ins(%[[U]] : tensor<16x5x5xf64>) outs(%{{.*}} : tensor<5x5x16xf64>) permutation = [1, 2, 0]
// ROT: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<5x5x16xf64>
// ROT: %[[T:.*]] = linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #[[OUT]]], {{.*}} ins(%[[UT]], %arg1 : tensor<5x5x16xf64>, tensor<5x5xf64>) outs(%[[ZEROS]] : tensor<5x5x16xf64>)
// ROT: %[[V:.*]] = tensor.extract_slice %[[DEST]][%[[E]], 0, 0] [16, 5, 5]
// ROT: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #[[OUT]]], {{.*}} ins(%[[T]], %arg1 : tensor<5x5x16xf64>, tensor<5x5xf64>)
// ROT: %[[BACK:.*]] = linalg.transpose ins(%[[R]] : tensor<5x5x16xf64>) outs(%[[V]] : tensor<16x5x5xf64>) permutation = [2, 0, 1]
// ROT: tensor.insert_slice %[[BACK]] into %[[DEST]][%[[E]], 0, 0] [16, 5, 5]
// ROT-NOT: tl.interlace_batches
// ROT: scf.for %{{.*}} = %c0 to %c8 step %c1
// ROT-NOT: linalg.transpose
// ROT: return
// OFF-LABEL: func.func @chain
// OFF-NOT: tl.interlace_batches
// OFF: return
func.func @chain(%u: tensor<40x5x5xf64>, %m: tensor<5x5xf64>) -> tensor<40x5x5xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<40x5x5xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<40x5x5xf64>) -> tensor<40x5x5xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<40x5x5xf64>, tensor<5x5xf64>) outs(%a0 : tensor<40x5x5xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x5x5xf64>
  %e1 = tensor.empty() : tensor<40x5x5xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<40x5x5xf64>) -> tensor<40x5x5xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<40x5x5xf64>, tensor<5x5xf64>) outs(%a1 : tensor<40x5x5xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x5x5xf64>
  return %r : tensor<40x5x5xf64>
}

// -----

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// A batch of run-time extent: whole tiles up to the largest multiple of 16,
// then the rest one index at a time.
// CHECK-LABEL: func.func @sized
// CHECK: %[[BULK:.*]] = affine.apply #{{.*}}()[%c0, %[[DIM:.*]], %c16]
// CHECK: scf.for %{{.*}} = %c0 to %[[BULK]] step %c16
// CHECK: } {tl.interlace_batches}
// CHECK: %[[REST:.*]] = affine.apply #{{.*}}()[%[[DIM]]]
// CHECK: scf.for %{{.*}} = %c0 to %[[REST]] step %c1
// ROT-LABEL: func.func @sized
// ROT: scf.for
// ROT: linalg.transpose {{.*}} permutation = [1, 2, 0]
// ROT: linalg.transpose {{.*}} permutation = [2, 0, 1]
// ROT: scf.for
// ROT-NOT: linalg.transpose
// ROT: return
func.func @sized(%u: tensor<?x5x5xf64>, %m: tensor<5x5xf64>) -> tensor<?x5x5xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %n = tensor.dim %u, %c0 : tensor<?x5x5xf64>
  %e0 = tensor.empty(%n) : tensor<?x5x5xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x5x5xf64>) -> tensor<?x5x5xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<?x5x5xf64>, tensor<5x5xf64>) outs(%a0 : tensor<?x5x5xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x5x5xf64>
  %e1 = tensor.empty(%n) : tensor<?x5x5xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<?x5x5xf64>) -> tensor<?x5x5xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<?x5x5xf64>, tensor<5x5xf64>) outs(%a1 : tensor<?x5x5xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x5x5xf64>
  return %r : tensor<?x5x5xf64>
}

// -----

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// One contraction: the transpositions would cost about what the idle lanes
// do; tiled as without interlacing (20 elements of 200 bytes per tile).
// CHECK-LABEL: func.func @one_contraction
// CHECK: scf.for %{{.*}} = %c0 to %c40 step %c20
// CHECK-NOT: tl.interlace_batches
// CHECK: return
func.func @one_contraction(%u: tensor<40x5x5xf64>, %m: tensor<5x5xf64>) -> tensor<40x5x5xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<40x5x5xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<40x5x5xf64>) -> tensor<40x5x5xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<40x5x5xf64>, tensor<5x5xf64>) outs(%a0 : tensor<40x5x5xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x5x5xf64>
  %e1 = tensor.empty() : tensor<40x5x5xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(e, i, j) -> (e, i, j)>, affine_map<(e, i, j) -> (e, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<40x5x5xf64>) outs(%e1 : tensor<40x5x5xf64>) {
  ^bb0(%x: f64, %out: f64):
    %s = arith.mulf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<40x5x5xf64>
  return %r : tensor<40x5x5xf64>
}

// -----

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// Rows of 8 doubles fill whole vectors: nothing to interlace.
// CHECK-LABEL: func.func @whole_vectors
// CHECK: scf.for %{{.*}} = %c0 to %c40 step %c20
// CHECK-NOT: tl.interlace_batches
// CHECK: return
func.func @whole_vectors(%u: tensor<40x5x8xf64>, %m: tensor<5x5xf64>) -> tensor<40x5x8xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<40x5x8xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<40x5x8xf64>) -> tensor<40x5x8xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<40x5x8xf64>, tensor<5x5xf64>) outs(%a0 : tensor<40x5x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x5x8xf64>
  %e1 = tensor.empty() : tensor<40x5x8xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<40x5x8xf64>) -> tensor<40x5x8xf64>
  %r = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<40x5x8xf64>, tensor<5x5xf64>) outs(%a1 : tensor<40x5x8xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<40x5x8xf64>
  return %r : tensor<40x5x8xf64>
}
