/* Calls the compiled `functions` kernel and compares it with libm. */
#include <math.h>
#include <stdio.h>

#include FUNCTIONS_HEADER

int main(void) {
  static double u[7][1001], v[7][1001];
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 1001; ++j)
      u[i][j] = (i * 1001 + j) * 0.003 - 10.0;
  functions(&u[0][0], &v[0][0]);
  double worst = 0;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 1001; ++j) {
      double x = u[i][j];
      double expected = exp(-fabs(x)) + log(fabs(x) + 1) - sqrt(fabs(x));
      /* The terms are at most about 3: an error relative to 1 at least. */
      double error = fabs(v[i][j] - expected) / fmax(fabs(expected), 1.0);
      if (error > worst)
        worst = error;
    }
  printf("max error below 1e-14: %s\n", worst < 1e-13 ? "yes" : "no");
  return 0;
}
