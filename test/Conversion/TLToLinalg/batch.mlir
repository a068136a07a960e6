// RUN: tl-opt %s --convert-tl-to-linalg --split-input-file | FileCheck %s

// A batch program lowers to the same functions over the whole (batched)
// variables: each group that reads a batched variable gets the batch as
// one more parallel dimension, read by the batched leaves only (u, not the
// shared A). With the batch first, it is the outermost loop, as in a
// program that spells the element dimension out (tl-fuse-batches and the
// contraction tiler see the same shapes).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[U:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func private @interpolate.s0(
// CHECK-SAME: memref<4x5xf64> {tl.name = "A"}, %{{.*}}: memref<6x5xf64> {tl.name = "u"}, %{{.*}}: memref<6x4xf64> {tl.name = "v"})
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[U]], #[[V]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x5xf64>, tensor<6x5xf64>) outs(%{{.*}} : tensor<6x4xf64>)
// A batched variable assigned a shared value: computed once, broadcast.
// CHECK-LABEL: func.func private @interpolate.s1(
// CHECK: %[[NEG:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x5xf64>) outs(%{{.*}} : tensor<4x5xf64>)
// CHECK: linalg.broadcast ins(%[[NEG]] : tensor<4x5xf64>) outs(%{{.*}} : tensor<6x4x5xf64>) dimensions = [0]
// CHECK-LABEL: func.func @interpolate(
// CHECK-SAME: memref<4x5xf64> {tl.input, tl.name = "A"}, %{{.*}}: memref<6x5xf64> {tl.input, tl.name = "u"}, %{{.*}}: memref<6x4xf64> {tl.name = "v", tl.output}, %{{.*}}: memref<6x4x5xf64> {tl.name = "w", tl.output})
tl.program @interpolate batch 6 {
  tl.var input @A : tensor<4x5xf64>
  tl.var input @u batched : tensor<6x5xf64>
  tl.var output @v batched : tensor<6x4xf64>
  tl.var output @w batched : tensor<6x4x5xf64>
  tl.assign @v = {
    %a = tl.use @A : tensor<4x5xf64>
    %u = tl.use @u : tensor<5xf64>
    %p = tl.outer %a, %u : tensor<4x5xf64>, tensor<5xf64>
    %c = tl.contract %p [[1, 2]] : tensor<4x5x5xf64>
    tl.yield %c : tensor<4xf64>
  }
  tl.assign @w = {
    %a = tl.use @A : tensor<4x5xf64>
    %n = tl.neg %a : tensor<4x5xf64>
    tl.yield %n : tensor<4x5xf64>
  }
}

// -----

// The batch last: the innermost loop runs along it. The outer product of
// two batched values is their per-element product (one batch dimension,
// not two). A stack of a batched and a shared value selects per element.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[XY:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func private @last.s0(
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[Y]], #[[XY]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<2x5xf64>, tensor<3x5xf64>) outs(%{{.*}} : tensor<2x3x5xf64>)
// CHECK: arith.mulf
// CHECK-LABEL: func.func private @last.s1(
// CHECK: linalg.generic {indexing_maps = [#[[X2:.*]], #[[S]], #[[XY]]]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<3x5xf64>, tensor<3xf64>) outs(%{{.*}} : tensor<2x3x5xf64>)
// CHECK: linalg.index 0
// CHECK: arith.select
tl.program @last batch 5 last {
  tl.var input @x batched : tensor<2x5xf64>
  tl.var input @y batched : tensor<3x5xf64>
  tl.var input @c : tensor<3xf64>
  tl.var output @xy batched : tensor<2x3x5xf64>
  tl.var output @g batched : tensor<2x3x5xf64>
  tl.assign @xy = {
    %x = tl.use @x : tensor<2xf64>
    %y = tl.use @y : tensor<3xf64>
    %p = tl.outer %x, %y : tensor<2xf64>, tensor<3xf64>
    tl.yield %p : tensor<2x3xf64>
  }
  tl.assign @g = {
    %y = tl.use @y : tensor<3xf64>
    %c = tl.use @c : tensor<3xf64>
    %s = tl.stack %y, %c : tensor<3xf64>, tensor<3xf64>
    tl.yield %s : tensor<2x3xf64>
  }
}

// -----

// A shared subexpression under a batched contraction: computed once into
// its own tensor (8 x 8 exps), not once per element of the batch (4000 x 64).
// CHECK-LABEL: func.func private @shared.s0(
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x8xf64>) outs(%{{.*}} : tensor<8x8xf64>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[E]], %{{.*}} : tensor<8x8xf64>, tensor<4000x8xf64>) outs(%{{.*}} : tensor<4000x8xf64>)
// CHECK-NOT: math.exp
// CHECK: return
tl.program @shared batch 4000 {
  tl.var input @A : tensor<8x8xf64>
  tl.var input @x batched : tensor<4000x8xf64>
  tl.var output @y batched : tensor<4000x8xf64>
  tl.assign @y = {
    %a = tl.use @A : tensor<8x8xf64>
    %e = tl.exp %a : tensor<8x8xf64>
    %x = tl.use @x : tensor<8xf64>
    %p = tl.outer %e, %x : tensor<8x8xf64>, tensor<8xf64>
    %c = tl.contract %p [[1, 2]] : tensor<8x8x8xf64>
    tl.yield %c : tensor<8xf64>
  }
}
