/* Links the object tl-compile made of kernels.tl and checks it against
   plain C loops written here. */
#include <math.h>
#include <stdio.h>

#include KERNELS_HEADER

static double A[37][23], B[23][19], C[37][19], T[5][5], T0[5][5], w[37], q[19];

int main(void) {
  for (int i = 0; i < 37; ++i)
    for (int k = 0; k < 23; ++k)
      A[i][k] = (double)((i * 7 + k * 3) % 11) - 5.0;
  for (int k = 0; k < 23; ++k)
    for (int j = 0; j < 19; ++j)
      B[k][j] = (double)((k * 5 + j) % 13) * 0.5;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      T[i][j] = T0[i][j] = i * 10 + j;
  for (int i = 0; i < 37; ++i)
    w[i] = i % 3;
  double s = 0.0, tr = -1.0;

  kernels(&A[0][0], &B[0][0], &C[0][0], &T[0][0], &s, w, q, &tr);

  double error = 0.0;
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 19; ++j) {
      double sum = 0.0;
      for (int k = 0; k < 23; ++k)
        sum += A[i][k] * B[k][j];
      error = fmax(error, fabs(sum - C[i][j]));
    }
  int transposed = 1;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      transposed &= T[i][j] == T0[j][i];
  /* q = (x - x) / s with s = 0 is 0/0, which controlled division makes 0. */
  int controlled = 1;
  for (int j = 0; j < 19; ++j)
    controlled &= q[j] == 0.0;
  printf("matrix product max error: %g\n", error);
  printf("transposed in place: %s\n", transposed ? "yes" : "no");
  printf("0/0 under controlled division: %s\n", controlled ? "0" : "not 0");
  printf("trace: %g\n", tr);
  return error == 0.0 && transposed && controlled ? 0 : 1;
}
