/* Calls the kernel of sizes.tl, compiled once, on several values of its
   sizes in one process, and compares with plain loops. */
#include SIZES_HEADER
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double check(int64_t E, int64_t N) {
  double *A = malloc(sizeof(double) * N * N);
  double *u = malloc(sizeof(double) * E * N);
  double *v = malloc(sizeof(double) * N * E);
  double s;
  for (int64_t i = 0; i < N * N; ++i)
    A[i] = (i % 5) - 2;
  for (int64_t i = 0; i < E * N; ++i)
    u[i] = (i % 7) - 3 + 0.25 * (i / 7);
  sizes(E, N, A, u, v, &s);
  double error = 0, sum = 0;
  for (int64_t e = 0; e < E; ++e)
    for (int64_t j = 0; j < N; ++j) {
      double dot = 0;
      for (int64_t k = 0; k < N; ++k)
        dot += u[e * N + k] * A[k * N + j];
      error = fmax(error, fabs(dot - v[j * E + e]));
      sum += u[e * N + j] * u[e * N + j];
    }
  error = fmax(error, fabs(sum - s));
  free(A);
  free(u);
  free(v);
  return error;
}

int main(void) {
  const int64_t cases[][2] = {{1, 3}, {7, 5}, {13, 4}, {3999, 11}, {7, 5}};
  for (int i = 0; i < 5; ++i)
    printf("E=%lld N=%lld max error: %g\n", (long long)cases[i][0],
           (long long)cases[i][1], check(cases[i][0], cases[i][1]));
  return 0;
}
