/* Chains two programs compiled with --pad=4 through their padded buffers:
   the first program's output is the second's input, as an application
   would pass it. Checks the padding is zero in between (the invariant the
   second program's interface requires, which the report's own rules break
   for w = u # v with an undefined v) and the results against plain C. */
#include <math.h>
#include <stdio.h>

#include "outer.h"
#include "consume.h"

int main(void) {
  double u[4] = {1, 2, 3, 0}, v[4] = {NAN, 2, 3, 0}, w[4][4], x[4] = {1, 1, 1, 0};
  double y[4], t;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      w[i][j] = 12345.0; /* garbage: the program writes every element */
  outer(u, v, &w[0][0]);
  int zero = 1;
  for (int i = 0; i < 4; ++i)
    zero &= w[i][3] == 0.0 && w[3][i] == 0.0;
  consume(&w[0][0], x, y, &t);
  /* y_i = sum_j w_ij x_j = u_i (v_1 + v_2 + v_3): undefined, as v_1 is. */
  int ok = zero && isnan(y[0]) && isnan(y[1]) && isnan(y[2]) && y[3] == 0.0;
  /* t = trace(w) = u_1 v_1 + u_2 v_2 + u_3 v_3: undefined too. */
  ok = ok && isnan(t);
  /* With v_1 defined the same chain gives numbers. */
  v[0] = -1.0;
  outer(u, v, &w[0][0]);
  consume(&w[0][0], x, y, &t);
  ok = ok && y[0] == 4.0 && y[1] == 8.0 && y[2] == 12.0 && y[3] == 0.0 &&
       t == -1.0 + 4.0 + 9.0;
  printf("padding zero between the programs: %s\n", zero ? "yes" : "no");
  printf("chained results: %s\n", ok ? "ok" : "wrong");
  return ok ? 0 : 1;
}
