// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8},tl-version-for-short-sizes{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-fold-transpositions{vector-lanes=8},tl-version-for-short-sizes{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-version-for-short-sizes{vector-lanes=8 max-short-size=100}))" | FileCheck %s --check-prefix=LIMIT
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-version-for-short-sizes{vector-lanes=8 max-short-size=0}))" | FileCheck %s --check-prefix=NONE

// A matrix product over sizes is planned for long sizes (cache tiles of
// 64 x 256 x 256) and, where every size is short, as the extents whole:
// both versions, chosen by every size against 512 (twice the depth block
// of 256), each with its own fill of the accumulator and its planning
// extent.

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// REMARK: remark: planned for short sizes (each as 32) where every size of its loops is at most 512 at run time, and for long ones (each as 1280) otherwise
// CHECK-LABEL: func.func @sized
// CHECK: %[[BOUND:.*]] = arith.constant 512 : index
// CHECK: %[[ROWS:.*]] = tensor.dim %arg0, %c0
// CHECK-NEXT: arith.cmpi ule, %[[ROWS]], %[[BOUND]]
// CHECK: %[[DEPTH:.*]] = tensor.dim %arg0, %c1
// CHECK-NEXT: arith.cmpi ule, %[[DEPTH]], %[[BOUND]]
// CHECK: %[[COLUMNS:.*]] = tensor.dim %arg1, %c1
// CHECK-NEXT: arith.cmpi ule, %[[COLUMNS]], %[[BOUND]]
// CHECK: %[[SHORT:.*]] = arith.andi
// CHECK: scf.if %[[SHORT]] -> (tensor<?x?xf64>) {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}} attrs = {tl.planning_extent = 32 : index}
// CHECK: } else {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}} attrs = {tl.planning_extent = 1280 : index}
// LIMIT-LABEL: func.func @sized
// LIMIT: arith.constant 100 : index
// LIMIT: scf.if
// NONE-LABEL: func.func @sized
// NONE-NOT: scf.if
// NONE-NOT: tl.planning_extent
// NONE: return
func.func @sized(%A: tensor<?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
    ins(%A, %B : tensor<?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// -----

// TCCG abc-bda-dc over sizes: whether its transposition is folded is
// chosen at run time (tl-fold-transpositions), and that whole choice is
// versioned for short and long sizes (not each of its versions: four
// choices nested in one function take bufferization 5 to 8 times as long
// as two). Each version weighs the fold again with its own plans (for
// short sizes, the folded layout loses the columns' panels: refused
// wherever the contraction sums many terms, 256 or more), its condition
// computed in the version from the extents of the inputs, which the
// choice does not define.

// REMARK: remark: planned for short sizes
// CHECK-LABEL: func.func @transposed
// CHECK: arith.constant 512 : index
// CHECK: tensor.dim %arg1, %c0
// CHECK: scf.if %{{.*}} -> (tensor<?x?x?xf64>) {
// CHECK-NOT: scf.if
// CHECK: %[[MANY_TERMS:.*]] = arith.cmpi ugt, %{{.*}}, %c256{{.*}} : index
// CHECK-NOT: scf.if
// CHECK: %[[REFUSED:.*]] = arith.andi %[[MANY_TERMS]], %true{{.*}} : i1
// CHECK-NOT: scf.if
// CHECK: arith.xori %[[REFUSED]]
// CHECK-NEXT: %[[SHORT_FOLD:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[SHORT_FOLD]] -> (tensor<?x?x?xf64>) {
// CHECK: linalg.generic {{.*}} attrs = {tl.planning_extent = 32 : index}
// CHECK: } else {
// CHECK: linalg.generic {{.*}} attrs = {tl.planning_extent = 32 : index}
// CHECK: } {tl.version_choice}
// CHECK: } else {
// CHECK-NOT: scf.if
// CHECK: arith.xori
// CHECK-NEXT: %[[LONG_FOLD:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[LONG_FOLD]] -> (tensor<?x?x?xf64>) {
// CHECK: linalg.generic {{.*}} attrs = {tl.planning_extent = 1280 : index}
// CHECK: } else {
// CHECK: linalg.generic {{.*}} attrs = {tl.planning_extent = 1280 : index}
// CHECK: } {tl.version_choice}
// CHECK-NOT: scf.if
// CHECK: return
func.func @transposed(%A: tensor<?x?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %na = tensor.dim %A, %c0 : tensor<?x?x?xf64>
  %nb = tensor.dim %A, %c2 : tensor<?x?x?xf64>
  %nc = tensor.dim %B, %c0 : tensor<?x?xf64>
  %empty = tensor.empty(%na, %nb, %nc) : tensor<?x?x?xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b, d, c) -> (a, d, b)>, affine_map<(a, b, d, c) -> (c, d)>, affine_map<(a, b, d, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
    ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, j, i)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%t : tensor<?x?x?xf64>) outs(%C : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %out: f64):
    linalg.yield %x : f64
  } -> tensor<?x?x?xf64>
  return %r : tensor<?x?x?xf64>
}

