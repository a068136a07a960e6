// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 max-short-size=0 wide-column-versions=false}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 max-short-size=0 wide-column-versions=false emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 max-short-size=0 wide-column-versions=false}))" | FileCheck %s --check-prefix=PANELS
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 max-short-size=0 wide-column-versions=false}))" | FileCheck %s --check-prefix=EDGES
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 max-short-size=0 wide-column-versions=false}))" | FileCheck %s --check-prefix=EDGE-ROWS
// With a 2 MiB L2 (Emerald Rapids) the preferred column block is 512: sized
// columns take it, not the largest divisor of the planning extent (1280 in
// blocks of 320), and then serve the rows' panels (32 register tiles of
// columns, 24 needed); TCCG ccsd6 with every extent a size ran 0.8x the
// fixed program without them.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-contractions{vector-lanes=8 l1-cache-bytes=49152 l2-cache-bytes=2097152 max-short-size=0 wide-column-versions=false emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=L2MIB

// A matrix product whose extents are all sizes is planned as a long one
// (the preferred tiles). Its loops of column, depth and row blocks are
// peeled: the bulk's cache tiles are static, and copy panels as a fixed
// program's do; the row blocks at the edge stay sized, and are tiled for
// registers over sizes: static register tiles of 8 x 16 in their bulk,
// and the tiles at the edges padded to 8 x 16 at run time (masked reads
// of the operands' slices and of the accumulator, one write back that
// drops what is out of bounds). B's depth steps are a size (the columns)
// apart, so that the sized tiles copy its blocks into panels too
// (sized-panels). Every tile is a vector contraction; the
// result is not zeroed first (the depth is blocked): each tile starts
// from zeros in the first depth block (a select on the block), from its
// accumulator in the others.

#a = affine_map<(i, k, j) -> (i, k)>
#b = affine_map<(i, k, j) -> (k, j)>
#c = affine_map<(i, k, j) -> (i, j)>

// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[64,256,256] register=[8,1,16] {{.*}} panels=in1 sized-panels=in1 sized=d0,d1,d2 (edges padded)
// L2MIB: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[128,256,512] register=[8,1,16] {{.*}} panels=in1 row-panels=in0 sized-panels=in1 sized=d0,d1,d2 (edges padded)
// CHECK-LABEL: func.func @sized
// The last depth block's padded tiles sum over its run-time extent: their
// depth is not padded to the block's bound (255 steps after the first).
// CHECK-NOT: arith.constant 255 : index
// CHECK-NOT: linalg.fill
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// CHECK: scf.for %[[DEPTH:.*]] = %c0 to %{{.*}} step %c256
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[DEPTH]], %c0 : index
// The bulk's blocks of columns copied into panels...
// CHECK: linalg.transpose ins(%{{.*}} : tensor<256x16x16xf64>) outs(%{{.*}} : tensor<16x256x16xf64>)
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c64
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x256xf64>) attrs = {{.*}}tl.first_depth_block_start
// CHECK: arith.select %[[FIRST]], %cst, %{{.*}} : f64
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// ...then the last block of rows, sized: full register tiles, each
// starting its own accumulator...
// CHECK: scf.for %{{.*}} step %c64
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x16xf64>) attrs = {{.*}}tl.first_depth_block_start
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// ...and the last rows, padded: the accumulator by a masked read, A's
// rows past the edge read from its last row (only the dropped rows of the
// result depend on them), without a branch per row.
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x16xf64>) attrs = {{.*}}tl.first_depth_block_start
// CHECK: vector.transfer_read {{.*}} : tensor<?x16xf64>, vector<8x16xf64>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice {{.*}} to tensor<?x1xf64>
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[ROW0:.*]] = arith.minsi %[[LAST]], %c0 : index
// CHECK: tensor.extract %[[SLICE]][%[[ROW0]], %c0] : tensor<?x1xf64>
// CHECK: %[[ROW7:.*]] = arith.minsi %[[LAST]], %c7 : index
// CHECK: tensor.extract %[[SLICE]][%[[ROW7]], %c0] : tensor<?x1xf64>
// CHECK: vector.from_elements {{.*}} : vector<8x1xf64>
// CHECK-NOT: vector.transfer_read {{.*}} : tensor<?x1xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [false, true]} : vector<8x16xf64>, tensor<?x16xf64>
// In the last depth block too (its extent a size), each step of the
// depth loop reads one step: the depth's clamp of the rows' slice,
// `min(extent - step, 1)`, is 1 wherever the loop runs, so that only the
// rows are padded there and read from the last row past the edge, as in
// the full blocks (eight reads of clamped rows in all), rather than
// through a read masked along the rows and the depth.
// EDGES-LABEL: func.func @sized
// EDGES-NOT: : tensor<?x?xf64>, vector<8x1xf64>
// EDGES: return
// EDGE-ROWS-LABEL: func.func @sized
// EDGE-ROWS-COUNT-8: vector.from_elements {{.*}} : vector<8x1xf64>
// EDGE-ROWS: return
// The bulk of the row blocks and their sized rest read the same block of
// columns: one copy into panels serves both, in each block of columns and
// depth (the full blocks of columns, static, and the last, sized).
// PANELS-LABEL: func.func @sized
// PANELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// PANELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// PANELS: linalg.transpose ins(%{{.*}} : tensor<256x16x16xf64>)
// PANELS-NOT: linalg.transpose
// PANELS: scf.for %{{.*}} = %{{.*}} to %dim step %c64
// PANELS-NOT: linalg.transpose
// PANELS: scf.for %{{.*}} = %{{.*}} to %dim{{.*}} step %c256
// PANELS: scf.for %{{.*}} = %{{.*}} to %dim{{.*}} step %c256
// PANELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c256
// PANELS: linalg.transpose ins(%{{.*}} : tensor<256x?x16xf64>)
// PANELS-NOT: linalg.transpose
// PANELS: scf.for %{{.*}} = %{{.*}} to %dim step %c64
// PANELS-NOT: linalg.transpose
// PANELS: scf.for %{{.*}} = %{{.*}} to %dim{{.*}} step %c256
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

// Only the sum runs over a size: u^T u of an E x 3 u. The 3 x 3 result
// is one register tile, static: nothing is padded, and the whole sum runs
// in it (a panel of 3 columns fits the caches at any depth).

#u = affine_map<(i, e, j) -> (e, i)>
#v = affine_map<(i, e, j) -> (e, j)>
#g = affine_map<(i, e, j) -> (i, j)>

