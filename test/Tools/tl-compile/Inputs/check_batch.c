/* Calls the batch kernel of batch.tl and compares with plain loops: the
   element index is the last (fastest varying) index of u and v. */
#include BATCH_HEADER
#include <math.h>
#include <stdio.h>

int main(void) {
  double A[3 * 4], u[4 * 7], v[3 * 7];
  for (int i = 0; i < 3 * 4; ++i)
    A[i] = (i % 5) - 2;
  for (int i = 0; i < 4 * 7; ++i)
    u[i] = (i % 7) - 3 + 0.5 * (i / 7);
  batch(A, u, v);
  double error = 0;
  for (int e = 0; e < 7; ++e)
    for (int a = 0; a < 3; ++a) {
      double sum = 0;
      for (int b = 0; b < 4; ++b)
        sum += A[a * 4 + b] * u[b * 7 + e];
      error = fmax(error, fabs(sum - v[a * 7 + e]));
    }
  printf("batch max error: %g\n", error);
  return 0;
}
