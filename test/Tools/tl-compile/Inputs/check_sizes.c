/* Calls the kernel of sizes.tl, compiled once, on several values of its
   sizes in one process, and compares with plain loops: the plain function,
   then the workspace variant with one workspace for every call, as large
   as the largest sizes need. */
#include SIZES_HEADER
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void *workspace;

static double check(int64_t E, int64_t N) {
  double *A = malloc(sizeof(double) * N * N);
  double *u = malloc(sizeof(double) * E * N);
  double *v = malloc(sizeof(double) * N * E);
  double s;
  for (int64_t i = 0; i < N * N; ++i)
    A[i] = (i % 5) - 2;
  for (int64_t i = 0; i < E * N; ++i)
    u[i] = (i % 7) - 3 + 0.25 * (i / 7);
  if (workspace)
    sizes_ws(E, N, A, u, v, &s, workspace);
  else
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
  const int64_t cases[][2] = {{1, 3},     {7, 5}, {13, 4},
                              {3999, 11}, {7, 5}, {0, 4}};
  for (int i = 0; i < 6; ++i)
    printf("E=%lld N=%lld max error: %g\n", (long long)cases[i][0],
           (long long)cases[i][1], check(cases[i][0], cases[i][1]));
  /* The workspace holds the temporary of E x N doubles: it grows with the
     sizes. */
  int64_t largest = sizes_workspace_size(3999, 11);
  printf("workspace grows with the sizes: %s\n",
         largest >= 8 * 3999 * 11 && sizes_workspace_size(7, 5) < largest &&
                 sizes_workspace_size(0, 4) >= 0
             ? "yes"
             : "no");
  workspace = aligned_alloc(64, (size_t)(largest + 63) / 64 * 64);
  for (int i = 0; i < 6; ++i)
    printf("workspace E=%lld N=%lld max error: %g\n", (long long)cases[i][0],
           (long long)cases[i][1], check(cases[i][0], cases[i][1]));
  free(workspace);
  return 0;
}