// REMARK: remark: tiling plan: rows=d0 columns=d2 depth=d1 cache=[0,0,0] register=[8,1,3] {{.*}} sized=d1 (edges padded)
// CHECK-LABEL: func.func @gram
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK: vector.contract {{.*}} : vector<1x3xf64>, vector<1x3xf64> into vector<3x3xf64>
// CHECK-NOT: scf.for
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @gram(%u: tensor<?x3xf64>, %g: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%g : tensor<3x3xf64>) -> tensor<3x3xf64>
  %r = linalg.generic {indexing_maps = [#u, #v, #g], iterator_types = ["parallel", "reduction", "parallel"]}
    ins(%u, %u : tensor<?x3xf64>, tensor<?x3xf64>) outs(%fill : tensor<3x3xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}

// -----

// Four loops (a batch of matrix products): only the depth blocks are
// peeled, and the register tiles inside a cache tile that stays sized are
// peeled by themselves. The bulk of those is the full register tile, 8 x
// 16 (both column vectors per broadcast of a row element); only the
// columns at the edge are halves of it.

#a = affine_map<(b, i, k, j) -> (b, i, k)>
#b = affine_map<(b, i, k, j) -> (k, j)>
#c = affine_map<(b, i, k, j) -> (b, i, j)>

// REMARK: remark: tiling plan: rows=d1 columns=d3 depth=d2 {{.*}} register=[1,8,1,16] {{.*}} sized=d0,d1,d2,d3 (edges padded)
// CHECK-LABEL: func.func @batched
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c16
// CHECK-NOT: step %c8
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// The columns at the edge, in halves.
// CHECK: scf.for %{{.*}} step %c8
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x8xf64> into vector<8x8xf64>
func.func @batched(%A: tensor<?x?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %filled = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?xf64>) outs(%filled : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?xf64>
  return %r : tensor<?x?x?xf64>
}

// -----

// Two sized reductions, planned as long ones, sum many terms per element:
// they collapse into one depth, with the runs of result dimensions that
// one operand alone reads (as TCCG's ccsd6 contractions with their
// extents fixed), so that the contraction tiles as a matrix product.

#a = affine_map<(i, j, p, k, l) -> (i, j, k, l)>
#b = affine_map<(i, j, p, k, l) -> (k, l, p)>
#c = affine_map<(i, j, p, k, l) -> (i, j, p)>

// REMARK: remark: tiling plan: rows=d0 columns=d1 depth=d2 {{.*}} sized=d0,d1,d2 (edges padded)
// CHECK-LABEL: func.func @two_sized_reductions
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<?x?x?x?xf64> into tensor<?x?xf64>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x?x?xf64> into tensor<?x?xf64>
// CHECK: vector.contract {{.*}} into vector<8x16xf64>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape
func.func @two_sized_reductions(%A: tensor<?x?x?x?xf64>, %B: tensor<?x?x?xf64>, %C: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %filled = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%A, %B : tensor<?x?x?x?xf64>, tensor<?x?x?xf64>) outs(%filled : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?xf64>
  return %r : tensor<?x?x?xf64>
}

// -----

// A transposition of a sized contraction (TCCG abc-bda-dc): folding it
// copies A (a x d x b) for the columns, keeping it transposes the result
// (c x b x a) after the contraction; which is less depends on the sizes'
// values, so both versions are compiled and the extents choose at run
// time, by the planner's own weights: fold where 2 x |A| <= 2 x 2 x
// (|result| + the copies of the own layout). Each version is planned and
// tiled as it would be alone, and A's copy stays in its version.

#a = affine_map<(a, b, d, c) -> (a, d, b)>
#b = affine_map<(a, b, d, c) -> (c, d)>
#c = affine_map<(a, b, d, c) -> (a, b, c)>
#t = affine_map<(a, b, c) -> (c, b, a)>
#i = affine_map<(a, b, c) -> (a, b, c)>

// REMARK: remark: transposition folded into its contraction or kept after it, as the sizes' values weigh the copies at run time
// REMARK-COUNT-2: remark: tiling plan:
// CHECK-LABEL: func.func @transposed_at_run_time
// CHECK: %[[FOLDED:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK: %[[PAYS:.*]] = arith.cmpi ule, %[[FOLDED]], %{{.*}} : index
// CHECK: %[[CHOICE:.*]] = arith.andi %[[PAYS]], %{{.*}} : i1
// CHECK: scf.if %[[CHOICE]] -> (tensor<?x?x?xf64>) {
// The folded version copies A into the columns' layout, inside it...
// CHECK: linalg.transpose ins(%arg0 : tensor<?x?x?xf64>) {{.*}} permutation = [1, 2, 0]
// CHECK: vector.contract
// CHECK: } else {
// ...the kept one does not, and transposes the result after the
// contraction.
// CHECK-NOT: linalg.transpose ins(%arg0
// CHECK: vector.contract
// CHECK: tl.kept_transposition
func.func @transposed_at_run_time(%A: tensor<?x?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?x?xf64>, %na: index, %nb: index, %nc: index) -> tensor<?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%na, %nb, %nc) : tensor<?x?x?xf64>
  %filled = linalg.fill ins(%zero : f64) outs(%empty : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?xf64>) outs(%filled : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?xf64>
  %t = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<?x?x?xf64>) outs(%C : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %out: f64):
    linalg.yield %x : f64
  } -> tensor<?x?x?xf64>
  return %t : tensor<?x?x?xf64>
}

