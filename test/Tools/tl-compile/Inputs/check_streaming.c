/* Calls a program whose results are large enough for streaming stores,
   with 64-byte aligned result buffers (the streaming path) and with
   misaligned ones (the ordinary path), and checks both against plain C. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include STREAMING_HEADER

enum { N = 2048 };

static int check(const double *a, const double *b, const double *z,
                 const double *t) {
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      double x = a[i * N + j], y = b[i * N + j];
      if (z[i * N + j] != (x + y) * x - y / x || t[j * N + i] != x)
        return 0;
    }
  return 1;
}

int main(void) {
  size_t bytes = (size_t)N * N * sizeof(double);
  double *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
  /* One element more, so that the buffers can start 8 bytes past a line. */
  double *z = aligned_alloc(64, bytes + 64), *t = aligned_alloc(64, bytes + 64);
  if (!a || !b || !z || !t)
    return 1;
  for (size_t i = 0; i < (size_t)N * N; ++i) {
    a[i] = 1.0 + (double)(i % 1013);
    b[i] = (double)(i % 977) - 300.0;
  }
  streaming(a, b, z, t);
  printf("aligned: %s\n", check(a, b, z, t) ? "ok" : "WRONG");
  streaming(a, b, z + 1, t + 1);
  printf("misaligned: %s\n", check(a, b, z + 1, t + 1) ? "ok" : "WRONG");
  free(a);
  free(b);
  free(z);
  free(t);
  return 0;
}
