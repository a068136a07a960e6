/*===- CUDARuntime.c - The runtime of NVIDIA GPU programs -----------------===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Written from the CUDA driver API documentation. The driver is opened at
   run time, so the few types and entry points used are declared here rather
   than taken from cuda.h: the library builds and links without CUDA, and a
   machine without a driver gets an error message instead of a loader
   failure. All work uses the device's primary context. */

#define _POSIX_C_SOURCE 200809L

#include "tensorlang-c/CUDARuntime.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/*===--- The driver API, as documented ------------------------------------===*/

typedef int CUresult; /* 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* 64-bit, the _v2 entry points */
typedef struct CUctx *CUcontext;
typedef struct CUmod *CUmodule;
typedef struct CUfunc *CUfunction;
typedef struct CUstrm *CUstream;
typedef struct CUevt *CUevent;
typedef struct CUmempool *CUmemoryPool;

enum {
  CUDA_ERROR_INVALID_VALUE = 1,
  CU_MEM_ATTACH_GLOBAL = 1,
  CU_EVENT_DISABLE_TIMING = 2,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
};

/* Symbol names and parameters; a name with _v2 is the one whose plain name
   cuda.h redirects to it (the plain symbol is the old 32-bit version). */
#define CUDA_FUNCTIONS(X)                                                      \
  X(cuInit, (unsigned))                                                        \
  X(cuGetErrorName, (CUresult, const char **))                                 \
  X(cuDeviceGet, (CUdevice *, int))                                            \
  X(cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                         \
  X(cuCtxSetCurrent, (CUcontext))                                              \
  X(cuModuleLoadData, (CUmodule *, const void *))                              \
  X(cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, int *, void **))  \
  X(cuModuleUnload, (CUmodule))                                                \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))               \
  X(cuFuncSetAttribute, (CUfunction, int, int))                                \
  X(cuLaunchKernel,                                                            \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))                                    \
  X(cuStreamCreate, (CUstream *, unsigned))                                    \
  X(cuStreamSynchronize, (CUstream))                                           \
  X(cuStreamDestroy_v2, (CUstream))                                            \
  X(cuStreamWaitEvent, (CUstream, CUevent, unsigned))                          \
  X(cuEventCreate, (CUevent *, unsigned))                                      \
  X(cuEventDestroy_v2, (CUevent))                                              \
  X(cuEventSynchronize, (CUevent))                                             \
  X(cuEventRecord, (CUevent, CUstream))                                        \
  X(cuMemAlloc_v2, (CUdeviceptr *, size_t))                                    \
  X(cuMemAllocManaged, (CUdeviceptr *, size_t, unsigned))                      \
  X(cuMemFree_v2, (CUdeviceptr))                                               \
  X(cuMemAllocAsync, (CUdeviceptr *, size_t, CUstream))                        \
  X(cuMemFreeAsync, (CUdeviceptr, CUstream))                                   \
  X(cuDeviceGetDefaultMemPool, (CUmemoryPool *, CUdevice))                     \
  X(cuMemPoolSetAttribute, (CUmemoryPool, int, void *))                        \
  X(cuMemcpyAsync, (CUdeviceptr, CUdeviceptr, size_t, CUstream))               \
  X(cuMemsetD32Async, (CUdeviceptr, unsigned, size_t, CUstream))               \
  X(cuMemsetD16Async, (CUdeviceptr, unsigned short, size_t, CUstream))

#define DECLARE(name, parameters) CUresult(*name) parameters;
static struct {
  CUDA_FUNCTIONS(DECLARE)
} cu;
#undef DECLARE

/*===--- Errors: the first one is kept, as one line -----------------------===*/

static pthread_mutex_t errorLock = PTHREAD_MUTEX_INITIALIZER;
static char errorText[512];
static atomic_bool haveError;

static void recordError(const char *format, ...) {
  pthread_mutex_lock(&errorLock);
  if (!atomic_load_explicit(&haveError, memory_order_relaxed)) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(errorText, sizeof errorText, format, arguments);
    va_end(arguments);
    for (char *c = errorText; *c; ++c)
      if (*c == '\n' || *c == '\r')
        *c = ' ';
    /* Published after it is written: readers take no lock. */
    atomic_store_explicit(&haveError, true, memory_order_release);
  }
  pthread_mutex_unlock(&errorLock);
}

const char *tensorlang_cuda_last_error(void) {
  return atomic_load_explicit(&haveError, memory_order_acquire) ? errorText
                                                                : NULL;
}

