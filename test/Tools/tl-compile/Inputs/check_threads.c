/* Calls a kernel compiled with --threads=2 (which calls LLVM's OpenMP
   runtime) and compares with plain loops. */
#include <math.h>
#include <stdio.h>

void threads(const double *A, double *C);

int main(void) {
  static double A[512 * 512], C[512 * 512];
  for (int i = 0; i < 512 * 512; ++i)
    A[i] = (i % 7) * 0.125;
  threads(A, C);
  double error = 0;
  for (int i = 0; i < 512 * 512; ++i)
    error = fmax(error, fabs(C[i] - exp(A[i]) * A[i]));
  printf("max error below 1e-12: %s\n", error < 1e-12 ? "yes" : "no");
  return error < 1e-12 ? 0 : 1;
}
