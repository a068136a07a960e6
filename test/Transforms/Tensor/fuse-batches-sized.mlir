// A batch of run-time extent (a program's size): the root is tiled by one
// batch index, alone or with its chain, whatever the intermediate bytes,
// so that every op in the loop is static.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches{threads=2}))" | FileCheck %s --check-prefix=PAR
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fuse-batches),canonicalize)" | FileCheck %s --check-prefix=CANON

#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>

// CHECK-LABEL: func.func @sized_chain
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<?x4x4xf64>)
// CHECK: tensor.extract_slice %{{.*}}[%[[E]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<?x4x4xf64> to tensor<1x4x4xf64>
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[FIRST]], %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>) outs(%{{.*}} : tensor<1x4x4xf64>)
// CHECK: tensor.insert_slice {{.*}} into %[[OUT]][%[[E]], 0, 0] [1, 4, 4]
// CHECK-NOT: linalg.generic
// CHECK: return
// With threads: a share of ceil(E / 2) indices per thread, then one slice
// at a time within the share.
// PAR-LABEL: func.func @sized_chain
// PAR: %[[SHARE:.*]] = arith.ceildivui %{{.*}}, %c2 : index
// PAR: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (%[[SHARE]]) shared_outs
// PAR: scf.for
// PAR: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>)
func.func @sized_chain(%u: tensor<?x4x4xf64>, %m: tensor<4x4xf64>, %n: index) -> tensor<?x4x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<?x4x4xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x4x4xf64>) -> tensor<?x4x4xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<?x4x4xf64>, tensor<4x4xf64>) outs(%a0 : tensor<?x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x4x4xf64>
  %e1 = tensor.empty(%n) : tensor<?x4x4xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<?x4x4xf64>) -> tensor<?x4x4xf64>
  %v = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<?x4x4xf64>, tensor<4x4xf64>) outs(%a1 : tensor<?x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x4x4xf64>
  return %v : tensor<?x4x4xf64>
}

// -----

// Alone: one contraction over the elements.
// CHECK-LABEL: func.func @sized_alone
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf64>, tensor<4x4xf64>) outs(%{{.*}} : tensor<1x4x4xf64>)
#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>
func.func @sized_alone(%u: tensor<?x4x4xf64>, %m: tensor<4x4xf64>, %n: index) -> tensor<?x4x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<?x4x4xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x4x4xf64>) -> tensor<?x4x4xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<?x4x4xf64>, tensor<4x4xf64>) outs(%a0 : tensor<?x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x4x4xf64>
  return %t : tensor<?x4x4xf64>
}

// -----

// A matrix product whose rows are a size: one row per batch index would
// read all of B (512 KiB, beyond any L1) for each row. It is left whole,
// for tl-tile-contractions to tile as a sized contraction, as a product of
// fixed rows would be.
// CHECK-LABEL: func.func @sized_rows_large_operand
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x256xf64>, tensor<256x256xf64>) outs(%{{.*}} : tensor<?x256xf64>)
// CHECK-NOT: scf.for
// CHECK: return
// PAR-LABEL: func.func @sized_rows_large_operand
// PAR-NOT: scf.forall
// PAR: return
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @sized_rows_large_operand(%a: tensor<?x256xf64>, %b: tensor<256x256xf64>, %n: index) -> tensor<?x256xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<?x256xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x256xf64>) -> tensor<?x256xf64>
  %t = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x256xf64>, tensor<256x256xf64>) outs(%a0 : tensor<?x256xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x256xf64>
  return %t : tensor<?x256xf64>
}

// -----