void tensorlang_cuda_clear_error(void) {
  pthread_mutex_lock(&errorLock);
  atomic_store_explicit(&haveError, false, memory_order_release);
  pthread_mutex_unlock(&errorLock);
}

static const char *errorName(CUresult result) {
  const char *name = NULL;
  cu.cuGetErrorName(result, &name);
  return name ? name : "an unknown CUresult";
}

/* Records "<what> failed: <CUDA error name>" and returns true on an error. */
static bool failed(CUresult result, const char *format, ...) {
  if (result == 0)
    return false;
  char what[384];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(what, sizeof what, format, arguments);
  va_end(arguments);
  recordError("%s failed: %s", what, errorName(result));
  return true;
}

/*===--- Initialization, once per process ---------------------------------===*/

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char initError[256]; /* empty when the driver and device are usable */
static atomic_int defaultDevice;
static atomic_int chosenDevice = -1;
static CUcontext context;

static void initialize(void) {
  int device = atomic_load(&defaultDevice);
  atomic_store(&chosenDevice, device);
  /* Never closed: the driver stays loaded for the process's lifetime. */
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    snprintf(initError, sizeof initError, "no CUDA driver: %s",
             why ? why : "libcuda.so.1 not found");
    return;
  }
  void *symbol;
#define LOAD(name, parameters)                                                 \
  if (!(symbol = dlsym(library, #name))) {                                     \
    snprintf(initError, sizeof initError,                                      \
             "no CUDA driver: libcuda.so.1 has no " #name);                    \
    return;                                                                    \
  }                                                                            \
  memcpy(&cu.name, &symbol, sizeof symbol);
  CUDA_FUNCTIONS(LOAD)
#undef LOAD
  CUdevice handle;
  const char *step = "cuInit";
  CUresult result = cu.cuInit(0);
  if (result == 0) {
    step = "cuDeviceGet";
    result = cu.cuDeviceGet(&handle, device);
  }
  if (result == 0) {
    step = "cuDevicePrimaryCtxRetain";
    result = cu.cuDevicePrimaryCtxRetain(&context, handle);
  }
  if (result != 0) {
    snprintf(initError, sizeof initError,
             "no CUDA device: %s failed for device %d (%s)", step, device,
             errorName(result));
    return;
  }
  /* Temporaries on a caller's stream come from the device's default pool
     (cuMemAllocAsync), which by default gives freed memory back to the
     system at every synchronization: each call then mapped its
     temporaries anew. The pool keeps them instead, as PyTorch's and CuPy's
     allocators keep theirs (not needed to run: failures are ignored). */
  CUmemoryPool pool;
  unsigned long long keepAll = ~0ull;
  if (cu.cuDeviceGetDefaultMemPool(&pool, handle) == 0)
    (void)cu.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                   &keepAll);
}

/* Each thread that calls the driver needs the context made current. */
static _Thread_local bool contextCurrent;

/* Whether the driver can be used for `what`; records why not. */
static bool ready(const char *what) {
  pthread_once(&once, initialize);
  if (initError[0]) {
    recordError("%s: %s", what, initError);
    return false;
  }
  if (!contextCurrent)
    contextCurrent = !failed(cu.cuCtxSetCurrent(context),
                             "%s: making the context current", what);
  return contextCurrent;
}

/* Makes `call` once the driver is ready; false (and recorded) on an error. */
#define DRIVER(what, call) (ready(what) && !failed(call, "%s", what))

int tensorlang_cuda_init(char *message, size_t size) {
  pthread_once(&once, initialize);
  if (!initError[0])
    return 0;
  if (message && size)
    snprintf(message, size, "%s", initError);
  return -1;
}

void mgpuSetDefaultDevice(int32_t device) {
  int chosen = atomic_load(&chosenDevice);
  if (chosen < 0)
    atomic_store(&defaultDevice, device);
  else if (chosen != device)
    recordError("choosing device %d: the runtime already uses device %d",
                (int)device, chosen);
}

/*===--- Modules and kernels ----------------------------------------------===*/

/* Kernel names by function, for error messages. A handle that a module's
   unloading frees may come back for another kernel: generated code looks
   each kernel up before launching it, which renames the entry. */
static struct {
  CUfunction function;
  char name[120];
} kernels[64];
static int kernelCount;
static pthread_mutex_t kernelsLock = PTHREAD_MUTEX_INITIALIZER;
/* The last kernel this thread launched, named when a later wait fails. */
static _Thread_local CUfunction lastLaunched;

static void nameKernel(CUfunction function, const char *name) {
  pthread_mutex_lock(&kernelsLock);
  int i = 0;
  while (i < kernelCount && kernels[i].function != function)
    ++i;
  if (i < 64) {
    kernels[i].function = function;
    snprintf(kernels[i].name, sizeof kernels[i].name, "%s", name);
    kernelCount += i == kernelCount;
  }
  pthread_mutex_unlock(&kernelsLock);
}

static void kernelName(CUfunction function, char *name, size_t size) {
  snprintf(name, size, "an unnamed kernel");
  pthread_mutex_lock(&kernelsLock);
  for (int i = 0; i < kernelCount; ++i)
    if (kernels[i].function == function)
      snprintf(name, size, "%s", kernels[i].name);
  pthread_mutex_unlock(&kernelsLock);
}

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size; /* a cubin's or fatbin's header gives its size */
  CUmodule module = NULL;
  return DRIVER("loading a GPU module", cu.cuModuleLoadData(&module, data))
             ? module
             : NULL;
}

