// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors{prefetch-steps=0}))" | FileCheck %s --check-prefix=OFF

// A distance longer than any loop (2^62 steps): loops of a static length
// are too short for it, and a loop whose length is a size prefetches that
// far ahead (a hint past any buffer, which does not fault), without
// overflow or crash.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors{prefetch-steps=4611686018427387904}))" | FileCheck %s --check-prefix=HUGE

// OFF-NOT: read, locality

// HUGE-LABEL: func.func @rows_a_size_apart
// HUGE-NOT: read, locality
// HUGE-LABEL: func.func @columns_pages_apart
// HUGE: %[[DISTANCE:.*]] = arith.constant 4611686018427387904 : index
// HUGE: scf.for %[[K:[^ ]*]] =
// HUGE-NOT: arith.minsi
// HUGE: %[[AHEAD:.*]] = arith.addi %[[K]], %[[DISTANCE]] : index
// HUGE: memref.prefetch %{{.*}}[%[[AHEAD]], {{.*}}, read
// HUGE-LABEL: func.func @short_loop

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// The rows come from one line per step, a size apart (`A[d][b]` with the
// depth d first, as TCCG abc-bda-dc's A[a][d][b]): that line (and the
// line of the last row, another where the size is odd) is
// prefetched 16 steps ahead, or at the loop's last step where fewer are
// left (the loop's length is static: the clamp is arithmetic on
// constants), where the size makes the stride 512 bytes or more (64 elements);
// not at all where it does not. The columns' 16 elements a step are the next
// 128 bytes of a stream: not prefetched.
// CHECK-LABEL: func.func @rows_a_size_apart
// CHECK-SAME: (%[[A:.*]]: memref<256x?xf64, strided<[?, 1]>>, %[[B:.*]]: memref<256x16xf64>
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[MIN_STRIDE:.*]] = arith.constant 64 : index
// CHECK: %[[FAR:.*]] = arith.cmpi sge, %[[STRIDES]]#0, %[[MIN_STRIDE]] : index
// The loop is versioned on that comparison: it prefetches without a check
// at each step where the stride is long, and not at all where it is short.
// CHECK: scf.if %[[FAR]] -> (vector<16xf64>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[LAST]], %[[K]] : index
// CHECK: %[[STEPS:.*]] = arith.constant 16 : index
// CHECK: %[[MIN:.*]] = arith.minsi %[[LEFT]], %[[STEPS]] : index
// CHECK-NOT: scf.if
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %[[MIN]] : index
// CHECK-NEXT: memref.prefetch %[[A]][%[[AHEAD]], %[[FIRST:.*]]], read, locality<3>, data
// CHECK: %[[LAST_ELEMENT:.*]] = arith.addi %[[FIRST]], %c7{{.*}} : index
// CHECK-NEXT: memref.prefetch %[[A]][%[[AHEAD]], %[[LAST_ELEMENT]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: memref.load %[[A]][%[[K]], %{{.*}}]
// CHECK-NOT: memref.prefetch
// CHECK: } else {
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: memref.load %[[A]]
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @rows_a_size_apart(%a: memref<256x?xf64, strided<[?, 1]>>, %b: memref<256x16xf64>, %c: memref<8x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c256 step %c1 {
    %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<256x?xf64, strided<[?, 1]>>, vector<8x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x16xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf64>, vector<8x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<8x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Columns read in place 32 KB apart at each step, over a loop whose number
// of steps is a size: both lines of the 16 columns are prefetched, at
// their own indices, and the line of the last column (a third where the
// columns start off a line), 16 steps ahead at every step, not clamped at
// the loop's last (a multiplication at each step where the loop's length
// and the stride are sizes; a prefetch past the buffer does not fault). The rows' depth is their last, contiguous dimension
// (a stream each): not prefetched.
// CHECK-LABEL: func.func @columns_pages_apart
// CHECK-SAME: (%[[A:.*]]: memref<2x?xf64>, %[[B:.*]]: memref<?x4096xf64>
// CHECK-NOT: extract_strided_metadata
// CHECK: %[[STEPS:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: memref.prefetch %[[A]]
// CHECK-NOT: arith.minsi
// CHECK-NOT: scf.if
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %[[STEPS]] : index
// CHECK: memref.prefetch %[[B]][%[[AHEAD]], %[[J:.*]]], read
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %c8{{.*}} : index
// CHECK: memref.prefetch %[[B]][%[[AHEAD]], %[[NEXT]]], read
// CHECK: %[[LAST_ELEMENT:.*]] = arith.addi %[[J]], %c15{{.*}} : index
// CHECK: memref.prefetch %[[B]][%[[AHEAD]], %[[LAST_ELEMENT]]], read
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @columns_pages_apart(%a: memref<2x?xf64>, %b: memref<?x4096xf64>, %c: memref<2x16xf64>, %depth: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %depth step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x?xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %j], %pad {in_bounds = [true, true]} : memref<?x4096xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16xf64>, vector<2x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x16xf64> into vector<2x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf64>, memref<2x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A loop of fewer than four times 16 steps: most prefetches would be for
// lines past its end. Nothing prefetched for reading.
// CHECK-LABEL: func.func @short_loop
// CHECK: scf.for
// CHECK-NOT: read, locality
// CHECK: scf.yield
func.func @short_loop(%a: memref<2x?xf64>, %b: memref<48x4096xf64>, %c: memref<2x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c48 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x?xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<48x4096xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16xf64>, vector<2x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x16xf64> into vector<2x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf64>, memref<2x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Columns 256 bytes apart at each step: a short stride the prefetchers
// follow. Nothing prefetched for reading.
// CHECK-LABEL: func.func @short_stride
// CHECK: scf.for
// CHECK-NOT: read, locality
// CHECK: scf.yield
func.func @short_stride(%a: memref<2x?xf64>, %b: memref<256x32xf64>, %c: memref<2x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c256 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x?xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x32xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16xf64>, vector<2x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x16xf64> into vector<2x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf64>, memref<2x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Columns from a buffer of the function's own (a panel or packed block
// the tiler copied, in the caches by construction), however far apart its
// steps: not prefetched.
// CHECK-LABEL: func.func @columns_of_a_copy
// CHECK: scf.for
// CHECK-NOT: read, locality
// CHECK: scf.yield
func.func @columns_of_a_copy(%a: memref<2x?xf64>, %c: memref<2x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  %panel = memref.alloc() : memref<256x4096xf64>
  scf.for %k = %c0 to %c256 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x?xf64>, vector<2x1xf64>
    %y = vector.transfer_read %panel[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x4096xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16xf64>, vector<2x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x16xf64> into vector<2x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf64>, memref<2x16xf64>
  }
  memref.dealloc %panel : memref<256x4096xf64>
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Columns at an edge (a read that may run past the buffer, padded): the
// line of its first element alone is prefetched, no address past it.
// CHECK-LABEL: func.func @columns_at_an_edge
// CHECK-SAME: (%{{.*}}: memref<2x?xf64>, %[[B:.*]]: memref<?x4096xf64>
// CHECK: scf.for
// CHECK: memref.prefetch %[[B]][%{{.*}}, %{{.*}}], read
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[B]]
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @columns_at_an_edge(%a: memref<2x?xf64>, %b: memref<?x4096xf64>, %c: memref<2x16xf64>, %depth: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %depth step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x?xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %j], %pad {in_bounds = [true, false]} : memref<?x4096xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x16xf64>, vector<2x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x16xf64> into vector<2x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x16xf64>, memref<2x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Rows two lines of A apart per step (index 2k): the index does not move
// one for one with the step, so "16 steps ahead" is not an index to add.
// Nothing prefetched for reading.
// CHECK-LABEL: func.func @rows_every_other_step
// CHECK: scf.for
// CHECK-NOT: read, locality
// CHECK: scf.yield
func.func @rows_every_other_step(%a: memref<512x?xf64, strided<[?, 1]>>, %b: memref<256x16xf64>, %c: memref<8x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c256 step %c1 {
    %row = affine.apply affine_map<(d0) -> (d0 * 2)>(%k)
    %x = vector.transfer_read %a[%row, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<512x?xf64, strided<[?, 1]>>, vector<8x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x16xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf64>, vector<8x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<8x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Rows at index k + k: a sum with the step, but of a value the loop
// changes (2k again). Nothing prefetched for reading.
// CHECK-LABEL: func.func @rows_at_a_sum_of_steps
// CHECK: scf.for
// CHECK-NOT: read, locality
// CHECK: scf.yield
func.func @rows_at_a_sum_of_steps(%a: memref<512x?xf64, strided<[?, 1]>>, %b: memref<256x16xf64>, %c: memref<8x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c256 step %c1 {
    %row = arith.addi %k, %k : index
    %x = vector.transfer_read %a[%row, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<512x?xf64, strided<[?, 1]>>, vector<8x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x16xf64>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf64>, vector<8x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<8x16xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Rows and columns both a size apart at each step, in two buffers: two
// comparisons, which one version of the loop cannot both settle; each
// read's prefetches are checked at each step, the loop left unversioned.
// CHECK-LABEL: func.func @rows_and_columns_sizes_apart
// CHECK-SAME: (%[[A:.*]]: memref<256x?xf64, strided<[?, 1]>>, %[[B:.*]]: memref<256x?xf64, strided<[?, 1]>>
// CHECK: memref.extract_strided_metadata %[[A]]
// CHECK: %[[FAR_A:.*]] = arith.cmpi sge
// CHECK: memref.extract_strided_metadata %[[B]]
// CHECK: %[[FAR_B:.*]] = arith.cmpi sge
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if %[[FAR_A]] {
// CHECK: memref.prefetch %[[A]]
// CHECK: scf.if %[[FAR_B]] {
// CHECK: memref.prefetch %[[B]]
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: return
func.func @rows_and_columns_sizes_apart(%a: memref<256x?xf64, strided<[?, 1]>>, %b: memref<256x?xf64, strided<[?, 1]>>, %c: memref<8x16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c256 step %c1 {
    %x = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<256x?xf64, strided<[?, 1]>>, vector<8x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<256x?xf64, strided<[?, 1]>>, vector<1x16xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf64>, vector<8x16xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf64>, memref<8x16xf64>
  }
  return
}
