// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-optimize-contractions))' | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-optimize-contractions{max-exact-factors=1}))' | FileCheck %s --check-prefix=GREEDY
// RUN: tl-opt %s --split-input-file --pass-pipeline='builtin.module(tl.program(tl-optimize-contractions{max-intermediate-elements=100}))' | FileCheck %s --check-prefix=BOUNDED

// CFD interpolation, u # A # A # A . [[2 6] [3 8] [4 10]]: E p^6 as
// written, three pairwise contractions of E p^4 each. Each step contracts
// one dimension of the intermediate with A's second; the intermediate keeps
// its dimensions in place, with A's first in the place of the one summed,
// so that the last (unit-stride) dimension stays last where it is kept
// (tl-tile-contractions reads it as vectors); the last step yields v's
// dimensions in order.
// CHECK-LABEL: tl.program @cfd
// CHECK: tl.assign @v
// CHECK-DAG: %[[U:.*]] = tl.use @u
// CHECK-DAG: %[[A:.*]] = tl.use @A
// CHECK: %[[P1:.*]] = tl.outer %[[U]], %{{.*}} : tensor<40x5x5x5xf64>, tensor<5x5xf64>
// CHECK-NEXT: %[[C1:.*]] = tl.contract %[[P1]] {{\[}}[3, 5]] : tensor<40x5x5x5x5x5xf64>
// CHECK-NEXT: %[[P2:.*]] = tl.outer %[[C1]], %{{.*}} : tensor<40x5x5x5xf64>, tensor<5x5xf64>
// CHECK-NEXT: %[[T2:.*]] = tl.transpose %[[P2]] {{\[}}[2, 4]] : tensor<40x5x5x5x5x5xf64>
// CHECK-NEXT: %[[C2:.*]] = tl.contract %[[T2]] {{\[}}[4, 5]] : tensor<40x5x5x5x5x5xf64>
// CHECK-NEXT: %[[P3:.*]] = tl.outer %[[C2]], %{{.*}} : tensor<40x5x5x5xf64>, tensor<5x5xf64>
// CHECK-NEXT: %[[T3:.*]] = tl.transpose %[[P3]] {{\[}}[1, 4]] : tensor<40x5x5x5x5x5xf64>
// CHECK-NEXT: %[[C3:.*]] = tl.contract %[[T3]] {{\[}}[4, 5]] : tensor<40x5x5x5x5x5xf64>
// CHECK-NEXT: tl.yield %[[C3]] : tensor<40x5x5x5xf64>
// CHECK-NOT: tensor<40x5x5x5x5x5x5x5x5x5xf64>
// GREEDY-LABEL: tl.program @cfd
// GREEDY-COUNT-3: tl.contract %{{.*}} : tensor<40x5x5x5x5x5xf64>
// GREEDY-NEXT: tl.yield
// BOUNDED-LABEL: tl.program @cfd
// BOUNDED: tl.contract %{{.*}} {{\[}}[1, 5], [2, 7], [3, 9]] : tensor<40x5x5x5x5x5x5x5x5x5xf64>
tl.program @cfd {
  tl.var input @u : tensor<40x5x5x5xf64>
  tl.var input @A : tensor<5x5xf64>
  tl.var output @v : tensor<40x5x5x5xf64>
  tl.assign @v = {
    %u = tl.use @u : tensor<40x5x5x5xf64>
    %a = tl.use @A : tensor<5x5xf64>
    %0 = tl.outer %u, %a : tensor<40x5x5x5xf64>, tensor<5x5xf64>
    %1 = tl.outer %0, %a : tensor<40x5x5x5x5x5xf64>, tensor<5x5xf64>
    %2 = tl.outer %1, %a : tensor<40x5x5x5x5x5x5x5xf64>, tensor<5x5xf64>
    %3 = tl.contract %2 [[1, 5], [2, 7], [3, 9]] : tensor<40x5x5x5x5x5x5x5x5x5xf64>
    tl.yield %3 : tensor<40x5x5x5xf64>
  }
}

// -----

// The classic matrix chain: with A 10x1000, B 1000x10, C 10x1000 the
// product (A B) C costs 2e5 multiply-adds, A (B C) 2e7, as written 1e8.
// CHECK-LABEL: tl.program @chain_left
// CHECK: %[[AB:.*]] = tl.outer %{{.*}}, %{{.*}} : tensor<10x1000xf64>, tensor<1000x10xf64>
// CHECK-NEXT: %[[M:.*]] = tl.contract %[[AB]] {{\[}}[1, 2]] : tensor<10x1000x1000x10xf64>
// CHECK-NEXT: %[[P:.*]] = tl.outer %[[M]], %{{.*}} : tensor<10x10xf64>, tensor<10x1000xf64>
// CHECK-NEXT: %[[D:.*]] = tl.contract %[[P]] {{\[}}[1, 2]] : tensor<10x10x10x1000xf64>
// CHECK-NEXT: tl.yield %[[D]]
tl.program @chain_left {
  tl.var input @A : tensor<10x1000xf64>
  tl.var input @B : tensor<1000x10xf64>
  tl.var input @C : tensor<10x1000xf64>
  tl.var output @D : tensor<10x1000xf64>
  tl.assign @D = {
    %a = tl.use @A : tensor<10x1000xf64>
    %b = tl.use @B : tensor<1000x10xf64>
    %c = tl.use @C : tensor<10x1000xf64>
    %0 = tl.outer %a, %b : tensor<10x1000xf64>, tensor<1000x10xf64>
    %1 = tl.outer %0, %c : tensor<10x1000x1000x10xf64>, tensor<10x1000xf64>
    %2 = tl.contract %1 [[1, 2], [3, 4]] : tensor<10x1000x1000x10x10x1000xf64>
    tl.yield %2 : tensor<10x1000xf64>
  }
}

