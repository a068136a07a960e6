/*===- Program.h - C API of the program API -----------------------*- C -*-===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Load, run and read a program from C, through the same program API as
   tl-run, tl-compile and Python (tensorlang/API/Program.h): the same rules
   (d-in-var, shapes), the same options, the same results. */

#ifndef TENSORLANG_C_PROGRAM_H
#define TENSORLANG_C_PROGRAM_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TensorlangProgramImpl *TensorlangProgram;

enum TensorlangEngine {
  TensorlangEngineJit = 0,
  TensorlangEngineReference = 1
};
enum TensorlangElementType { TensorlangF64 = 0, TensorlangF32 = 1 };

/* The options of ProgramOptions; tensorlangProgramOptionsInit sets the
   defaults tl-run and Python use. Each field is checked as tl-run checks
   its flag (docs/compiler.md, "Program options"): tensorlangProgramCreate
   fails on a bad value with the same message, such as "error: threads must
   be a number from 1 to 1024, got '0'". */
typedef struct {
  enum TensorlangElementType elementType;
  unsigned pad;
  enum TensorlangEngine engine;
  unsigned threads;
  bool optimize;
  bool tileContractions;
  int64_t fuseBatchesMinBytes;
  int64_t streamingMinBytes;
  unsigned vectorBits;
  unsigned optLevel;
  double maxWork;
  /* Report the source's warnings (statements whose value is never used,
     inputs never read) as errors: tensorlangProgramCreate fails. */
  bool warningsAreErrors;
  /* Every buffer holds its variable's elements in column-major (Fortran)
     order rather than row-major (--layout=col-major). */
  bool columnMajor;
  /* Bytes of one core's L1 data and L2 caches the tiles are derived from
     (0: this machine's; --l1-cache-bytes, --l2-cache-bytes); not negative. */
  int64_t l1CacheBytes;
  int64_t l2CacheBytes;
  /* The machine the JIT compiles for: NULL or "host" (this one), or
     "cuda": the statements run on an NVIDIA GPU (docs/gpu.md; compiling
     fails with "no CUDA driver: ..." where there is none). `cpu`: NULL or
     "host", or an LLVM CPU name (x86-64-v3, ...; --cpu); `gpuArch`: NULL
     for sm_90, or sm_NN (--gpu-arch). The strings are copied. */
  const char *target;
  const char *cpu;
  const char *gpuArch;
  /* The language of the source text: NULL or "tensorlang" (also "tl"), or
     "cfdlang" (--syntax; docs/language.md, Differences from CFDlang). */
  const char *syntax;
  /* NULL, or the size whose indices are split over MPI processes
     (--distribute; docs/distributed.md): the kernel is then kernel_mpi,
     which takes the communicator first, and tensorlangProgramRun passes it
     `communicator`, MPI's Fortran handle of the communicator
     (MPI_Comm_c2f). */
  const char *distribute;
  int32_t communicator;
  /* Bytes of one core's share of the L3 cache (its size over the cores
     that share it) the tiles are derived from (0: this machine's where
     l1CacheBytes and l2CacheBytes are 0 too; --l3-cache-bytes); not
     negative. Last, so that the fields before keep their places. */
  int64_t l3CacheBytes;
} TensorlangProgramOptions;

MLIR_CAPI_EXPORTED void
tensorlangProgramOptionsInit(TensorlangProgramOptions *options);

/* Reads source text (or tl dialect IR, with isIR) named `filename` in
   messages. On failure returns NULL and, if `error` is not NULL, stores a
   message (file:line:col: error: ..., one line per problem) that the caller
   frees with free(). */
MLIR_CAPI_EXPORTED TensorlangProgram
tensorlangProgramCreate(MlirStringRef text, MlirStringRef filename, bool isIR,
                        const TensorlangProgramOptions *options, char **error);
MLIR_CAPI_EXPORTED void tensorlangProgramDestroy(TensorlangProgram program);

/* The source's warnings (file:line:col: warning: ..., one line per
   message, notes included), or "" if there were none. Owned by the
   program. */
MLIR_CAPI_EXPORTED const char *
tensorlangProgramGetWarnings(TensorlangProgram program);

/* The variables, in declaration order: name, declared rank and extents,
   qualifiers. The strings live as long as the program. */
MLIR_CAPI_EXPORTED intptr_t
tensorlangProgramGetNumVariables(TensorlangProgram program);
MLIR_CAPI_EXPORTED const char *
tensorlangProgramGetVariableName(TensorlangProgram program, intptr_t index);
MLIR_CAPI_EXPORTED intptr_t
tensorlangProgramGetVariableRank(TensorlangProgram program, intptr_t index);
MLIR_CAPI_EXPORTED int64_t tensorlangProgramGetVariableExtent(
    TensorlangProgram program, intptr_t index, intptr_t dim);
/* The size that dimension `dim` of a variable stands for (its extent is
   then -1), or NULL for a fixed extent. */
MLIR_CAPI_EXPORTED const char *
tensorlangProgramGetVariableSize(TensorlangProgram program, intptr_t index,
                                 intptr_t dim);