// -----

// A sized contraction of six loops whose operands each lack two
// dimensions (TCCG ccsd_t): each element of a block of B serves the steps
// of a and b, each of A those of c and e, however short the sizes are.
// The cache tiles, sized, copy their blocks of both into panels, B's of
// columns (16 wide, next to the depth) out of the row blocks' loop, A's
// of rows (8 wide), the last panel of each padded with zeros: every
// register tile, at the edges too, reads whole panels, and only its
// accumulator is read and written masked.

#a = affine_map<(a, b, c, e, d, k) -> (a, b, k)>
#b = affine_map<(a, b, c, e, d, k) -> (k, c, e, d)>
#c = affine_map<(a, b, c, e, d, k) -> (a, b, c, e, d)>

// REMARK: remark: tiling plan: rows=d1 columns=d4 depth=d5 cache=[0,64,0,0,256,256] register=[1,8,1,1,16,1] {{.*}} panels=in1 sized-panels=in1 sized-row-panels=in0 sized=d0,d1,d2,d3,d4,d5 (edges padded)
// CHECK-LABEL: func.func @short_extents
// The columns' panels: the bulk transposed, the rest copied, the rest of
// the last panel zeroed...
// CHECK: scf.for %{{.*}} step %c256
// CHECK: scf.for %{{.*}} step %c256
// CHECK: linalg.transpose ins(%{{.*}} : tensor<256x?x?x?x16xf64>) outs(%{{.*}} : tensor<?x?x?x256x16xf64>) permutation = [3, 1, 2, 0, 4]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<256x?x?x?xf64>) outs(%{{.*}} : tensor<?x?x256x?xf64>) permutation = [1, 2, 0, 3]
// CHECK: linalg.fill ins(%cst : f64) outs(%{{.*}} : tensor<?x?x256x?xf64>)
// CHECK: %[[COLUMNS:.*]] = tensor.insert_slice %{{.*}} : tensor<?x?x256x?xf64> into tensor<?x?x?x256x16xf64>
// ...then, in each block of rows, the rows' panels.
// CHECK: scf.for %{{.*}} step %c64
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x?x8x256xf64>) outs(%{{.*}} : tensor<?x?x256x8xf64>) permutation = [1, 0, 3, 2]
// CHECK: linalg.fill ins(%cst : f64) outs(%{{.*}} : tensor<?x256x?xf64>)
// CHECK: %[[ROWS:.*]] = tensor.insert_slice %{{.*}} : tensor<?x256x?xf64> into tensor<?x?x256x8xf64>
// The full register tiles...
// CHECK: tensor.extract_slice %[[ROWS]]{{.*}} [1, 1, 256, 8] [1, 1, 1, 1] : tensor<?x?x256x8xf64> to tensor<1x256x8xf64>
// CHECK: tensor.extract_slice %[[COLUMNS]]{{.*}} [1, 1, 1, 256, 16] [1, 1, 1, 1, 1] : tensor<?x?x?x256x16xf64> to tensor<1x1x256x16xf64>
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x16xf64> into vector<8x16xf64>
// ...and the one at both edges (columns in halves): whole panels, a
// masked accumulator.
// CHECK: scf.for %{{.*}} step %c8
// CHECK: tensor.extract_slice %[[ROWS]]{{.*}} [1, 1, 256, 8] [1, 1, 1, 1] : tensor<?x?x256x8xf64> to tensor<1x256x8xf64>
// CHECK: tensor.extract_slice %[[COLUMNS]]{{.*}} [1, 1, 1, 256, 8] [1, 1, 1, 1, 1] : tensor<?x?x?x256x16xf64> to tensor<1x1x256x8xf64>
// CHECK: vector.transfer_read {{.*}} {in_bounds = [true, false, true, true, false]} : tensor<1x?x1x1x?xf64>, vector<1x8x1x1x8xf64>
// CHECK-NOT: tensor.pad
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x8xf64> into vector<8x8xf64>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true, false, true, true, false]} : vector<1x8x1x1x8xf64>, tensor<1x?x1x1x?xf64>
func.func @short_extents(%A: tensor<?x?x?xf64>, %B: tensor<?x?x?x?xf64>, %C: tensor<?x?x?x?x?xf64>) -> tensor<?x?x?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?x?x?x?xf64>) -> tensor<?x?x?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?x?x?xf64>) outs(%fill : tensor<?x?x?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?x?xf64>
  return %r : tensor<?x?x?x?x?xf64>
}

