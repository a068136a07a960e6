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
   the program's function was given (as its Fortran handle, MPI_Fint, which
   is an int in every MPI implementation). Link libtensorlang_mpi. */

#ifndef TENSORLANG_C_MPIRUNTIME_H
#define TENSORLANG_C_MPIRUNTIME_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sums `count` elements at `address` over the processes of `comm`, in
   place. Called by compiled code; the address is passed as an integer. */
void tensorlang_allreduce_sum_f64(int32_t comm, int64_t address, int64_t count);
void tensorlang_allreduce_sum_f32(int32_t comm, int64_t address, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* TENSORLANG_C_MPIRUNTIME_H */