void *mgpuModuleLoadJIT(void *ptx, int optLevel) {
  if (!ready("compiling PTX"))
    return NULL;
  char log[256] = "";
  int options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  int level = optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel;
  void *values[] = {(void *)(intptr_t)level, log,
                    (void *)(uintptr_t)sizeof log};
  CUmodule module = NULL;
  CUresult result = cu.cuModuleLoadDataEx(&module, ptx, 3, options, values);
  if (result != 0) {
    recordError("compiling PTX with the driver failed: %s%s%s",
                errorName(result), log[0] ? ": " : "", log);
    return NULL;
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module)
    (void)DRIVER("unloading a GPU module", cu.cuModuleUnload(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!ready("looking up a kernel"))
    return NULL;
  if (!module) {
    recordError("looking up kernel %s: its module did not load", name);
    return NULL;
  }
  CUfunction function = NULL;
  if (failed(cu.cuModuleGetFunction(&function, module, name),
             "looking up kernel %s", name))
    return NULL;
  nameKernel(function, name);
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramCount) {
  (void)paramCount; /* the kernel's signature gives the driver the count */
  if (!ready("launching a kernel"))
    return;
  if (!function) {
    recordError("launching a kernel: it was not found");
    return;
  }
  /* Sizes the driver's unsigned parameters cannot hold are refused. */
  /* No blocks (a size of 0 at run time): nothing to do. */
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  CUresult result = sharedBytes < 0 ? CUDA_ERROR_INVALID_VALUE : 0;
  intptr_t sizes[] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  for (int i = 0; i < 6; ++i)
    if (sizes[i] < 1 || sizes[i] > UINT_MAX)
      result = CUDA_ERROR_INVALID_VALUE;
  /* Beyond 48 KiB, dynamic shared memory must be asked for. */
  if (result == 0 && sharedBytes > 48 * 1024)
    result = cu.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes);
  if (result == 0)
    result = cu.cuLaunchKernel(function, (unsigned)gridX, (unsigned)gridY,
                               (unsigned)gridZ, (unsigned)blockX,
                               (unsigned)blockY, (unsigned)blockZ,
                               (unsigned)sharedBytes, stream, params, extra);
  lastLaunched = function;
  if (result != 0) {
    char name[128];
    kernelName(function, name, sizeof name);
    failed(result,
           "launching %s (grid %ldx%ldx%ld, block %ldx%ldx%ld, %d "
           "shared bytes)",
           name, (long)gridX, (long)gridY, (long)gridZ, (long)blockX,
           (long)blockY, (long)blockZ, (int)sharedBytes);
  }
}

/*===--- Streams and events -----------------------------------------------===*/

/* While a program's function runs on a stream it was given (its _device
   function) or made for the call (its host function), every stream the
   generated code asks for is that one: the statements are queued in order
   on it, waits on it do nothing (the host function waits once, at its end),
   and memory is allocated and freed in its order. Per thread; the host
   function calls the device function inside its own (a stack). */
enum { kMaxBorrowDepth = 8 };
static _Thread_local CUstream borrowed[kMaxBorrowDepth];
static _Thread_local int borrowDepth;

static bool isBorrowed(void *stream) {
  return borrowDepth > 0 && stream == borrowed[borrowDepth - 1];
}

void tensorlang_cuda_enter(void *stream) {
  if (borrowDepth == kMaxBorrowDepth) {
    recordError("entering a stream: more than %d nested program calls",
                kMaxBorrowDepth);
    return;
  }
  borrowed[borrowDepth++] = stream;
}