// -----

// With A 1000x10, B 10x1000, C 1000x10 it is A (B C). The 10x10
// intermediate B C is the plain matrix product: B's row index, then C's
// column index (D's), no transposition.
// CHECK-LABEL: tl.program @chain_right
// CHECK: %[[BC:.*]] = tl.outer %{{.*}}, %{{.*}} : tensor<10x1000xf64>, tensor<1000x10xf64>
// CHECK-NEXT: %[[S:.*]] = tl.contract %[[BC]] {{\[}}[1, 2]] : tensor<10x1000x1000x10xf64>
// CHECK-NEXT: %[[P:.*]] = tl.outer %{{.*}}, %[[S]] : tensor<1000x10xf64>, tensor<10x10xf64>
// CHECK-NEXT: %[[D:.*]] = tl.contract %[[P]] {{\[}}[1, 2]] : tensor<1000x10x10x10xf64>
// CHECK-NEXT: tl.yield %[[D]]
tl.program @chain_right {
  tl.var input @A : tensor<1000x10xf64>
  tl.var input @B : tensor<10x1000xf64>
  tl.var input @C : tensor<1000x10xf64>
  tl.var output @D : tensor<1000x10xf64>
  tl.assign @D = {
    %a = tl.use @A : tensor<1000x10xf64>
    %b = tl.use @B : tensor<10x1000xf64>
    %c = tl.use @C : tensor<1000x10xf64>
    %0 = tl.outer %a, %b : tensor<1000x10xf64>, tensor<10x1000xf64>
    %1 = tl.outer %0, %c : tensor<1000x10x10x1000xf64>, tensor<1000x10xf64>
    %2 = tl.contract %1 [[1, 2], [3, 4]] : tensor<1000x10x10x1000x1000x10xf64>
    tl.yield %2 : tensor<1000x10xf64>
  }
}

// -----

// Trees whose best order is one loop nest stay as written: a matrix
// product, and the trace of a product (O(n^2) as one nest).
// CHECK-LABEL: tl.program @unchanged
// CHECK: %[[P:.*]] = tl.outer
// CHECK-NEXT: %[[M:.*]] = tl.contract %[[P]] {{\[}}[1, 2]] : tensor<30x40x40x30xf64>
// CHECK-NEXT: tl.yield %[[M]]
// CHECK: %[[Q:.*]] = tl.outer
// CHECK-NEXT: %[[N:.*]] = tl.contract %[[Q]] {{\[}}[1, 2]] : tensor<30x40x40x30xf64>
// CHECK-NEXT: %[[T:.*]] = tl.contract %[[N]] {{\[}}[0, 1]] : tensor<30x30xf64>
// CHECK-NEXT: tl.yield %[[T]]
tl.program @unchanged {
  tl.var input @A : tensor<30x40xf64>
  tl.var input @B : tensor<40x30xf64>
  tl.var output @C : tensor<30x30xf64>
  tl.var output @s : tensor<f64>
  tl.assign @C = {
    %a = tl.use @A : tensor<30x40xf64>
    %b = tl.use @B : tensor<40x30xf64>
    %0 = tl.outer %a, %b : tensor<30x40xf64>, tensor<40x30xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<30x40x40x30xf64>
    tl.yield %1 : tensor<30x30xf64>
  }
  tl.assign @s = {
    %a = tl.use @A : tensor<30x40xf64>
    %b = tl.use @B : tensor<40x30xf64>
    %0 = tl.outer %a, %b : tensor<30x40xf64>, tensor<40x30xf64>
    %1 = tl.contract %0 [[1, 2]] : tensor<30x40x40x30xf64>
    %2 = tl.contract %1 [[0, 1]] : tensor<30x30xf64>
    tl.yield %2 : tensor<f64>
  }
}

// -----

// A scalar factor is a factor like any other: it is multiplied where the
// intermediate is smallest (into the 10x10 matrix B C, not the 1000x10
// result), and arithmetic beneath a tree is one factor of it.
// CHECK-LABEL: tl.program @scalar
// CHECK: %[[S:.*]] = tl.use @s : tensor<f64>
// CHECK: %[[SUM:.*]] = tl.add
// CHECK: %[[BC:.*]] = tl.contract %{{.*}} : tensor<10x1000x1000x10xf64>
// CHECK-NEXT: %[[SBC:.*]] = tl.outer %[[S]], %[[BC]] : tensor<f64>, tensor<10x10xf64>
// CHECK-NEXT: tl.outer %[[SBC]], %[[SUM]] : tensor<10x10xf64>, tensor<1000x10xf64>
tl.program @scalar {
  tl.var input @s : tensor<f64>
  tl.var input @A : tensor<1000x10xf64>
  tl.var input @B : tensor<10x1000xf64>
  tl.var input @C : tensor<1000x10xf64>
  tl.var output @D : tensor<1000x10xf64>
  tl.assign @D = {
    %s = tl.use @s : tensor<f64>
    %a = tl.use @A : tensor<1000x10xf64>
    %b = tl.use @B : tensor<10x1000xf64>
    %c = tl.use @C : tensor<1000x10xf64>
    %sum = tl.add %a, %a : tensor<1000x10xf64>, tensor<1000x10xf64>
    %0 = tl.outer %sum, %b : tensor<1000x10xf64>, tensor<10x1000xf64>
    %1 = tl.outer %0, %c : tensor<1000x10x10x1000xf64>, tensor<1000x10xf64>
    %2 = tl.contract %1 [[1, 2], [3, 4]] : tensor<1000x10x10x1000x1000x10xf64>
    %3 = tl.mul %s, %2 : tensor<f64>, tensor<1000x10xf64>
    tl.yield %3 : tensor<1000x10xf64>
  }
}