// -----

// The columns' operand A lacks one dimension (b), the rows' operand B two
// of which one is the columns (TCCG abcde-efbad-cf): with sizes as short
// as 16, each element of a block serves 16 rows, too few for panels by
// reuse alone. But A's depth steps are a size (d) apart: in place, each
// register tile would read a new line that far away at every depth step.
// Its block is copied into panels, and A's other dimension (a) steps one
// at a time outside the column blocks, so that the copy is one cache
// tile's (256 x 256), not every step of a.

#a = affine_map<(a, b, d, k) -> (a, k, d)>
#b = affine_map<(a, b, d, k) -> (k, b)>
#c = affine_map<(a, b, d, k) -> (a, b, d)>

// REMARK: remark: tiling plan: rows=d1 columns=d2 depth=d3 cache=[1,64,256,256] register=[1,8,16,1] {{.*}} panels=in0 sized-panels=in0 sized=d0,d1,d2,d3 (edges padded)
// CHECK-LABEL: func.func @depth_steps_size_apart
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK: scf.for %{{.*}} step %c256
// CHECK: scf.for %{{.*}} step %c256
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x256x?x16xf64>) outs(%{{.*}} : tensor<?x1x256x16xf64>) permutation = [2, 0, 1, 3]
// CHECK: scf.for %{{.*}} step %c64
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: return
func.func @depth_steps_size_apart(%A: tensor<?x?x?xf64>, %B: tensor<?x?xf64>, %C: tensor<?x?x?xf64>) -> tensor<?x?x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%A, %B : tensor<?x?x?xf64>, tensor<?x?xf64>) outs(%fill : tensor<?x?x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?xf64>
  return %r : tensor<?x?x?xf64>
}

// -----

// The same with 8 rows (b fixed): each element of A's block serves one
// register tile of rows, which no copy repays, however far apart its
// depth steps are. No panels in the sized tiles, and a stays whole in
// the cache tile.

#a = affine_map<(a, b, d, k) -> (a, k, d)>
#b = affine_map<(a, b, d, k) -> (k, b)>
#c = affine_map<(a, b, d, k) -> (a, b, d)>

// REMARK: remark: tiling plan: rows=d1 columns=d2 depth=d3 cache=[0,0,256,256] register=[1,8,16,1] {{.*}} split=none sized=d0,d2,d3 (edges padded)
// CHECK-LABEL: func.func @one_tile_of_rows
// CHECK-NOT: linalg.transpose
// CHECK: vector.contract {{.*}} : vector<1x8xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: return
func.func @one_tile_of_rows(%A: tensor<?x?x?xf64>, %B: tensor<?x8xf64>, %C: tensor<?x8x?xf64>) -> tensor<?x8x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x8x?xf64>) -> tensor<?x8x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%A, %B : tensor<?x?x?xf64>, tensor<?x8xf64>) outs(%fill : tensor<?x8x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x8x?xf64>
  return %r : tensor<?x8x?xf64>
}

// -----

