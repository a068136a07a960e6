/*===- MPIRuntime.h - The runtime of distributed programs ---------*- C -*-===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Code compiled with a distributed size (tl-distribute, tl-run and
   tl-compile --distribute) sums the statements that sum over that size
   across the processes by calling these functions, over the communicator
   set here (MPI_COMM_WORLD until one is set). Link libtensorlang_mpi. */

#ifndef TENSORLANG_C_MPIRUNTIME_H
#define TENSORLANG_C_MPIRUNTIME_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The communicator of the processes a distributed program runs on. */
void tensorlang_mpi_set_comm(MPI_Comm comm);
MPI_Comm tensorlang_mpi_get_comm(void);

/* Sums `count` elements at `address` over the processes, in place. Called
   by compiled code; the address is passed as an integer. */
void tensorlang_allreduce_sum_f64(int64_t address, int64_t count);
void tensorlang_allreduce_sum_f32(int64_t address, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* TENSORLANG_C_MPIRUNTIME_H */
