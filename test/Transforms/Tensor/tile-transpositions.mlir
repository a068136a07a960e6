// A copy that moves the contiguous dimension is copied in squares of
// vector-lanes x vector-lanes: a vector read per input row, the rows
// transposed in registers (log2(lanes) rounds of two-row shuffles where the
// lanes are a power of two, a vector.transpose otherwise), a vector write
// per result row; masked where the lanes do not divide an extent. Copies that keep the last dimension are left to
// the loop vectorizer.
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-transpositions{vector-lanes=8}))" | FileCheck %s
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-transpositions{vector-lanes=8 parallel}))" | FileCheck %s --check-prefix=PARALLEL
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-transpositions{vector-lanes=8 emit-remarks}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-transpositions{vector-lanes=3}))" | FileCheck %s --check-prefix=THREE
// RUN: tl-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tl-tile-transpositions{vector-lanes=8 stream-min-bytes=16384}))" | FileCheck %s --check-prefix=STREAMED

// A matrix transposed: the squares along the result's rows (the input's
// columns) innermost, so that each input row is read on from where the
// last square left it; the read is of the input's rows (no permutation
// map), the transpose in registers.
// CHECK-LABEL: func.func @matrix
// CHECK:       scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c64 step %c8
// CHECK:           %[[R0:.*]] = vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<8x8xf64>, vector<8xf64>
// CHECK:           %[[R1:.*]] = vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<8x8xf64>, vector<8xf64>
// CHECK-COUNT-6:   vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<8x8xf64>, vector<8xf64>
// Round 1 pairs rows 0 and 1, swapping the odd columns of row 0 with the
// even ones of row 1; rounds 2 and 3 the pairs 2 and 4 apart.
// CHECK:           vector.shuffle %[[R0]], %[[R1]] [0, 8, 2, 10, 4, 12, 6, 14] : vector<8xf64>, vector<8xf64>
// CHECK:           vector.shuffle %[[R0]], %[[R1]] [1, 9, 3, 11, 5, 13, 7, 15] : vector<8xf64>, vector<8xf64>
// CHECK-COUNT-3:   vector.shuffle {{.*}} [0, 8, 2, 10, 4, 12, 6, 14]
// CHECK-COUNT-4:   vector.shuffle {{.*}} [0, 1, 8, 9, 4, 5, 12, 13]
// CHECK:           %[[C0:.*]] = vector.shuffle {{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
// CHECK-NEXT:      %[[C4:.*]] = vector.shuffle {{.*}} [4, 5, 6, 7, 12, 13, 14, 15]
// CHECK-COUNT-6:   vector.shuffle {{.*}} : vector<8xf64>, vector<8xf64>
// CHECK-NOT:       vector.shuffle
// CHECK:           vector.transfer_write %[[C0]], {{.*}} {in_bounds = [true]} : vector<8xf64>, tensor<8x8xf64>
// CHECK-COUNT-3:   vector.transfer_write
// CHECK:           vector.transfer_write %[[C4]], {{.*}} {in_bounds = [true]} : vector<8xf64>, tensor<8x8xf64>
// CHECK-COUNT-3:   vector.transfer_write
// CHECK-NOT:   vector.transpose
// CHECK-NOT:   linalg.transpose
// PARALLEL-LABEL: func.func @matrix
// PARALLEL:       scf.forall
// PARALLEL:         scf.for
// PARALLEL-COUNT-24:    vector.shuffle
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the input's rows
// A side that is not a power of two is transposed whole.
// THREE-LABEL: func.func @matrix
// THREE-COUNT-3: vector.transfer_read {{.*}} : tensor<?x?xf64>, vector<3xf64>
// THREE:         vector.transpose %{{.*}}, [1, 0] : vector<3x3xf64> to vector<3x3xf64>
// THREE-NOT:     vector.shuffle
// THREE-COUNT-3: vector.transfer_write {{.*}} : vector<3xf64>, tensor<?x?xf64>
func.func @matrix(%a: tensor<32x64xf64>) -> tensor<64x32xf64> {
  %init = tensor.empty() : tensor<64x32xf64>
  %t = linalg.transpose ins(%a : tensor<32x64xf64>) outs(%init : tensor<64x32xf64>) permutation = [1, 0]
  return %t : tensor<64x32xf64>
}