// A mode product with the element index last and a size (K5L's first
// step): few terms per element (11), so its other parallel dimensions (b,
// c) are stepped one at a time outside the column blocks over E, and each
// register tile streams its 11 rows of u whole instead of every column
// block revisiting all 1331 rows.
// REMARK: remark: tiling plan: rows=d0 columns=d4 depth=d3 cache=[0,1,1,0,{{[0-9]+}}] register=[11,1,1,1,16] cache-order=[d1,d2,d4,d3,d0] {{.*}} sized=d4 (edges padded)
// CHECK-LABEL: func.func @mode_product_element_last
// CHECK: scf.for %{{.*}} = %c0 to %c11 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c11 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %dim step %c{{[0-9]+}}
// CHECK: vector.contract {{.*}} : vector<11x1xf64>, vector<1x16xf64> into vector<11x16xf64>
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3)>
#u = affine_map<(d0, d1, d2, d3, d4) -> (d3, d1, d2, d4)>
#t = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
func.func @mode_product_element_last(%A: tensor<11x11xf64>, %u: tensor<11x11x11x?xf64>, %e: index) -> tensor<11x11x11x?xf64> {
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty(%e) : tensor<11x11x11x?xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%empty : tensor<11x11x11x?xf64>) -> tensor<11x11x11x?xf64>
  %t = linalg.generic {indexing_maps = [#a, #u, #t], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%A, %u : tensor<11x11xf64>, tensor<11x11x11x?xf64>) outs(%fill : tensor<11x11x11x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<11x11x11x?xf64>
  return %t : tensor<11x11x11x?xf64>
}

// -----

// Fixed columns that the register tile does not divide (23 = 16 + 7)
// beside sized rows: the last register tile of columns is peeled to a
// static 7, and the tiles at the rows' edge are padded to 8 rows of 16 or
// 7 columns. The padded tile of 7 columns was once dynamic, and the
// contraction was left untiled.
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
// REMARK: remark: tiling plan: rows=d0 columns=d1 depth=d2 {{.*}} register=[8,16,1] {{.*}} sized=d0,d2 (edges padded)
// REMARK-NOT: left untiled
// CHECK-LABEL: func.func @fixed_columns_with_a_rest
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x7xf64> into vector<8x7xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x7xf64> into vector<8x7xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x16xf64> into vector<8x16xf64>
// CHECK: vector.contract {{.*}} : vector<8x1xf64>, vector<1x7xf64> into vector<8x7xf64>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @fixed_columns_with_a_rest(%A: tensor<?x?xf64>, %B: tensor<?x23xf64>, %C: tensor<?x23xf64>) -> tensor<?x23xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<?x23xf64>) -> tensor<?x23xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%A, %B : tensor<?x?xf64>, tensor<?x23xf64>) outs(%fill : tensor<?x23xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<?x23xf64>
  return %r : tensor<?x23xf64>
}

// -----

// Sized columns whose operand lacks a batch dimension that the plan steps
// outside the column blocks (few terms per element): each step would copy
// the columns' panels again, for its 15 rows only, so the columns are read
// from their operand instead (TCCG ccsd_t abcdef-dfga-gebc with `a` a size
// ran 2.6 times as long as the fixed program with the copies).
#a = affine_map<(b, i, j, k) -> (b, i, k)>
#b = affine_map<(b, i, j, k) -> (j, k)>
#c = affine_map<(b, i, j, k) -> (b, i, j)>
// REMARK: remark: tiling plan: rows=d1 columns=d2 depth=d3 cache=[1,0,256,0] register=[1,5,16,1] {{.*}} split=none panels=in1 sized=d2 (edges padded)
// CHECK-LABEL: func.func @batch_stepped_outside_column_blocks
// CHECK: vector.contract {{.*}} into vector<5x16xf64>
// CHECK: return
func.func @batch_stepped_outside_column_blocks(%B: tensor<15x15x23xf64>, %A: tensor<?x23xf64>, %C: tensor<15x15x?xf64>) -> tensor<15x15x?xf64> {
  %zero = arith.constant 0.0 : f64
  %fill = linalg.fill ins(%zero : f64) outs(%C : tensor<15x15x?xf64>) -> tensor<15x15x?xf64>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%B, %A : tensor<15x15x23xf64>, tensor<?x23xf64>) outs(%fill : tensor<15x15x?xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<15x15x?xf64>
  return %r : tensor<15x15x?xf64>
}
