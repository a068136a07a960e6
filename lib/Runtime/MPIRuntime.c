/*===- MPIRuntime.c - The runtime of distributed programs -----------------===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Compiled against the MPI library's own mpi.h, so that its handles and
   types are right whatever the implementation (MLIR 22's mpi dialect
   assumes MPICH's ABI unless told otherwise, and gets OpenMPI's reduction
   symbols and split communicators wrong: docs/distributed.md). */

#include "tensorlang-c/MPIRuntime.h"

#include <limits.h>
#include <stdio.h>

/* MPI counts are int: large buffers go in pieces. */
static void allreduce(int32_t comm, void *buffer, int64_t count,
                      MPI_Datatype type, int64_t elementBytes) {
  MPI_Comm communicator = MPI_Comm_f2c((MPI_Fint)comm);
  char *bytes = (char *)buffer;
  while (count > 0) {
    int piece = count > INT_MAX ? INT_MAX : (int)count;
    int status =
        MPI_Allreduce(MPI_IN_PLACE, bytes, piece, type, MPI_SUM, communicator);
    if (status != MPI_SUCCESS) {
      fprintf(stderr, "tensorlang: MPI_Allreduce failed (%d)\n", status);
      MPI_Abort(communicator, 1);
    }
    bytes += (int64_t)piece * elementBytes;
    count -= piece;
  }
}

void tensorlang_allreduce_sum_f64(int32_t comm, int64_t address,
                                  int64_t count) {
  allreduce(comm, (void *)(intptr_t)address, count, MPI_DOUBLE, sizeof(double));
}

void tensorlang_allreduce_sum_f32(int32_t comm, int64_t address,
                                  int64_t count) {
  allreduce(comm, (void *)(intptr_t)address, count, MPI_FLOAT, sizeof(float));
}
