// A statement marked by tl-distribute: after it, the program's function
// sums its target over the processes, through the MPI runtime, with the
// communicator (the function's first argument, MPI's Fortran handle), the
// target's address and its number of elements (the sizes' values
// included). The function is `<name>_mpi`.
// RUN: tl-opt %s --convert-tl-to-linalg | FileCheck %s

// CHECK: func.func private @tensorlang_allreduce_sum_f64(i32, i64, i64)
// CHECK-LABEL: func.func @sums_mpi(
// CHECK-SAME: %[[COMM:[^:]*]]: i32 {tl.comm}, %{{.*}}: index {tl.size = "E"}, %[[N:[^:]*]]: index {tl.size = "N"}, %{{.*}}: memref<f64> {{{.*}}tl.name = "u"}, %[[G:[^:]*]]: memref<f64>
// CHECK: call @sums.s0
// CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// The count: N * N.
// CHECK: %[[ONE:.*]] = arith.muli %{{.*}}, %[[N]]
// CHECK: %[[COUNT:.*]] = arith.muli %[[ONE]], %[[N]]
// CHECK: %[[A:.*]] = arith.index_cast %[[ADDRESS]] : index to i64
// CHECK: %[[C:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK: call @tensorlang_allreduce_sum_f64(%[[COMM]], %[[A]], %[[C]]) : (i32, i64, i64) -> ()
// CHECK-NEXT: return
tl.program @sums attributes {tl.distributed = @E} {
  tl.size @E
  tl.size @N
  tl.var input @u : tensor<?x?xf64, [@E, @N]>
  tl.var output @g : tensor<?x?xf64, [@N, @N]>
  tl.assign @g attributes {tl.allreduce} = {
    %u = tl.use @u : tensor<?x?xf64, [@E, @N]>
    %p = tl.outer %u, %u : tensor<?x?xf64, [@E, @N]>, tensor<?x?xf64, [@E, @N]>
    %c = tl.contract %p [[0, 2]] : tensor<?x?x?x?xf64, [@E, @N, @E, @N]>
    tl.yield %c : tensor<?x?xf64, [@N, @N]>
  }
}