/* The program's sizes (extents known at run time), in declaration order. */
MLIR_CAPI_EXPORTED intptr_t
tensorlangProgramGetNumSizes(TensorlangProgram program);
MLIR_CAPI_EXPORTED const char *
tensorlangProgramGetSizeName(TensorlangProgram program, intptr_t index);
MLIR_CAPI_EXPORTED bool tensorlangProgramIsInput(TensorlangProgram program,
                                                 intptr_t index);
MLIR_CAPI_EXPORTED bool tensorlangProgramIsOutput(TensorlangProgram program,
                                                  intptr_t index);

/* Asks for a variable's final value besides the outputs (before the first
   run). */
MLIR_CAPI_EXPORTED bool tensorlangProgramKeepResult(TensorlangProgram program,
                                                    const char *name,
                                                    char **error);

/* Runs the program with the engine of its options: `inputs[i]` holds
   variable `inputNames[i]`'s elements, row-major, with its declared shape
   and the program's element type. Then writes the final value of each
   `resultNames[i]` (an output or kept variable) into `results[i]`. On
   failure returns false and, if `error` is not NULL, a message to free(). */
MLIR_CAPI_EXPORTED bool
tensorlangProgramRun(TensorlangProgram program, intptr_t numInputs,
                     const char *const *inputNames, const void *const *inputs,
                     intptr_t numResults, const char *const *resultNames,
                     void *const *results, char **error);

/* As tensorlangProgramRun, for a program with sizes: `sizeValues[i]` is
   the value of size `sizeNames[i]` for this run, and every buffer has its
   variable's extents with these values. Each size that a variable has
   needs a value. */
MLIR_CAPI_EXPORTED bool tensorlangProgramRunWithSizes(
    TensorlangProgram program, intptr_t numSizes, const char *const *sizeNames,
    const int64_t *sizeValues, intptr_t numInputs,
    const char *const *inputNames, const void *const *inputs,
    intptr_t numResults, const char *const *resultNames, void *const *results,
    char **error);

/* Source text in, native function out (CFDlang's TensorContext): reads
   `source` (named "<source>" in messages) with `options` (NULL: the
   defaults) and JIT-compiles it as `kernel`. On failure returns NULL and, if
   `error` is not NULL, the messages (<source>:line:col: error: ...) to free().
 */
MLIR_CAPI_EXPORTED TensorlangProgram tensorlangCompileSource(
    const char *source, const TensorlangProgramOptions *options, char **error);

/* The JIT-compiled function of the program (compiled now if it was not),
   the same function an object file of tl-compile defines: the sizes'
   values first (int64_t, in order of declaration), then one pointer per
   interface variable (the input and output variables, or every variable
   without qualifiers), in order of declaration; a distributed program's
   (kernel_mpi) takes the communicator before them, as MPI's Fortran handle
   (int32_t). It allocates its temporaries on every call. Cast it to the
   type that
   tensorlangProgramGetKernelDeclaration declares. It lives as long as the
   program. NULL on failure, with `error` as above. */
MLIR_CAPI_EXPORTED void *tensorlangProgramGetKernel(TensorlangProgram program,
                                                    char **error);
/* The kernel's workspace variant (kernel_ws): the same arguments, then a
   workspace of `*workspaceBytes` bytes, aligned to 64 bytes, which the
   caller allocates once and passes to every call (never to two calls at
   once): no allocation per call. `*workspaceBytes` is -1 where the
   workspace grows with the sizes (temporaries whose shapes have sizes):
   tensorlangProgramGetWorkspaceSize then tells the bytes for given sizes.
   NULL on failure, as above. */
MLIR_CAPI_EXPORTED void *
tensorlangProgramGetWorkspaceKernel(TensorlangProgram program,
                                    int64_t *workspaceBytes, char **error);
/* The bytes of workspace kernel_ws needs for the sizes' values `sizes`
   (one per size, in order of declaration; NULL for a program without
   sizes), as tl-compile's kernel_workspace_size computes them. A
   workspace of that size serves every call with sizes no larger. -1 on
   failure, with `error` as above. */
MLIR_CAPI_EXPORTED int64_t tensorlangProgramGetWorkspaceSize(
    TensorlangProgram program, const int64_t *sizes, char **error);

/* A program compiled for "cuda": the device variant of the kernel
   (kernel_device, as tl-compile's header declares it): the same
   arguments as device pointers, then a CUstream; it queues the work on the
   stream and returns without waiting. NULL on failure (and for other
   targets), with `error` as above. */
MLIR_CAPI_EXPORTED void *
tensorlangProgramGetDeviceKernel(TensorlangProgram program, char **error);

/* That function's C declaration, as tl-compile's header writes it; the
   caller frees it with free(). NULL on failure, with `error` as above. */
MLIR_CAPI_EXPORTED char *
tensorlangProgramGetKernelDeclaration(TensorlangProgram program, char **error);

#ifdef __cplusplus
}
#endif

#endif /* TENSORLANG_C_PROGRAM_H */
