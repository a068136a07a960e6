// RUN: tl-opt %s --tl-pad="multiple=4" | FileCheck %s

// A statement whose tree shares each value twice, 64 levels deep (as MLIR
// can write it): the padding analyses visit each value once; a plain
// recursion would take 2^64 steps.
// CHECK-LABEL: tl.program @shared
// CHECK: tl.assign @x = {
// CHECK-NOT: tl.zero_padding
// CHECK: tl.yield %{{.*}} : tensor<4xf64>
// CHECK: tl.assign @y = {
// CHECK: %[[E:.*]] = tl.exp
// CHECK-NEXT: %[[Z:.*]] = tl.zero_padding %[[E]] [3] : tensor<4xf64>
// CHECK-NEXT: tl.add %[[Z]], %[[Z]]
// CHECK-NOT: tl.zero_padding
// CHECK: tl.outer
tl.program @shared {
  tl.var @x : tensor<3xf64>
  tl.var @y : tensor<f64>
  tl.assign @x = {
    %v0 = tl.use @x : tensor<3xf64>
    %v1 = tl.add %v0, %v0 : tensor<3xf64>, tensor<3xf64>
    %v2 = tl.add %v1, %v1 : tensor<3xf64>, tensor<3xf64>
    %v3 = tl.add %v2, %v2 : tensor<3xf64>, tensor<3xf64>
    %v4 = tl.add %v3, %v3 : tensor<3xf64>, tensor<3xf64>
    %v5 = tl.add %v4, %v4 : tensor<3xf64>, tensor<3xf64>
    %v6 = tl.add %v5, %v5 : tensor<3xf64>, tensor<3xf64>
    %v7 = tl.add %v6, %v6 : tensor<3xf64>, tensor<3xf64>
    %v8 = tl.add %v7, %v7 : tensor<3xf64>, tensor<3xf64>
    %v9 = tl.add %v8, %v8 : tensor<3xf64>, tensor<3xf64>
    %v10 = tl.add %v9, %v9 : tensor<3xf64>, tensor<3xf64>
    %v11 = tl.add %v10, %v10 : tensor<3xf64>, tensor<3xf64>
    %v12 = tl.add %v11, %v11 : tensor<3xf64>, tensor<3xf64>
    %v13 = tl.add %v12, %v12 : tensor<3xf64>, tensor<3xf64>
    %v14 = tl.add %v13, %v13 : tensor<3xf64>, tensor<3xf64>
    %v15 = tl.add %v14, %v14 : tensor<3xf64>, tensor<3xf64>
    %v16 = tl.add %v15, %v15 : tensor<3xf64>, tensor<3xf64>
    %v17 = tl.add %v16, %v16 : tensor<3xf64>, tensor<3xf64>
    %v18 = tl.add %v17, %v17 : tensor<3xf64>, tensor<3xf64>
    %v19 = tl.add %v18, %v18 : tensor<3xf64>, tensor<3xf64>
    %v20 = tl.add %v19, %v19 : tensor<3xf64>, tensor<3xf64>
    %v21 = tl.add %v20, %v20 : tensor<3xf64>, tensor<3xf64>
    %v22 = tl.add %v21, %v21 : tensor<3xf64>, tensor<3xf64>
    %v23 = tl.add %v22, %v22 : tensor<3xf64>, tensor<3xf64>
    %v24 = tl.add %v23, %v23 : tensor<3xf64>, tensor<3xf64>
    %v25 = tl.add %v24, %v24 : tensor<3xf64>, tensor<3xf64>
    %v26 = tl.add %v25, %v25 : tensor<3xf64>, tensor<3xf64>
    %v27 = tl.add %v26, %v26 : tensor<3xf64>, tensor<3xf64>
    %v28 = tl.add %v27, %v27 : tensor<3xf64>, tensor<3xf64>
    %v29 = tl.add %v28, %v28 : tensor<3xf64>, tensor<3xf64>
    %v30 = tl.add %v29, %v29 : tensor<3xf64>, tensor<3xf64>
    %v31 = tl.add %v30, %v30 : tensor<3xf64>, tensor<3xf64>
    %v32 = tl.add %v31, %v31 : tensor<3xf64>, tensor<3xf64>
    %v33 = tl.add %v32, %v32 : tensor<3xf64>, tensor<3xf64>
    %v34 = tl.add %v33, %v33 : tensor<3xf64>, tensor<3xf64>
    %v35 = tl.add %v34, %v34 : tensor<3xf64>, tensor<3xf64>
    %v36 = tl.add %v35, %v35 : tensor<3xf64>, tensor<3xf64>
    %v37 = tl.add %v36, %v36 : tensor<3xf64>, tensor<3xf64>
    %v38 = tl.add %v37, %v37 : tensor<3xf64>, tensor<3xf64>
    %v39 = tl.add %v38, %v38 : tensor<3xf64>, tensor<3xf64>
    %v40 = tl.add %v39, %v39 : tensor<3xf64>, tensor<3xf64>
    %v41 = tl.add %v40, %v40 : tensor<3xf64>, tensor<3xf64>
    %v42 = tl.add %v41, %v41 : tensor<3xf64>, tensor<3xf64>
    %v43 = tl.add %v42, %v42 : tensor<3xf64>, tensor<3xf64>
    %v44 = tl.add %v43, %v43 : tensor<3xf64>, tensor<3xf64>
    %v45 = tl.add %v44, %v44 : tensor<3xf64>, tensor<3xf64>
    %v46 = tl.add %v45, %v45 : tensor<3xf64>, tensor<3xf64>
    %v47 = tl.add %v46, %v46 : tensor<3xf64>, tensor<3xf64>
    %v48 = tl.add %v47, %v47 : tensor<3xf64>, tensor<3xf64>
    %v49 = tl.add %v48, %v48 : tensor<3xf64>, tensor<3xf64>
    %v50 = tl.add %v49, %v49 : tensor<3xf64>, tensor<3xf64>
    %v51 = tl.add %v50, %v50 : tensor<3xf64>, tensor<3xf64>
    %v52 = tl.add %v51, %v51 : tensor<3xf64>, tensor<3xf64>
    %v53 = tl.add %v52, %v52 : tensor<3xf64>, tensor<3xf64>
    %v54 = tl.add %v53, %v53 : tensor<3xf64>, tensor<3xf64>
    %v55 = tl.add %v54, %v54 : tensor<3xf64>, tensor<3xf64>
    %v56 = tl.add %v55, %v55 : tensor<3xf64>, tensor<3xf64>
    %v57 = tl.add %v56, %v56 : tensor<3xf64>, tensor<3xf64>
    %v58 = tl.add %v57, %v57 : tensor<3xf64>, tensor<3xf64>
    %v59 = tl.add %v58, %v58 : tensor<3xf64>, tensor<3xf64>
    %v60 = tl.add %v59, %v59 : tensor<3xf64>, tensor<3xf64>
    %v61 = tl.add %v60, %v60 : tensor<3xf64>, tensor<3xf64>
    %v62 = tl.add %v61, %v61 : tensor<3xf64>, tensor<3xf64>
    %v63 = tl.add %v62, %v62 : tensor<3xf64>, tensor<3xf64>
    %v64 = tl.add %v63, %v63 : tensor<3xf64>, tensor<3xf64>
    tl.yield %v64 : tensor<3xf64>
  }
  // A contraction over the chain: its operand is checked the same way.
  tl.assign @y = {
    %x = tl.use @x : tensor<3xf64>
    %e = tl.exp %x : tensor<3xf64>
    %w1 = tl.add %e, %e : tensor<3xf64>, tensor<3xf64>
    %w2 = tl.add %w1, %w1 : tensor<3xf64>, tensor<3xf64>
    %w3 = tl.add %w2, %w2 : tensor<3xf64>, tensor<3xf64>
    %w4 = tl.add %w3, %w3 : tensor<3xf64>, tensor<3xf64>
    %w5 = tl.add %w4, %w4 : tensor<3xf64>, tensor<3xf64>
    %w6 = tl.add %w5, %w5 : tensor<3xf64>, tensor<3xf64>
    %w7 = tl.add %w6, %w6 : tensor<3xf64>, tensor<3xf64>
    %w8 = tl.add %w7, %w7 : tensor<3xf64>, tensor<3xf64>
    %w9 = tl.add %w8, %w8 : tensor<3xf64>, tensor<3xf64>
    %w10 = tl.add %w9, %w9 : tensor<3xf64>, tensor<3xf64>
    %w11 = tl.add %w10, %w10 : tensor<3xf64>, tensor<3xf64>
    %w12 = tl.add %w11, %w11 : tensor<3xf64>, tensor<3xf64>
    %w13 = tl.add %w12, %w12 : tensor<3xf64>, tensor<3xf64>
    %w14 = tl.add %w13, %w13 : tensor<3xf64>, tensor<3xf64>
    %w15 = tl.add %w14, %w14 : tensor<3xf64>, tensor<3xf64>
    %w16 = tl.add %w15, %w15 : tensor<3xf64>, tensor<3xf64>
    %w17 = tl.add %w16, %w16 : tensor<3xf64>, tensor<3xf64>
    %w18 = tl.add %w17, %w17 : tensor<3xf64>, tensor<3xf64>
    %w19 = tl.add %w18, %w18 : tensor<3xf64>, tensor<3xf64>
    %w20 = tl.add %w19, %w19 : tensor<3xf64>, tensor<3xf64>
    %w21 = tl.add %w20, %w20 : tensor<3xf64>, tensor<3xf64>
    %w22 = tl.add %w21, %w21 : tensor<3xf64>, tensor<3xf64>
    %w23 = tl.add %w22, %w22 : tensor<3xf64>, tensor<3xf64>
    %w24 = tl.add %w23, %w23 : tensor<3xf64>, tensor<3xf64>
    %w25 = tl.add %w24, %w24 : tensor<3xf64>, tensor<3xf64>
    %w26 = tl.add %w25, %w25 : tensor<3xf64>, tensor<3xf64>
    %w27 = tl.add %w26, %w26 : tensor<3xf64>, tensor<3xf64>
    %w28 = tl.add %w27, %w27 : tensor<3xf64>, tensor<3xf64>
    %w29 = tl.add %w28, %w28 : tensor<3xf64>, tensor<3xf64>
    %w30 = tl.add %w29, %w29 : tensor<3xf64>, tensor<3xf64>
    %w31 = tl.add %w30, %w30 : tensor<3xf64>, tensor<3xf64>
    %w32 = tl.add %w31, %w31 : tensor<3xf64>, tensor<3xf64>
    %w33 = tl.add %w32, %w32 : tensor<3xf64>, tensor<3xf64>
    %w34 = tl.add %w33, %w33 : tensor<3xf64>, tensor<3xf64>
    %w35 = tl.add %w34, %w34 : tensor<3xf64>, tensor<3xf64>
    %w36 = tl.add %w35, %w35 : tensor<3xf64>, tensor<3xf64>
    %w37 = tl.add %w36, %w36 : tensor<3xf64>, tensor<3xf64>
    %w38 = tl.add %w37, %w37 : tensor<3xf64>, tensor<3xf64>
    %w39 = tl.add %w38, %w38 : tensor<3xf64>, tensor<3xf64>
    %w40 = tl.add %w39, %w39 : tensor<3xf64>, tensor<3xf64>
    %w41 = tl.add %w40, %w40 : tensor<3xf64>, tensor<3xf64>
    %w42 = tl.add %w41, %w41 : tensor<3xf64>, tensor<3xf64>
    %w43 = tl.add %w42, %w42 : tensor<3xf64>, tensor<3xf64>
    %w44 = tl.add %w43, %w43 : tensor<3xf64>, tensor<3xf64>
    %w45 = tl.add %w44, %w44 : tensor<3xf64>, tensor<3xf64>
    %w46 = tl.add %w45, %w45 : tensor<3xf64>, tensor<3xf64>
    %w47 = tl.add %w46, %w46 : tensor<3xf64>, tensor<3xf64>
    %w48 = tl.add %w47, %w47 : tensor<3xf64>, tensor<3xf64>
    %w49 = tl.add %w48, %w48 : tensor<3xf64>, tensor<3xf64>
    %w50 = tl.add %w49, %w49 : tensor<3xf64>, tensor<3xf64>
    %w51 = tl.add %w50, %w50 : tensor<3xf64>, tensor<3xf64>
    %w52 = tl.add %w51, %w51 : tensor<3xf64>, tensor<3xf64>
    %w53 = tl.add %w52, %w52 : tensor<3xf64>, tensor<3xf64>
    %w54 = tl.add %w53, %w53 : tensor<3xf64>, tensor<3xf64>
    %w55 = tl.add %w54, %w54 : tensor<3xf64>, tensor<3xf64>
    %w56 = tl.add %w55, %w55 : tensor<3xf64>, tensor<3xf64>
    %w57 = tl.add %w56, %w56 : tensor<3xf64>, tensor<3xf64>
    %w58 = tl.add %w57, %w57 : tensor<3xf64>, tensor<3xf64>
    %w59 = tl.add %w58, %w58 : tensor<3xf64>, tensor<3xf64>
    %w60 = tl.add %w59, %w59 : tensor<3xf64>, tensor<3xf64>
    %w61 = tl.add %w60, %w60 : tensor<3xf64>, tensor<3xf64>
    %w62 = tl.add %w61, %w61 : tensor<3xf64>, tensor<3xf64>
    %w63 = tl.add %w62, %w62 : tensor<3xf64>, tensor<3xf64>
    %w64 = tl.add %w63, %w63 : tensor<3xf64>, tensor<3xf64>
    %p = tl.outer %w64, %w64 : tensor<3xf64>, tensor<3xf64>
    %c = tl.contract %p [[0, 1]] : tensor<3x3xf64>
    tl.yield %c : tensor<f64>
  }
}
