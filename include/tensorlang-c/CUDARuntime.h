/*===- CUDARuntime.h - The runtime of NVIDIA GPU programs ---------*- C -*-===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* The host code MLIR 22 generates for the gpu dialect (gpu-to-llvm) calls
   the mgpu* functions below; this library implements them on the CUDA
   driver API, which it loads at run time (dlopen of libcuda.so.1), so that
   neither building nor linking needs CUDA (Debian ships no
   libmlir_cuda_runtime.so). The signatures are those of the `declare`s in
   the LLVM IR of gpu-to-llvm's output.

   Nothing here aborts: the generated code loads its kernels from a global
   constructor, before main can check anything. A call that fails records
   the error (the first one wins) and returns null or does nothing; callers
   check tensorlang_cuda_last_error() after running the generated code.
   Programs linking it also need -ldl -lpthread (glibc before 2.34). */

#ifndef TENSORLANG_C_CUDARUNTIME_H
#define TENSORLANG_C_CUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===--- For tools and applications ---------------------------------------===*/

/* Loads the driver and makes device 0 (or the one mgpuSetDefaultDevice
   chose before) current. Returns 0 when a driver and a device are usable;
   otherwise writes one line (no newline) into `message`, such as
   "no CUDA driver: libcuda.so.1 not found", and returns -1. Initialization
   runs once per process; later calls return the same answer. */
int tensorlang_cuda_init(char *message, size_t size);

/* The first error an mgpu* call recorded, one line naming what was being
   done (the kernel's name for launches) and the CUDA error name, or null
   when none was. The string stays valid and unchanged for the process. */
const char *tensorlang_cuda_last_error(void);

/* Forgets the error, so that the next one is recorded (a process that runs
   on after a failure: the JIT clears before each compilation and run). A
   string tensorlang_cuda_last_error returned before may then change. */
void tensorlang_cuda_clear_error(void);

/*===--- Called by generated code: a program's stream ---------------------===*/

/* A program's functions run all their work on one stream: `<name>_device`
   on its caller's, between tensorlang_cuda_enter and tensorlang_cuda_leave
   (it returns without waiting); `<name>` on one it makes for the call,
   between tensorlang_cuda_stream_begin and tensorlang_cuda_stream_end
   (which waits for it and destroys it). Meanwhile the calling thread's
   mgpuStreamCreate returns that stream, waiting on it or destroying it does
   nothing, and device memory is allocated and freed in its order
   (cuMemAllocAsync, cuMemFreeAsync: a driver of CUDA 11.2 or later). */
void tensorlang_cuda_enter(void *stream);
void tensorlang_cuda_leave(void);
void *tensorlang_cuda_stream_begin(void);
void tensorlang_cuda_stream_end(void *stream);

/*===--- Called by generated code (C signatures of MLIR 22's declares) ----===*/

void *mgpuModuleLoad(void *data, size_t size);    /* cubin or fatbin */
void *mgpuModuleLoadJIT(void *ptx, int optLevel); /* PTX, NUL-terminated */
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramCount);

void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);

void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

/* hostShared: managed memory, readable and writable by host and device
   (never asked for on a program's stream, which allocates in order). */
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
/* `count` elements of 4 and 2 bytes. */
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream);

/* Takes effect when called before the runtime initializes; afterwards a
   different device is an error (the kernels are loaded on the first one). */
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* TENSORLANG_C_CUDARUNTIME_H */
