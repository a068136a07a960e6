/*===- fake_cuda.c - A CUDA driver that logs calls, for tests -------------===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Built as libcuda.so.1 and found through LD_LIBRARY_PATH, it stands in for
   the NVIDIA driver where there is none: it writes each call the runtime
   makes, with its stream, one per line to $FAKE_CUDA_LOG, so that tests see
   what a program queues on which stream. Memory is host memory (copies
   copy), modules and kernels are dummies, and kernels do not run. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uintptr_t CUdeviceptr;

static FILE *logFile(void) {
  static FILE *file;
  if (!file) {
    const char *path = getenv("FAKE_CUDA_LOG");
    file = path ? fopen(path, "a") : stderr;
    setvbuf(file, NULL, _IOLBF, 0);
  }
  return file;
}

#define LOG(...) fprintf(logFile(), __VA_ARGS__)

static uintptr_t nextHandle = 0x1000;

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return 0;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = (void *)nextHandle++;
  return 0;
}
CUresult cuCtxSetCurrent(void *context) { return 0; }
CUresult cuModuleLoadData(void **module, const void *image) {
  *module = (void *)nextHandle++;
  return 0;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(void *module) { return 0; }
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  *function = (void *)nextHandle++;
  return 0;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  LOG("cuLaunchKernel %p\n", stream);
  return 0;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  *stream = (void *)nextHandle++;
  LOG("cuStreamCreate %p\n", *stream);
  return 0;
}
CUresult cuStreamSynchronize(void *stream) {
  LOG("cuStreamSynchronize %p\n", stream);
  return 0;
}
CUresult cuStreamDestroy_v2(void *stream) {
  LOG("cuStreamDestroy %p\n", stream);
  return 0;
}
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  LOG("cuStreamWaitEvent %p\n", stream);
  return 0;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  *event = (void *)nextHandle++;
  return 0;
}
CUresult cuEventDestroy_v2(void *event) { return 0; }
CUresult cuEventSynchronize(void *event) {
  LOG("cuEventSynchronize\n");
  return 0;
}
CUresult cuEventRecord(void *event, void *stream) {
  LOG("cuEventRecord %p\n", stream);
  return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = (CUdeviceptr)calloc(1, bytes);
  LOG("cuMemAlloc\n");
  return 0;
}
CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes, unsigned flags) {
  return cuMemAlloc_v2(pointer, bytes);
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  free((void *)pointer);
  LOG("cuMemFree\n");
  return 0;
}
CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, void *stream) {
  *pointer = (CUdeviceptr)calloc(1, bytes);
  LOG("cuMemAllocAsync %p\n", stream);
  return 0;
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, void *stream) {
  free((void *)pointer);
  LOG("cuMemFreeAsync %p\n", stream);
  return 0;
}
CUresult cuDeviceGetDefaultMemPool(void **pool, int device) {
  static int thePool;
  *pool = &thePool;
  return 0;
}
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  /* 4: CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, a cuuint64_t. */
  if (attribute == 4 && *(unsigned long long *)value == ~0ull)
    LOG("cuMemPoolSetAttribute-keep-all\n");
  else
    LOG("cuMemPoolSetAttribute-other\n");
  return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  memcpy((void *)dst, (const void *)src, bytes);
  LOG("cuMemcpyAsync %p\n", stream);
  return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                          void *stream) {
  LOG("cuMemsetD32Async %p\n", stream);
  return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          void *stream) {
  LOG("cuMemsetD16Async %p\n", stream);
  return 0;
}