// -----

// Extents of 13 and 11 (nothing divides them): the loops' last, partial
// squares are peeled off, so that the squares of their whole steps are
// read and written without masks; only those at the ends are masked, not
// scalar. The inner loop is peeled in the outer one's whole steps only:
// three copies of the square.
// CHECK-LABEL: func.func @prime_extents
// CHECK:       scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c8
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c8
// CHECK-NOT:       vector.create_mask
// CHECK-COUNT-8:   vector.transfer_read %{{.*}}, %{{[^,]*}} {in_bounds = [true]} : tensor<?x?xf64>, vector<8xf64>
// CHECK:           vector.shuffle
// CHECK-NOT:       vector.create_mask
// CHECK:           scf.yield
// The inner loop's partial square: its input rows are whole (no row past
// the end), their columns masked.
// CHECK:         scf.for %{{.*}} = %c8{{.*}} to %c11 step %c8
// CHECK-NOT:       arith.cmpi
// CHECK:           %[[RMASK:.*]] = vector.create_mask %{{.*}} : vector<8xi1>
// CHECK:           vector.transfer_read {{.*}}, %[[RMASK]] {in_bounds = [true]} : tensor<?x?xf64>, vector<8xf64>
// CHECK:           vector.shuffle
// CHECK:           arith.cmpi ult
// CHECK:           scf.yield
// The outer loop's partial squares, masked both ways. A row past the end
// reads and writes nothing (a mask of no elements) at row 0.
// CHECK:       scf.for %{{.*}} = %c8{{.*}} to %c13 step %c8
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c11 step %c8
// CHECK:           %[[ROWS:.*]] = tensor.dim %[[IN:.*]], %c0
// CHECK:           %[[EXISTS:.*]] = arith.cmpi ult, %{{.*}}, %[[ROWS]]
// CHECK:           %[[COUNT:.*]] = arith.select %[[EXISTS]]
// CHECK:           %[[ROW:.*]] = arith.select %[[EXISTS]]
// CHECK:           %[[MASK:.*]] = vector.create_mask %[[COUNT]] : vector<8xi1>
// CHECK:           vector.transfer_read %[[IN]][%[[ROW]], %{{.*}}], %{{.*}}, %[[MASK]] {in_bounds = [true]} : tensor<?x?xf64>, vector<8xf64>
// CHECK:           vector.shuffle
// CHECK:           %[[WMASK:.*]] = vector.create_mask
// CHECK:           vector.transfer_write {{.*}}, %[[WMASK]] {in_bounds = [true]} : vector<8xf64>, tensor<?x?xf64>
// CHECK-NOT:   linalg.transpose
// REMARK: remark: transposition copied in squares of 8x8
func.func @prime_extents(%a: tensor<13x11xf64>) -> tensor<11x13xf64> {
  %init = tensor.empty() : tensor<11x13xf64>
  %t = linalg.transpose ins(%a : tensor<13x11xf64>) outs(%init : tensor<11x13xf64>) permutation = [1, 0]
  return %t : tensor<11x13xf64>
}

// -----

// Extents known at run time: the same three copies, the loops' whole steps
// ending at the largest multiple of 8 and their squares unmasked.
// CHECK-LABEL: func.func @sized
// CHECK:       %[[ROWS:.*]] = affine.apply #{{.*}}()[%{{.*}}, %{{.*}}, %c8]
// CHECK:       scf.for %{{.*}} = %{{.*}} to %[[ROWS]] step %c8
// CHECK:         %[[COLUMNS:.*]] = affine.apply
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[COLUMNS]] step %c8
// CHECK-NOT:       vector.create_mask
// CHECK:           vector.shuffle
// CHECK-NOT:       vector.create_mask
// CHECK:           scf.yield
// CHECK:         scf.for %{{.*}} = %[[COLUMNS]] to
// CHECK:           vector.create_mask
// CHECK:       scf.for %{{.*}} = %[[ROWS]] to
// CHECK:         scf.for
// CHECK:           vector.create_mask
// REMARK: remark: transposition copied in squares of 8x8
func.func @sized(%a: tensor<?x?xf64>, %init: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %t = linalg.transpose ins(%a : tensor<?x?xf64>) outs(%init : tensor<?x?xf64>) permutation = [1, 0]
  return %t : tensor<?x?xf64>
}

