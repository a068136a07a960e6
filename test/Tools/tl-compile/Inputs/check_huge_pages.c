/* Runs huge_pages.tl, whose 4.7 MB temporary (the matrix product, before
   its transposition) is allocated through madvise(MADV_HUGEPAGE), and
   checks y = (A A)^T. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include HUGE_PAGES_HEADER

enum { N = 768 };

int main(void) {
  double *a = malloc(sizeof(double) * N * N);
  double *y = malloc(sizeof(double) * N * N);
  double *want = calloc((size_t)N * N, sizeof(double));
  if (!a || !y || !want)
    return 2;
  for (int i = 0; i < N * N; ++i)
    a[i] = (double)(i % 97) / 7.0 - 3.0;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k)
      for (int j = 0; j < N; ++j)
        want[j * N + i] += a[i * N + k] * a[k * N + j];
  for (int call = 0; call < 2; ++call) {
    huge_pages(a, y);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        double w = want[i * N + j];
        if (fabs(y[i * N + j] - w) > 1e-12 * (1.0 + fabs(w))) {
          printf("mismatch at %d %d: %g, want %g\n", i, j, y[i * N + j], w);
          return 1;
        }
      }
  }
  printf("ok\n");
  free(a);
  free(y);
  free(want);
  return 0;
}
