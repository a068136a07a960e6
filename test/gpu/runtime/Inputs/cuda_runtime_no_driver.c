/* The CUDA runtime (lib/Runtime/CUDARuntime.c) fails softly. Without a
   driver: tensorlang_cuda_init explains in one line, every mgpu* call
   returns null or does nothing, and the first error is kept. With a driver
   (run on a GPU machine, unless --require-no-driver): bad input fails
   softly too, and memory is filled, copied and freed through streams and
   events. Exits 1 on any failed check.

     clang-22 -std=c11 -Wall -Wextra -Werror -Iinclude \
       test/Runtime/cuda_runtime_no_driver.c lib/Runtime/CUDARuntime.c \
       -ldl -lpthread -o cuda_runtime_no_driver */

#include "tensorlang-c/CUDARuntime.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,         \
              #condition);                                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static int isOneLine(const char *text) {
  return text && text[0] && !strchr(text, '\n') && !strchr(text, '\r');
}

static void *allocateFromThread(void *unused) {
  (void)unused;
  for (int i = 0; i < 100; ++i)
    mgpuMemFree(mgpuMemAlloc(64, NULL, i % 2), NULL);
  return NULL;
}

static void checkWithoutDriver(const char *message) {
  CHECK(strstr(message, "libcuda.so.1") != NULL);
  CHECK(strncmp(message, "no CUDA driver: ", 16) == 0);

  /* A message cut short still ends: the buffer's size is respected. */
  char small[8];
  memset(small, 'x', sizeof small);
  CHECK(tensorlang_cuda_init(small, sizeof small) != 0);
  CHECK(strlen(small) == sizeof small - 1);
  CHECK(tensorlang_cuda_init(NULL, 0) != 0);
  /* Asking does not record an error; the first mgpu* call does. */
  CHECK(tensorlang_cuda_last_error() == NULL);

  static const char image[] = "not a module";
  CHECK(mgpuModuleLoad((void *)image, sizeof image) == NULL);
  const char *first = tensorlang_cuda_last_error();
  CHECK(isOneLine(first));
  if (!first)
    return;
  printf("first error: %s\n", first);
  CHECK(strstr(first, "loading a GPU module") != NULL);
  CHECK(strstr(first, "libcuda.so.1") != NULL);
  char kept[512];
  snprintf(kept, sizeof kept, "%s", first);

  /* Everything else returns null or does nothing, and keeps that error. */
  CHECK(mgpuModuleLoadJIT((void *)image, 3) == NULL);
  CHECK(mgpuModuleGetFunction(NULL, "kernel") == NULL);
  void *params[1] = {NULL};
  mgpuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL, 1);
  CHECK(mgpuStreamCreate() == NULL);
  mgpuStreamSynchronize(NULL);
  mgpuStreamWaitEvent(NULL, NULL);
  mgpuStreamDestroy(NULL);
  CHECK(mgpuEventCreate() == NULL);
  mgpuEventRecord(NULL, NULL);
  mgpuEventSynchronize(NULL);
  mgpuEventDestroy(NULL);
  CHECK(mgpuMemAlloc(1024, NULL, false) == NULL);
  CHECK(mgpuMemAlloc(1024, NULL, true) == NULL);
  double host[4] = {1, 2, 3, 4};
  mgpuMemcpy(host, host + 2, 2 * sizeof(double), NULL);
  CHECK(host[0] == 1 && host[1] == 2); /* nothing was copied */
  mgpuMemset32(host, 0, 2, NULL);
  mgpuMemset16(host, 0, 2, NULL);
  CHECK(host[0] == 1);
  mgpuMemFree(host, NULL); /* not freed: there is no driver to ask */
  mgpuModuleUnload(NULL);
  mgpuSetDefaultDevice(1);

  pthread_t threads[4];
  for (int i = 0; i < 4; ++i)
    CHECK(pthread_create(&threads[i], NULL, allocateFromThread, NULL) == 0);
  for (int i = 0; i < 4; ++i)
    pthread_join(threads[i], NULL);

  CHECK(tensorlang_cuda_last_error() == first);
  CHECK(strcmp(first, kept) == 0);
}

static void checkWithDriver(void) {
  /* Bad input fails softly and is named. */
  static const char image[] = "not a module";
  CHECK(mgpuModuleLoad((void *)image, sizeof image) == NULL);
  const char *first = tensorlang_cuda_last_error();
  CHECK(isOneLine(first));
  if (first) {
    printf("first error: %s\n", first);
    CHECK(strstr(first, "loading a GPU module failed: CUDA_ERROR_") != NULL);
  }
  CHECK(mgpuModuleGetFunction(NULL, "kernel") == NULL);
  mgpuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL, 0);
  CHECK(tensorlang_cuda_last_error() == first);

  /* Fill on one stream; another waits for it through an event, then
     copies back to the host. */
  enum { count = 1000 };
  void *a = mgpuStreamCreate(), *b = mgpuStreamCreate();
  void *event = mgpuEventCreate();
  uint32_t *words = mgpuMemAlloc(count * 4, a, false);
  uint16_t *halves = mgpuMemAlloc(count * 2, a, false);
  uint32_t *shared = mgpuMemAlloc(count * 4, NULL, true);
  CHECK(a && b && event && words && halves && shared);
  mgpuMemset32(words, 0xdeadbeef, count, a);
  mgpuMemset16(halves, 0xbeef, count, a);
  mgpuMemset32(shared, 7, count, a);
  mgpuEventRecord(event, a);
  mgpuStreamWaitEvent(b, event);
  static uint32_t hostWords[count];
  static uint16_t hostHalves[count];
  mgpuMemcpy(hostWords, words, sizeof hostWords, b);
  mgpuMemcpy(hostHalves, halves, sizeof hostHalves, b);
  mgpuEventSynchronize(event);
  mgpuStreamSynchronize(b);
  int wrong = 0;
  for (int i = 0; i < count; ++i)
    wrong += hostWords[i] != 0xdeadbeef || hostHalves[i] != 0xbeef ||
             (shared && shared[i] != 7);
  CHECK(wrong == 0);
  mgpuMemFree(words, b);
  mgpuMemFree(halves, b);
  mgpuMemFree(shared, NULL);
  mgpuEventDestroy(event);
  mgpuStreamDestroy(a);
  mgpuStreamDestroy(b);
  CHECK(tensorlang_cuda_last_error() == first);
}

int main(int argc, char **argv) {
  int requireNoDriver = argc > 1 && strcmp(argv[1], "--require-no-driver") == 0;
  CHECK(tensorlang_cuda_last_error() == NULL);
  char message[256] = "";
  int status = tensorlang_cuda_init(message, sizeof message);
  if (status != 0) {
    printf("tensorlang_cuda_init: %s\n", message);
    CHECK(isOneLine(message));
    if (strstr(message, "no CUDA driver"))
      checkWithoutDriver(message);
    else /* a driver without a device: nothing more to check */
      CHECK(!requireNoDriver);
  } else {
    printf("tensorlang_cuda_init: a CUDA driver and device are usable\n");
    CHECK(!requireNoDriver);
    checkWithDriver();
  }
  printf("%s: %d failed checks\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