// -----

// Rank 5, as TCCG abcde-ecbfa-fd needs it (A[a,f,b,c,e] -> [f,b,c,e,a]):
// every other dimension one at a time, outermost in the result's order;
// the square spans e (the input's last) and a (the result's last).
#in = affine_map<(d0, d1, d2, d3, d4) -> (d4, d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @rank5_generic
// CHECK:       scf.for %{{.*}} = %c0{{.*}} to %c6 step %c1
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c4 step %c1
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c5 step %c1
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c16 step %c8
// CHECK:               scf.for %{{.*}} = %c0{{.*}} to %c24 step %c8
// CHECK:                 tensor.extract_slice {{.*}} tensor<1x1x1x8x8xf64> to tensor<8x8xf64>
// CHECK-COUNT-8:         vector.transfer_read {{.*}} : tensor<8x8xf64>, vector<8xf64>
// CHECK:                 vector.shuffle
// CHECK-NOT:   linalg.generic
// REMARK: remark: transposition copied in squares of 8x8: result dimension d4 by input dimension d3, along the input's rows
func.func @rank5_generic(%a: tensor<16x6x4x5x24xf64>) -> tensor<6x4x5x24x16xf64> {
  %init = tensor.empty() : tensor<6x4x5x24x16xf64>
  %t = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%a : tensor<16x6x4x5x24xf64>) outs(%init : tensor<6x4x5x24x16xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  } -> tensor<6x4x5x24x16xf64>
  return %t : tensor<6x4x5x24x16xf64>
}

// -----

// The last dimension stays last: rows are copied whole, left alone.
// CHECK-LABEL: func.func @keeps_last_dimension
// CHECK:       linalg.transpose
// CHECK-NOT:   vector.shuffle
// REMARK-NOT: remark
func.func @keeps_last_dimension(%a: tensor<8x16x32xf64>) -> tensor<16x8x32xf64> {
  %init = tensor.empty() : tensor<16x8x32xf64>
  %t = linalg.transpose ins(%a : tensor<8x16x32xf64>) outs(%init : tensor<16x8x32xf64>) permutation = [1, 0, 2]
  return %t : tensor<16x8x32xf64>
}

// -----

// A generic that computes rather than copies is not a transposition.
#in2 = affine_map<(d0, d1) -> (d1, d0)>
#out2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @not_a_copy
// CHECK:       linalg.generic
// CHECK-NOT:   vector.shuffle
func.func @not_a_copy(%a: tensor<16x16xf64>) -> tensor<16x16xf64> {
  %init = tensor.empty() : tensor<16x16xf64>
  %t = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x16xf64>) outs(%init : tensor<16x16xf64>) {
  ^bb0(%x: f64, %y: f64):
    %n = arith.negf %x : f64
    linalg.yield %n : f64
  } -> tensor<16x16xf64>
  return %t : tensor<16x16xf64>
}

// -----

// A result larger than the L2 cache (4 KiB here) that tl-streaming-stores
// does not stream (below 32 MiB) is written through the caches, each line
// read for ownership first: the squares go along the result's rows (of
// 32, innermost), so that the missing lines are the input's, loads. Where
// it is streamed (16 KiB with stream-min-bytes=16384, rows of 256 bytes),
// along the input's rows (of 64).
// CHECK-LABEL: func.func @beyond_l2
// CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %c32 step %c8
// CHECK-COUNT-24:  vector.shuffle
// STREAMED-LABEL: func.func @beyond_l2
// STREAMED:       scf.for %{{.*}} = %c0 to %c32 step %c8
// STREAMED:         scf.for %{{.*}} = %c0{{.*}} to %c64 step %c8
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the result's rows
module attributes {tl.target = #tl.target<triple = "x86_64-unknown-linux-gnu",
    cpu = "x86-64-v4", vector_bits = 512, vector_registers = 32,
    l1_cache_bytes = 1024, l2_cache_bytes = 4096, cache_line_bytes = 64>} {
  func.func @beyond_l2(%a: tensor<32x64xf64>) -> tensor<64x32xf64> {
    %init = tensor.empty() : tensor<64x32xf64>
    %t = linalg.transpose ins(%a : tensor<32x64xf64>) outs(%init : tensor<64x32xf64>) permutation = [1, 0]
    return %t : tensor<64x32xf64>
  }
}