// A transposition of a contraction whose leading loop is a size, alone (the
// contraction's result is led by another index, so it is no chain): left
// whole, for tl-tile-contractions to fold into the contraction or keep
// after it, rather than transposed one column of the contraction's result
// per index.
// CHECK-LABEL: func.func @sized_transposition_of_contraction
// CHECK-NOT: scf.for
// CHECK: %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x?xf64>)
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<64x?xf64>) outs(%{{.*}} : tensor<?x64xf64>)
// CHECK-NOT: scf.for
// CHECK: return
// PAR-LABEL: func.func @sized_transposition_of_contraction
// PAR-NOT: scf.forall
// PAR: return
#ka = affine_map<(i, j, k) -> (k, i)>
#kb = affine_map<(i, j, k) -> (j, k)>
#kt = affine_map<(i, j, k) -> (i, j)>
#tin = affine_map<(j, i) -> (i, j)>
#tout = affine_map<(j, i) -> (j, i)>
func.func @sized_transposition_of_contraction(%a: tensor<64x64xf64>, %b: tensor<?x64xf64>, %n: index) -> tensor<?x64xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<64x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<64x?xf64>) -> tensor<64x?xf64>
  %t = linalg.generic {indexing_maps = [#ka, #kb, #kt], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf64>, tensor<?x64xf64>) outs(%a0 : tensor<64x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<64x?xf64>
  %e1 = tensor.empty(%n) : tensor<?x64xf64>
  %c = linalg.generic {indexing_maps = [#tin, #tout], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64x?xf64>) outs(%e1 : tensor<?x64xf64>) {
  ^bb0(%x: f64, %out: f64):
    linalg.yield %x : f64
  } -> tensor<?x64xf64>
  return %c : tensor<?x64xf64>
}

// -----

// The other way round: a contraction whose leading loop is a size, alone,
// its only user a transposition of it led by another index. Left whole as
// well, rather than computed one index at a time and transposed after.
// CHECK-LABEL: func.func @sized_contraction_transposed_by_its_user
// CHECK-NOT: scf.for
// CHECK: %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x64xf64>)
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<?x64xf64>) outs(%{{.*}} : tensor<64x?xf64>)
// CHECK-NOT: scf.for
// CHECK: return
// PAR-LABEL: func.func @sized_contraction_transposed_by_its_user
// PAR-NOT: scf.forall
// PAR: return
#la = affine_map<(j, i, k) -> (j, k)>
#lb = affine_map<(j, i, k) -> (k, i)>
#lt = affine_map<(j, i, k) -> (j, i)>
#uin = affine_map<(i, j) -> (j, i)>
#uout = affine_map<(i, j) -> (i, j)>
func.func @sized_contraction_transposed_by_its_user(%a: tensor<?x64xf64>, %b: tensor<64x64xf64>, %n: index) -> tensor<64x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<?x64xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x64xf64>) -> tensor<?x64xf64>
  %t = linalg.generic {indexing_maps = [#la, #lb, #lt], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64xf64>, tensor<64x64xf64>) outs(%a0 : tensor<?x64xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x64xf64>
  %e1 = tensor.empty(%n) : tensor<64x?xf64>
  %c = linalg.generic {indexing_maps = [#uin, #uout], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x64xf64>) outs(%e1 : tensor<64x?xf64>) {
  ^bb0(%x: f64, %out: f64):
    linalg.yield %x : f64
  } -> tensor<64x?xf64>
  return %c : tensor<64x?xf64>
}

// -----

// A dynamic loop other than the leading one: left alone.
// CHECK-LABEL: func.func @inner_dynamic
// CHECK-NOT: scf.for
#u = affine_map<(e, i, k, j) -> (e, k, j)>
#m = affine_map<(e, i, k, j) -> (i, k)>
#v = affine_map<(e, i, k, j) -> (e, i, j)>
func.func @inner_dynamic(%u: tensor<4x?x4xf64>, %m: tensor<4x?xf64>, %n: index) -> tensor<4x4x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<4x4x4xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4x4x4xf64>) -> tensor<4x4x4xf64>
  %t = linalg.generic {indexing_maps = [#u, #m, #v], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<4x?x4xf64>, tensor<4x?xf64>) outs(%a0 : tensor<4x4x4xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4x4xf64>
  return %t : tensor<4x4x4xf64>
}

// -----

// A sized loop along the result's last dimension (the element index last)
// of an element-wise statement: tiles of 64 indices, and the partial tile
// peeled off and inlined after the loop, so that the loop's tiles are
// static.
// CHECK-LABEL: func.func @sized_last
// CHECK: %[[SPLIT:.*]] = affine.apply
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step %c64
// CHECK: linalg.generic
// CHECK: scf.yield
// CHECK: tensor.extract_slice %{{.*}}[0, 0, %[[SPLIT]]] [4, 4, %{{.*}}] [1, 1, 1] : tensor<4x4x?xf64> to tensor<4x4x?xf64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4x?xf64>)
// CHECK-NOT: scf.for
// CHECK: return
// Canonicalized, the full tiles are static.
// CANON-LABEL: func.func @sized_last
// CANON: scf.for
// CANON: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4x64xf64>) outs(%{{.*}} : tensor<4x4x64xf64>)
#ul = affine_map<(i, j, e) -> (i, j, e)>
func.func @sized_last(%u: tensor<4x4x?xf64>, %n: index) -> tensor<4x4x?xf64> {
  %e0 = tensor.empty(%n) : tensor<4x4x?xf64>
  %t = linalg.generic {indexing_maps = [#ul, #ul], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%u : tensor<4x4x?xf64>) outs(%e0 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %out: f64):
    %p = arith.mulf %x, %x : f64
    linalg.yield %p : f64
  } -> tensor<4x4x?xf64>
  return %t : tensor<4x4x?xf64>
}

// -----

// A contraction with such a loop is left whole: tl-tile-contractions tiles
// sized contractions (tile-contractions-sized.mlir).
// CHECK-LABEL: func.func @sized_last_contraction
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4x?xf64>, tensor<4x4xf64>) outs(%{{.*}} : tensor<4x4x?xf64>)
// CHECK-NOT: scf.for
// CHECK: return
#uc = affine_map<(i, k, j, e) -> (k, j, e)>
#mc = affine_map<(i, k, j, e) -> (i, k)>
#vc = affine_map<(i, k, j, e) -> (i, j, e)>
func.func @sized_last_contraction(%u: tensor<4x4x?xf64>, %m: tensor<4x4xf64>, %n: index) -> tensor<4x4x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<4x4x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4x4x?xf64>) -> tensor<4x4x?xf64>
  %t = linalg.generic {indexing_maps = [#uc, #mc, #vc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%u, %m : tensor<4x4x?xf64>, tensor<4x4xf64>) outs(%a0 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4x?xf64>
  return %t : tensor<4x4x?xf64>
}

// -----

// So is a transposition of such a contraction (K5L's second step,
// `A # u . [[2 4]] ^ [1 2]`): tl-tile-contractions folds it into the
// contraction or keeps it after, which it could not do once the
// contraction's result is read by slices in a loop of tiles.
// CHECK-LABEL: func.func @sized_last_transposed_contraction
// CHECK-NOT: scf.for
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x4x?xf64>, tensor<4x4xf64>)
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<4x4x?xf64>)
// CHECK-NOT: scf.for
// CHECK: return
#uc = affine_map<(i, k, j, e) -> (k, j, e)>
#mc = affine_map<(i, k, j, e) -> (i, k)>
#vc = affine_map<(i, k, j, e) -> (i, j, e)>
#id = affine_map<(i, j, e) -> (i, j, e)>
#tr = affine_map<(i, j, e) -> (j, i, e)>
func.func @sized_last_transposed_contraction(%u: tensor<4x4x?xf64>, %m: tensor<4x4xf64>, %n: index) -> tensor<4x4x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<4x4x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4x4x?xf64>) -> tensor<4x4x?xf64>
  %t = linalg.generic {indexing_maps = [#uc, #mc, #vc], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%u, %m : tensor<4x4x?xf64>, tensor<4x4xf64>) outs(%a0 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<4x4x?xf64>
  %e1 = tensor.empty(%n) : tensor<4x4x?xf64>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<4x4x?xf64>) outs(%e1 : tensor<4x4x?xf64>) {
  ^bb0(%x: f64, %out: f64):
    linalg.yield %x : f64
  } -> tensor<4x4x?xf64>
  return %r : tensor<4x4x?xf64>
}

