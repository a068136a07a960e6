/* Calls the inverse Helmholtz kernel with its interface variables only
   (S, D, u, v), and its workspace variant three times with one workspace,
   and compares with plain loops. */
#include HELMHOLTZ_HEADER
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONCAT(a, b) a##b
#define SUFFIXED(name, suffix) CONCAT(name, suffix)

#define P 5

static void apply(const double S[P][P], const double in[P][P][P],
                  double out[P][P][P], int transposed) {
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      for (int k = 0; k < P; ++k) {
        double sum = 0;
        for (int a = 0; a < P; ++a)
          for (int b = 0; b < P; ++b)
            for (int c = 0; c < P; ++c)
              sum += (transposed ? S[a][i] * S[b][j] * S[c][k]
                                 : S[i][a] * S[j][b] * S[k][c]) *
                     in[a][b][c];
        out[i][j][k] = sum;
      }
}

int main(void) {
  double S[P][P], D[P][P][P], u[P][P][P], v[P][P][P];
  double t[P][P][P], r[P][P][P], expected[P][P][P];
  for (int i = 0; i < P * P; ++i)
    (&S[0][0])[i] = (i % 7) * 0.25 - 0.5;
  for (int i = 0; i < P * P * P; ++i) {
    (&D[0][0][0])[i] = 1.0 + (i % 3);
    (&u[0][0][0])[i] = (i % 11) * 0.125 - 0.5;
  }
  FUNCTION(&S[0][0], &D[0][0][0], &u[0][0][0], &v[0][0][0]);
  apply(S, u, t, 0);
  for (int i = 0; i < P * P * P; ++i)
    (&r[0][0][0])[i] = (&D[0][0][0])[i] * (&t[0][0][0])[i];
  apply(S, r, expected, 1);
  double error = 0;
  for (int i = 0; i < P * P * P; ++i)
    error = fmax(error, fabs((&v[0][0][0])[i] - (&expected[0][0][0])[i]));
  printf("max error below 1e-12: %s\n", error < 1e-12 ? "yes" : "no");

  /* The same calls with one workspace; what a call leaves in it must not
     matter to the next. */
  int64_t bytes = SUFFIXED(FUNCTION, _workspace_size)();
  void *workspace = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64 + 64);
  double workspaceError = 0;
  for (int call = 0; call < 3; ++call) {
    memset(v, 0, sizeof(v));
    SUFFIXED(FUNCTION, _ws)(&S[0][0], &D[0][0][0], &u[0][0][0], &v[0][0][0],
                            workspace);
    for (int i = 0; i < P * P * P; ++i)
      workspaceError = fmax(workspaceError,
                            fabs((&v[0][0][0])[i] - (&expected[0][0][0])[i]));
  }
  free(workspace);
  printf("workspace of %lld bytes, max error below 1e-12: %s\n",
         (long long)bytes, workspaceError < 1e-12 ? "yes" : "no");
  return error < 1e-12 && workspaceError < 1e-12 ? 0 : 1;
}