// -----

// Extents known at run time: a temporary copied whole at the function's
// top (a transposed copy of an operand) along the result's rows; a
// program's variable (a view of an argument's memory, which
// tl-streaming-stores streams where the sizes allow) along the input's.
// CHECK-LABEL: func.func @sized_temporary_and_variable
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK:         scf.for
// CHECK:           vector.transfer_read %{{.*}} : tensor<?x?xf64>, vector<8xf64>
// CHECK:       linalg.yield
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the result's rows
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the input's rows
func.func @sized_temporary_and_variable(%a: tensor<?x?xf64>, %out: memref<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %a, %c0 : tensor<?x?xf64>
  %columns = tensor.dim %a, %c1 : tensor<?x?xf64>
  %init = tensor.empty(%columns, %rows) : tensor<?x?xf64>
  %t = linalg.transpose ins(%a : tensor<?x?xf64>) outs(%init : tensor<?x?xf64>) permutation = [1, 0]
  %variable = bufferization.to_tensor %out restrict writable : memref<?x?xf64> to tensor<?x?xf64>
  %u = linalg.transpose ins(%t : tensor<?x?xf64>) outs(%variable : tensor<?x?xf64>) permutation = [1, 0]
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<?x?xf64>) outs(%u : tensor<?x?xf64>) {
  ^bb0(%x: f64, %y: f64):
    %z = arith.addf %x, %y : f64
    linalg.yield %z : f64
  }  -> tensor<?x?xf64>
  return %sum : tensor<?x?xf64>
}

// -----

// On buffers, as the compiler runs the pass (after bufferization): the
// same squares, each row read from the input's subview and written into
// the result's in place, the copy erased. A temporary (an allocation) of
// run-time extents copied whole at the function's top goes along the
// result's rows; a view of an argument's memory (a program's variable),
// along the input's.
// CHECK-LABEL: func.func @sized_buffers
// CHECK:       %[[TEMPORARY:.*]] = memref.alloc
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK:           %[[FROM:.*]] = memref.subview %{{.*}} : memref<?x?xf64> to memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK:           %[[TO:.*]] = memref.subview %[[TEMPORARY]]
// CHECK-NOT:       vector.create_mask
// CHECK-COUNT-8:   vector.transfer_read %[[FROM]][{{.*}}], %{{.*}} {in_bounds = [true]} : memref<?x?xf64, strided<[?, 1], offset: ?>>, vector<8xf64>
// CHECK-COUNT-24:  vector.shuffle
// CHECK-COUNT-8:   vector.transfer_write %{{.*}}, %[[TO]][{{.*}}] {in_bounds = [true]} : vector<8xf64>, memref<?x?xf64, strided<[?, 1], offset: ?>>
// CHECK:         }
// CHECK:         scf.for
// CHECK:           vector.create_mask
// CHECK-NOT:   linalg.transpose
// CHECK:       return
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the result's rows
// REMARK: remark: transposition copied in squares of 8x8: result dimension d1 by input dimension d0, along the input's rows
func.func @sized_buffers(%a: memref<?x?xf64>, %out: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf64>
  %columns = memref.dim %a, %c1 : memref<?x?xf64>
  %temporary = memref.alloc(%columns, %rows) : memref<?x?xf64>
  linalg.transpose ins(%a : memref<?x?xf64>) outs(%temporary : memref<?x?xf64>) permutation = [1, 0]
  %variable = memref.reinterpret_cast %out to offset: [0], sizes: [%rows, %columns], strides: [%columns, 1] : memref<?x?xf64> to memref<?x?xf64, strided<[?, 1]>>
  linalg.transpose ins(%temporary : memref<?x?xf64>) outs(%variable : memref<?x?xf64, strided<[?, 1]>>) permutation = [1, 0]
  memref.dealloc %temporary : memref<?x?xf64>
  return
}
