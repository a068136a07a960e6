// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-lower-contraction-vectors))" | FileCheck %s --check-prefix=UNMASKED

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// A register tile 7 columns wide (the last columns of an extent of 71):
// each row of the columns' operand is one masked load of 8 lanes, the 8th
// masked off, on every step; after the loop each row of the result is one
// masked load and one masked store. The rows stay 7 wide in between (LLVM
// widens them to the register). Without vector-lanes the transfers stay 7
// wide (LLVM: loads of 4, 2 and 1, and two shuffles).
// CHECK-LABEL: func.func @seven_columns
// CHECK-SAME: (%{{.*}}: memref<2x64xf64>, %[[B:.*]]: memref<64x7xf64>, %[[C:.*]]: memref<2x7xf64>)
// CHECK: scf.for {{.*}} -> (vector<7xf64>, vector<7xf64>)
// CHECK: %[[MASK:.*]] = vector.constant_mask [7] : vector<8xi1>
// CHECK: %[[ROW:.*]] = vector.maskedload %[[B]][{{.*}}], %[[MASK]], %{{.*}} : memref<64x7xf64>, vector<8xi1>, vector<8xf64> into vector<8xf64>
// CHECK: vector.extract_strided_slice %[[ROW]] {offsets = [0], sizes = [7], strides = [1]} : vector<8xf64> to vector<7xf64>
// CHECK-COUNT-2: vector.fma {{.*}} : vector<7xf64>
// CHECK: scf.yield
// CHECK-COUNT-2: vector.maskedload %[[C]]{{.*}} : memref<2x7xf64>, vector<8xi1>, vector<8xf64> into vector<8xf64>
// CHECK-NOT: vector.transfer_read
// CHECK: %[[WIDE:.*]] = vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [0], strides = [1]} : vector<7xf64> into vector<8xf64>
// CHECK: vector.maskedstore %[[C]][{{.*}}], %{{.*}}, %[[WIDE]] : memref<2x7xf64>, vector<8xi1>, vector<8xf64>
// CHECK-NOT: vector.transfer_write
// UNMASKED-LABEL: func.func @seven_columns
// UNMASKED-NOT: vector.maskedload
// UNMASKED: vector.transfer_read {{.*}} : memref<64x7xf64>, vector<7xf64>
// UNMASKED-NOT: vector.maskedstore
func.func @seven_columns(%a: memref<2x64xf64>, %b: memref<64x7xf64>, %c: memref<2x7xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c64 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x64xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x7xf64>, vector<1x7xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x7xf64>, vector<2x7xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x7xf64> into vector<2x7xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x7xf64>, memref<2x7xf64>
  }
  return
}

// -----

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// Rows whose width is a power of two (8), or whose next power of two is
// wider than a register (11: 16 lanes of 8), and rows of an operand whose
// elements are not adjacent keep their transfers; only the unit-stride
// 7-wide rows of %g are masked.
// CHECK-LABEL: func.func @not_masked
// CHECK-SAME: %[[G:[^:]*]]: memref<2x7xf64>)
// CHECK-NOT: vector.masked{{.*}} %{{arg[0-5]}}[
// CHECK: vector.maskedload %[[G]]
// CHECK-NOT: vector.masked{{.*}} %{{arg[0-5]}}[
// CHECK: vector.transfer_read %{{.*}} : memref<4x11xf64>, vector<11xf64>
// CHECK-NOT: vector.masked{{.*}} %{{arg[0-5]}}[
// CHECK: memref.load %{{.*}} : memref<4x7xf64, strided<[14, 2]>>
// CHECK-NOT: vector.masked{{.*}} %{{arg[0-5]}}[
// CHECK: vector.maskedstore %[[G]]
// CHECK-NOT: vector.masked{{.*}} %{{arg[0-5]}}[
// CHECK: return
func.func @not_masked(%a: memref<2x4xf64>, %b: memref<4x8xf64>, %c: memref<2x8xf64>,
                      %d: memref<4x11xf64>, %e: memref<2x11xf64>,
                      %f: memref<4x7xf64, strided<[14, 2]>>, %g: memref<2x7xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  scf.for %k = %c0 to %c4 step %c1 {
    %x = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<2x4xf64>, vector<2x1xf64>
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf64>, vector<1x8xf64>
    %acc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf64>, vector<2x8xf64>
    %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<2x1xf64>, vector<1x8xf64> into vector<2x8xf64>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<2x8xf64>, memref<2x8xf64>
    %y2 = vector.transfer_read %d[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x11xf64>, vector<1x11xf64>
    %acc2 = vector.transfer_read %e[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x11xf64>, vector<2x11xf64>
    %r2 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y2, %acc2 : vector<2x1xf64>, vector<1x11xf64> into vector<2x11xf64>
    vector.transfer_write %r2, %e[%c0, %c0] {in_bounds = [true, true]} : vector<2x11xf64>, memref<2x11xf64>
    %y3 = vector.transfer_read %f[%k, %c0], %pad {in_bounds = [true, true]} : memref<4x7xf64, strided<[14, 2]>>, vector<1x7xf64>
    %acc3 = vector.transfer_read %g[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x7xf64>, vector<2x7xf64>
    %r3 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y3, %acc3 : vector<2x1xf64>, vector<1x7xf64> into vector<2x7xf64>
    vector.transfer_write %r3, %g[%c0, %c0] {in_bounds = [true, true]} : vector<2x7xf64>, memref<2x7xf64>
  }
  return
}
