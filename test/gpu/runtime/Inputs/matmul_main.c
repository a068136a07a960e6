/* Runs the MLIR function ENTRY (gpu/matmul.mlir: C += A * B on 64 x 64
   f64 memrefs, compiled for the GPU) and checks C against the CPU.
   -DMANAGED: ENTRY hands its memrefs to the kernel as they are, so they are
   allocated as managed memory (mgpuMemAlloc with hostShared); otherwise
   ENTRY copies them to the device itself and they are plain host memory.
   Prints PASS or FAIL with the largest error; exits 0 only on PASS. */

#include "tensorlang-c/CUDARuntime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

/* A memref<64x64xf64> in the default calling convention: allocated and
   aligned pointers, offset, sizes, strides. */
#define MEMREF double *, double *, int64_t, int64_t, int64_t, int64_t, int64_t
void ENTRY(MEMREF, MEMREF, MEMREF);
#define ARGS(p) p, p, 0, N, N, N, 1

#define STR2(x) #x
#define STR(x) STR2(x)

static double *allocate(void) {
#ifdef MANAGED
  return mgpuMemAlloc(N * N * sizeof(double), NULL, true);
#else
  return malloc(N * N * sizeof(double));
#endif
}

int main(void) {
  const char *name = STR(ENTRY) " (" STR(FORMAT) ")";
  char message[256];
  if (tensorlang_cuda_init(message, sizeof message) != 0) {
    printf("FAIL %s: %s\n", name, message);
    return 1;
  }
  double *a = allocate(), *b = allocate(), *c = allocate();
  if (!a || !b || !c) {
    const char *error = tensorlang_cuda_last_error();
    printf("FAIL %s: %s\n", name, error ? error : "out of memory");
    return 1;
  }
  /* Multiples of 1/16 and 1/8: every product and sum is exact in f64, so
     any order of the sums gives the same C. */
  static double expected[N * N];
  for (int i = 0; i < N * N; ++i) {
    a[i] = ((i * 37) % 101 - 50) / 16.0;
    b[i] = ((i * 53) % 97 - 48) / 8.0;
    c[i] = expected[i] = (i % 7) - 3.0;
  }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        expected[i * N + j] += a[i * N + k] * b[k * N + j];

  ENTRY(ARGS(a), ARGS(b), ARGS(c));

  const char *error = tensorlang_cuda_last_error();
  if (error) {
    printf("FAIL %s: %s\n", name, error);
    return 1;
  }
  double maxError = 0;
  for (int i = 0; i < N * N; ++i) {
    double e = fabs(c[i] - expected[i]);
    if (!(e <= maxError)) /* a NaN counts */
      maxError = isnan(e) ? INFINITY : e;
  }
  int pass = maxError <= 1e-9;
  printf("%s %s: max error %g over %dx%d\n", pass ? "PASS" : "FAIL", name,
         maxError, N, N);
  return pass ? 0 : 1;
}