// -----

// A chain over a static leading dimension whose other loops include a size
// (K5L, the element index last): fused as over a static batch, one index
// of the leading dimension at a time (an intermediate of 8 x 8 x 1280
// doubles, 640 KiB, is weighed as more than min-intermediate-bytes, and 80
// KiB per index as more than tile-bytes). Each slice keeps the size.
// CHECK-LABEL: func.func @static_batch_sized_last
// CHECK: scf.for %[[I:.*]] = %c0 to %c8 step %c1 iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<8x8x?xf64>)
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x?xf64>, tensor<8x8xf64>) outs(%{{.*}} : tensor<1x8x?xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[FIRST]], %{{.*}} : tensor<1x8x?xf64>, tensor<8x8xf64>) outs(%{{.*}} : tensor<1x8x?xf64>)
// CHECK: tensor.insert_slice {{.*}} into %[[OUT]][%[[I]], 0, 0] [1, 8, %{{.*}}]
// CHECK-NOT: linalg.generic
// CHECK: return
#tc = affine_map<(i, j, k, e) -> (i, k, e)>
#nc = affine_map<(i, j, k, e) -> (j, k)>
#wc = affine_map<(i, j, k, e) -> (i, j, e)>
func.func @static_batch_sized_last(%u: tensor<8x8x?xf64>, %m: tensor<8x8xf64>, %n: index) -> tensor<8x8x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%n) : tensor<8x8x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<8x8x?xf64>) -> tensor<8x8x?xf64>
  %t = linalg.generic {indexing_maps = [#tc, #nc, #wc], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%u, %m : tensor<8x8x?xf64>, tensor<8x8xf64>) outs(%a0 : tensor<8x8x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x8x?xf64>
  %e1 = tensor.empty(%n) : tensor<8x8x?xf64>
  %a1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<8x8x?xf64>) -> tensor<8x8x?xf64>
  %v = linalg.generic {indexing_maps = [#tc, #nc, #wc], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%t, %m : tensor<8x8x?xf64>, tensor<8x8xf64>) outs(%a1 : tensor<8x8x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<8x8x?xf64>
  return %v : tensor<8x8x?xf64>
}

// -----

// Every extent a size (a sized TCCG program, abcd-ebad-ce's shape): a
// contraction and the transposition of its result, both led by the batch
// d, are computed one index of d at a time, each slice keeping its sizes,
// as a fixed program's chain is: the contraction's result passes from one
// to the other in slices, not through memory whole.
// CHECK-LABEL: func.func @sized_throughout_chain
// CHECK: scf.for %[[D:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<?x?x?x?xf64>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x?x?xf64>, tensor<?x?xf64>) outs(%{{.*}} : tensor<1x?x?x?xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<1x?x?x?xf64>) outs(%{{.*}} : tensor<1x?x?x?xf64>)
// CHECK: tensor.insert_slice {{.*}} into %[[OUT]][%[[D]], 0, 0, 0] [1,
// CHECK-NOT: linalg.generic
// CHECK: return
// PAR-LABEL: func.func @sized_throughout_chain
// PAR: scf.forall
// PAR:   scf.for
#ta = affine_map<(d, a, b, e, c) -> (d, a, b, e)>
#tb = affine_map<(d, a, b, e, c) -> (e, c)>
#tt = affine_map<(d, a, b, e, c) -> (d, a, b, c)>
#pin = affine_map<(d, c, b, a) -> (d, a, b, c)>
#pout = affine_map<(d, c, b, a) -> (d, c, b, a)>
func.func @sized_throughout_chain(%a: tensor<?x?x?x?xf64>, %b: tensor<?x?xf64>, %out: tensor<?x?x?x?xf64>, %nd: index, %na: index, %nb: index, %nc: index) -> tensor<?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%nd, %na, %nb, %nc) : tensor<?x?x?x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %t = linalg.generic {indexing_maps = [#ta, #tb, #tt], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?x?x?xf64>, tensor<?x?xf64>) outs(%a0 : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?xf64>
  %c = linalg.generic {indexing_maps = [#pin, #pout], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<?x?x?x?xf64>) outs(%out : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<?x?x?x?xf64>
  return %c : tensor<?x?x?x?xf64>
}

// -----

// Alone, a contraction sized throughout is left whole to
// tl-tile-contractions (one batch index at a time its slices would still
// have sizes, and its register tiles would read the other operand for
// each index: a matrix product row by row).
// CHECK-LABEL: func.func @sized_throughout_alone
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?xf64>)
// CHECK: return
#ma = affine_map<(i, j, k) -> (i, k)>
#mb = affine_map<(i, j, k) -> (k, j)>
#mc = affine_map<(i, j, k) -> (i, j)>
func.func @sized_throughout_alone(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %ni: index, %nj: index) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty(%ni, %nj) : tensor<?x?xf64>
  %a0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %c = linalg.generic {indexing_maps = [#ma, #mb, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%a0 : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %c : tensor<?x?xf64>
}