void tensorlang_cuda_leave(void) {
  if (borrowDepth > 0)
    --borrowDepth;
}

void *mgpuStreamCreate(void) {
  if (borrowDepth > 0)
    return borrowed[borrowDepth - 1];
  CUstream stream = NULL;
  /* Flags 0: ordered with the legacy default stream other code may use. */
  return DRIVER("creating a stream", cu.cuStreamCreate(&stream, 0)) ? stream
                                                                    : NULL;
}

/* Kernel faults surface when waiting, not at the launch: name the last. */
static void waited(CUresult result, const char *what) {
  char name[128] = "none";
  if (result != 0 && lastLaunched)
    kernelName(lastLaunched, name, sizeof name);
  failed(result, "%s (last kernel launched: %s)", what, name);
}

void mgpuStreamSynchronize(void *stream) {
  if (!isBorrowed(stream) && ready("synchronizing a stream"))
    waited(cu.cuStreamSynchronize(stream), "synchronizing a stream");
}

void mgpuStreamDestroy(void *stream) {
  if (stream && !isBorrowed(stream))
    (void)DRIVER("destroying a stream", cu.cuStreamDestroy_v2(stream));
}

void *tensorlang_cuda_stream_begin(void) {
  CUstream stream = NULL;
  if (!DRIVER("creating a stream", cu.cuStreamCreate(&stream, 0)))
    stream = NULL;
  tensorlang_cuda_enter(stream);
  return stream;
}

void tensorlang_cuda_stream_end(void *stream) {
  tensorlang_cuda_leave();
  /* No longer lent: these wait and destroy. */
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  (void)DRIVER("making a stream wait for an event",
               cu.cuStreamWaitEvent(stream, event, 0));
}

void *mgpuEventCreate(void) {
  CUevent event = NULL;
  return DRIVER("creating an event",
                cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING))
             ? event
             : NULL;
}

void mgpuEventDestroy(void *event) {
  if (event)
    (void)DRIVER("destroying an event", cu.cuEventDestroy_v2(event));
}

void mgpuEventSynchronize(void *event) {
  if (ready("waiting for an event"))
    waited(cu.cuEventSynchronize(event), "waiting for an event");
}

void mgpuEventRecord(void *event, void *stream) {
  (void)DRIVER("recording an event", cu.cuEventRecord(event, stream));
}

/*===--- Memory -----------------------------------------------------------===*/

/* Device pointers are integers to the driver. */
#define DEVICE(pointer) ((CUdeviceptr)(uintptr_t)(pointer))

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared) {
  if (bytes == 0 || !ready("allocating GPU memory"))
    return NULL;
  CUdeviceptr pointer = 0;
  /* Outside a program's stream allocation is synchronous: no order to
     keep. */
  CUresult result =
      hostShared ? cu.cuMemAllocManaged(&pointer, bytes, CU_MEM_ATTACH_GLOBAL)
      : isBorrowed(stream) ? cu.cuMemAllocAsync(&pointer, bytes, stream)
                           : cu.cuMemAlloc_v2(&pointer, bytes);
  if (failed(result, "allocating %llu bytes of %s memory",
             (unsigned long long)bytes, hostShared ? "managed" : "device"))
    return NULL;
  return (void *)(uintptr_t)pointer;
}

void mgpuMemFree(void *pointer, void *stream) {
  if (!pointer || !ready("freeing GPU memory"))
    return;
  if (isBorrowed(stream)) {
    failed(cu.cuMemFreeAsync(DEVICE(pointer), stream), "freeing GPU memory");
    return;
  }
  /* Work queued on the stream may still use the memory. */
  if (stream)
    waited(cu.cuStreamSynchronize(stream), "synchronizing to free memory");
  failed(cu.cuMemFree_v2(DEVICE(pointer)), "freeing GPU memory");
}

/* With unified addressing the driver tells host from device pointers. */
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (bytes)
    (void)DRIVER("copying memory",
                 cu.cuMemcpyAsync(DEVICE(dst), DEVICE(src), bytes, stream));
}

/* `count` elements, not bytes. */
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  if (count)
    (void)DRIVER("filling memory",
                 cu.cuMemsetD32Async(DEVICE(dst), value, count, stream));
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  if (count)
    (void)DRIVER("filling memory",
                 cu.cuMemsetD16Async(DEVICE(dst), value, count, stream));
}