// -----

// Sized elements of an 11 x 11 x 11 operator (CFD's K5 with the element
// size E first): the plans for short and long sizes do not differ, and the
// contraction stays one; so does a contraction over no size.

// REMARK-NOT: remark: planned for short sizes
// CHECK-LABEL: func.func @same_plans
// CHECK-NOT: scf.if
// CHECK-NOT: tl.planning_extent
// CHECK: return
func.func @same_plans(%A: tensor<11x11xf64>, %u: tensor<?x11x11xf64>, %v: tensor<?x11x11xf64>) -> tensor<?x11x11xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%v : tensor<?x11x11xf64>) -> tensor<?x11x11xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(e, i, j, k) -> (e, i, k)>, affine_map<(e, i, j, k) -> (k, j)>, affine_map<(e, i, j, k) -> (e, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%u, %A : tensor<?x11x11xf64>, tensor<11x11xf64>) outs(%fill : tensor<?x11x11xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x11x11xf64>
  return %r : tensor<?x11x11xf64>
}

// CHECK-LABEL: func.func @fixed
// CHECK-NOT: scf.if
// CHECK-NOT: tl.planning_extent
// CHECK: return
func.func @fixed(%A: tensor<64x96xf64>, %B: tensor<96x80xf64>, %C: tensor<64x80xf64>) -> tensor<64x80xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<64x80xf64>) -> tensor<64x80xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>, affine_map<(i, k, j) -> (k, j)>, affine_map<(i, k, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]}
    ins(%A, %B : tensor<64x96xf64>, tensor<96x80xf64>) outs(%fill : tensor<64x80xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<64x80xf64>
  return %r : tensor<64x80xf64>
}

// -----

// TCCG ccsd_t's abcdef-gdab-efgc over sizes: seven loops, more than a
// version for short sizes pays for (kMaxLoopsOfShortVersion).

// CHECK-LABEL: func.func @seven_loops
// CHECK-NOT: scf.if
// CHECK-NOT: tl.planning_extent
// CHECK: return
func.func @seven_loops(%A: tensor<?x?x?x?xf64>, %B: tensor<?x?x?x?xf64>, %C: tensor<?x?x?x?x?x?xf64>) -> tensor<?x?x?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?x?x?x?x?xf64>) -> tensor<?x?x?x?x?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d, e, f, g) -> (g, d, a, b)>, affine_map<(a, b, c, d, e, f, g) -> (e, f, g, c)>, affine_map<(a, b, c, d, e, f, g) -> (a, b, c, d, e, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%A, %B : tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>) outs(%fill : tensor<?x?x?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?x?x?xf64>
  return %r : tensor<?x?x?x?x?x?xf64>
}

// -----

// Versions of a choice made at run time whose contraction reads a copy
// made in its version (as collapsed reductions are): the extents of that
// copy are not known before the choice, which stays one version for long
// sizes.

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// CHECK-LABEL: func.func @copied_in_a_version
// CHECK: scf.if %arg3
// CHECK-NOT: scf.if
// CHECK-NOT: tl.planning_extent
// CHECK: return
func.func @copied_in_a_version(%A: tensor<?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?xf64>, %choice: i1) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %r = scf.if %choice -> (tensor<?x?xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %A, %c0 : tensor<?x?xf64>
    %k = tensor.dim %A, %c1 : tensor<?x?xf64>
    %empty = tensor.empty(%m, %k) : tensor<?x?xf64>
    %copy = linalg.copy ins(%A : tensor<?x?xf64>) outs(%empty : tensor<?x?xf64>) -> tensor<?x?xf64>
    %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?xf64>) -> tensor<?x?xf64>
    %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%copy, %B : tensor<?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %m1 = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %m1 : f64
      linalg.yield %s : f64
    } -> tensor<?x?xf64>
    scf.yield %p : tensor<?x?xf64>
  } else {
    %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?xf64>) -> tensor<?x?xf64>
    %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%A, %B : tensor<?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %m1 = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %m1 : f64
      linalg.yield %s : f64
    } -> tensor<?x?xf64>
    scf.yield %p : tensor<?x?xf64>
  } {tl.version_choice}
  return %r : tensor<?x?xf64>
}

// -----

// Two reductions (TCCG ab-acd-dbc): they collapse into one loop whose
// extent is a product of sizes, and with versions TCCG ccsd6's result was
// no longer bufferized in place. One version.

// REMARK-NOT: remark: planned for short sizes
// CHECK-LABEL: func.func @two_reductions
// CHECK-NOT: scf.if
// CHECK-NOT: tl.planning_extent
// CHECK: return
func.func @two_reductions(%A: tensor<?x?x?xf64>, %B: tensor<?x?x?xf64>, %C: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, c, d)>, affine_map<(a, b, c, d) -> (d, b, c)>, affine_map<(a, b, c, d) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
    ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?x?xf64>) outs(%fill : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
