// Sized contractions on a target with a 16 MiB share of L3 (Zen 3's, as
// sysfs states it): blocks of 4096 columns, whose panels (256 x 4096
// doubles) take half of it.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288 l3-cache-bytes=16777216 max-short-size=0 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=4 vector-registers=16 l1-cache-bytes=32768 l2-cache-bytes=524288 l3-cache-bytes=16777216 max-short-size=0}))" | FileCheck %s

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// A product over sizes is planned as a long one (1280 per size), whose
// columns fit one block of L3. At run time they may be many more (TCCG
// ccsd6 with every extent a size: 5041), so that the columns are blocked
// as a long extent would be, by 4096: their panels stay within half of L3
// however long the columns are. A block of fewer columns than 4096 (the
// last, or all of a shorter extent) is a sized cache tile; its block of
// the rows' operand (120 rows x 256 depth steps) is static all the same,
// and copied into the plan's panels of rows, as in the bulk.
// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[120,256,4096] register=[6,1,8] {{.*}} split=none panels=in1 row-panels=in0 sized-panels=in1 sized=d0,d1,d2 (edges padded)
// CHECK-LABEL: func.func @sized_columns_in_blocks
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c4096
// CHECK: linalg.transpose ins(%{{.*}} : tensor<20x6x256xf64>) outs(%{{.*}} : tensor<20x256x6xf64>) permutation = [0, 2, 1]
// CHECK: vector.contract {{.*}} : vector<6x1xf64>, vector<1x8xf64> into vector<6x8xf64>
// The last block of columns, sized: the same panels of rows.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4096
// CHECK: linalg.transpose ins(%{{.*}} : tensor<20x6x256xf64>) outs(%{{.*}} : tensor<20x256x6xf64>) permutation = [0, 2, 1]
// CHECK: tensor.extract_slice %{{.*}} [1, 256, 6] [1, 1, 1] : tensor<20x256x6xf64> to tensor<256x6xf64>
// CHECK: vector.contract {{.*}} : vector<6x1xf64>, vector<1x8xf64> into vector<6x8xf64>
func.func @sized_columns_in_blocks(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// -----

// TCCG ccsd6 abcd-aecf-fbed with every extent a size: whether the
// transposition of its result is folded is chosen at run time. Planned as
// long ones, both layouts copy the rows' operand into panels, which need
// 24 register tiles of columns (192). The contraction in its own layout
// has columns of two sizes (collapsed with the reductions: 5041 at 71),
// the folded one of one size (71): at run time, where the own layout has
// its panels and the folded one would not, the contraction sums many
// terms (more than 256), and the transposition is kept, as the fixed
// program at the same extents keeps it.
// REMARK: remark: transposition folded into its contraction or kept after it, as the sizes' values weigh the copies at run time
// CHECK-LABEL: func.func @ccsd6_fold_weighs_panels_at_run_time
// CHECK: %[[TERMS:.*]] = arith.cmpi ugt, %{{.*}}, %c256 : index
// The copies weighed (fold where they pay; refused, with many terms, where
// the folded layout copies as much as the own one)...
// CHECK: %[[PAYS:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[COPIES_REFUSED:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// ...then the panels: the own layout's columns, the product of two sizes;
// the folded one's, one size.
// CHECK: %[[OWN_COLUMNS:.*]] = arith.muli %[[SIZE1:dim_[0-9]+]], %[[SIZE2:dim_[0-9]+]] : index
// CHECK-NEXT: %[[OWN:.*]] = arith.cmpi uge, %[[OWN_COLUMNS]], %c192 : index
// CHECK: %[[FOLDED:.*]] = arith.cmpi ult, %[[FOLDED_COLUMNS:dim_[0-9]*]], %c192 : index
// CHECK: %[[LOSES:.*]] = arith.andi %[[OWN]], %[[FOLDED]] : i1
// CHECK: %[[REFUSED_FOR_TERMS:.*]] = arith.ori %[[COPIES_REFUSED]], %[[LOSES]] : i1
// CHECK: %[[REFUSED:.*]] = arith.andi %[[TERMS]], %[[REFUSED_FOR_TERMS]] : i1
// CHECK: %[[NOT_REFUSED:.*]] = arith.xori %[[REFUSED]], %true : i1
// CHECK: %[[CHOICE:.*]] = arith.andi %[[PAYS]], %[[NOT_REFUSED]] : i1
// CHECK: scf.if %[[CHOICE]]
func.func @ccsd6_fold_weighs_panels_at_run_time(%a: tensor<?x?x?x?xf64>, %b: tensor<?x?x?x?xf64>, %out: tensor<?x?x?x?xf64>, %n0: index, %n1: index, %n2: index, %n3: index) -> tensor<?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%n0, %n1, %n2, %n3) : tensor<?x?x?x?xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(c, a, d, e, f, b) -> (e, c, f, a)>, affine_map<(c, a, d, e, f, b) -> (d, f, b, e)>, affine_map<(c, a, d, e, f, b) -> (c, a, d, b)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%a, %b : tensor<?x?x?x?xf64>, tensor<?x?x?x?xf64>) outs(%acc : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %s: f64):
    %m = arith.mulf %x, %y : f64
    %r = arith.addf %s, %m : f64
    linalg.yield %r : f64
  } -> tensor<?x?x?x?xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(p, q, r, s) -> (q, s, p, r)>, affine_map<(p, q, r, s) -> (p, q, r, s)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<?x?x?x?xf64>) outs(%out : tensor<?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<?x?x?x?xf64>
  return %t : tensor<?x?x?x?xf64>
}
