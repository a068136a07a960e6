/* Source text in, function pointer out (tensorlangCompileSource and
   tensorlangProgramGetKernel): compile errors come back located in the
   source; a compiled kernel is called like an object file's function, with
   its interface variables only, row-major and column-major. */
#include "tensorlang-c/Program.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kBad = "var input A : [2 2]\n"
                          "var output B : [2 3]\n"
                          "B = A + A\n";

/* Inverse Helmholtz with p = 3; t is an intermediate. */
static const char *kHelmholtz =
    "var input S : [3 3]\n"
    "var input D : [3 3 3]\n"
    "var input u : [3 3 3]\n"
    "var t : [3 3 3]\n"
    "var output v : [3 3 3]\n"
    "t = S # S # S # u . [[2 7] [4 8] [6 9]]\n"
    "v = S # S # S # (D * t) . [[1 7] [3 8] [5 9]]\n";

typedef void (*HelmholtzKernel)(const double *, const double *, const double *,
                                double *);
typedef void (*SizedKernel)(int64_t, const double *, double *);
typedef void (*SizedProductKernel)(int64_t, const double *, const double *,
                                   double *);
typedef void (*SizedProductWorkspaceKernel)(int64_t, const double *,
                                            const double *, double *, void *);
typedef void (*WorkspaceKernel)(const double *, const double *, const double *,
                                double *, void *);

/* The workspace variant with the workspace of the moment, as a kernel. */
static WorkspaceKernel workspaceKernel;
static void *workspace;
static void callWithWorkspace(const double *S, const double *D, const double *u,
                              double *v) {
  workspaceKernel(S, D, u, v, workspace);
}

/* The element (i, j, k) of a 3x3x3 array in either order. */
static int at(int i, int j, int k, int columnMajor) {
  return columnMajor ? i + 3 * j + 9 * k : 9 * i + 3 * j + k;
}

static double helmholtzError(HelmholtzKernel kernel, int columnMajor) {
  double S[9], D[27], u[27], v[27], t[27], expected[27];
  for (int i = 0; i < 9; ++i)
    S[i] = (i % 4) * 0.5 - 0.75;
  for (int i = 0; i < 27; ++i) {
    D[i] = 1 + i % 3;
    u[i] = (i % 5) * 0.25 - 0.5;
  }
  kernel(S, D, u, v);
  /* S is read in the same order as the kernel reads it. */
#define S_(i, j) S[columnMajor ? (i) + 3 * (j) : 3 * (i) + (j)]
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        double sum = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 3; ++c)
              sum +=
                  S_(i, a) * S_(j, b) * S_(k, c) * u[at(a, b, c, columnMajor)];
        t[at(i, j, k, columnMajor)] = sum;
      }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        double sum = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 3; ++c)
              sum += S_(a, i) * S_(b, j) * S_(c, k) *
                     D[at(a, b, c, columnMajor)] * t[at(a, b, c, columnMajor)];
        expected[at(i, j, k, columnMajor)] = sum;
      }
#undef S_
  double error = 0;
  for (int i = 0; i < 27; ++i)
    error = fmax(error, fabs(v[i] - expected[i]));
  return error;
}

int main(void) {
  char *error = NULL;
  TensorlangProgram bad = tensorlangCompileSource(kBad, NULL, &error);
  printf("bad program compiled: %s\n", bad ? "yes" : "no");
  printf("%s", error);
  free(error);

  for (int columnMajor = 0; columnMajor < 2; ++columnMajor) {
    TensorlangProgramOptions options;
    tensorlangProgramOptionsInit(&options);
    options.columnMajor = columnMajor;
    TensorlangProgram program =
        tensorlangCompileSource(kHelmholtz, &options, &error);
    if (!program) {
      printf("%s", error);
      return 1;
    }
    char *declaration = tensorlangProgramGetKernelDeclaration(program, NULL);
    printf("%s", strstr(declaration, "void "));
    free(declaration);
    HelmholtzKernel kernel =
        (HelmholtzKernel)tensorlangProgramGetKernel(program, NULL);
    printf("%s max error below 1e-12: %s\n",
           columnMajor ? "column-major" : "row-major",
           helmholtzError(kernel, columnMajor) < 1e-12 ? "yes" : "no");
    /* The workspace variant, one workspace for two calls. */
    int64_t bytes = -1;
    workspaceKernel = (WorkspaceKernel)tensorlangProgramGetWorkspaceKernel(
        program, &bytes, NULL);
    workspace = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64 + 64);
    int right = helmholtzError(callWithWorkspace, columnMajor) < 1e-12 &&
                helmholtzError(callWithWorkspace, columnMajor) < 1e-12;
    printf("workspace of %lld bytes, max error below 1e-12: %s\n",
           (long long)bytes, right ? "yes" : "no");
    free(workspace);
    tensorlangProgramDestroy(program);
  }

  /* Sizes come first; one compiled kernel serves every value. */
  TensorlangProgram sized = tensorlangCompileSource(
      "size E\nvar input x : [E]\nvar output y : [E]\ny = x * x + 1\n", NULL,
      &error);
  SizedKernel square = (SizedKernel)tensorlangProgramGetKernel(sized, NULL);
  for (int64_t E = 1; E <= 1001; E += 500) {
    double *x = malloc(sizeof(double) * E), *y = malloc(sizeof(double) * E);
    for (int64_t i = 0; i < E; ++i)
      x[i] = (double)i;
    square(E, x, y);
    int ok = 1;
    for (int64_t i = 0; i < E; ++i)
      ok &= y[i] == x[i] * x[i] + 1;
    printf("E=%d: %s\n", (int)E, ok ? "ok" : "wrong");
    free(x);
    free(y);
  }
  tensorlangProgramDestroy(sized);

  /* A sized intermediate (A # u, of 9E doubles) is in the workspace, whose
     size is computed from the sizes: one workspace, for the largest E,
     serves every call. */
  TensorlangProgram product = tensorlangCompileSource(
      "size E\nvar input A : [3 3]\nvar input u : [3 3 E]\n"
      "var output v : [3 3 E]\nv = A # A # u . [[2 5] [4 6]]\n",
      NULL, &error);
  SizedProductKernel plain =
      (SizedProductKernel)tensorlangProgramGetKernel(product, NULL);
  int64_t bytes = 0;
  SizedProductWorkspaceKernel withWorkspace =
      (SizedProductWorkspaceKernel)tensorlangProgramGetWorkspaceKernel(
          product, &bytes, NULL);
  int64_t largestE = 1001, smallestE = 1, zeroE = 0;
  int64_t largest = tensorlangProgramGetWorkspaceSize(product, &largestE, NULL);
  int64_t smallest =
      tensorlangProgramGetWorkspaceSize(product, &smallestE, NULL);
  printf("sized workspace: %lld bytes from the kernel; E=1001 needs at least "
         "the intermediate: %s; E=1 less: %s; E=0: %lld\n",
         (long long)bytes, largest >= 8 * 9 * largestE ? "yes" : "no",
         smallest < largest ? "yes" : "no",
         (long long)tensorlangProgramGetWorkspaceSize(product, &zeroE, NULL));
  void *sizedWorkspace = aligned_alloc(64, (size_t)(largest + 63) / 64 * 64);
  double A[9];
  for (int i = 0; i < 9; ++i)
    A[i] = i % 4 - 1.5;
  for (int64_t E = 1; E <= 1001; E += 500) {
    double *u = malloc(sizeof(double) * 9 * E);
    double *expected = malloc(sizeof(double) * 9 * E);
    double *v = malloc(sizeof(double) * 9 * E);
    for (int64_t i = 0; i < 9 * E; ++i)
      u[i] = (double)(i % 13) - 6;
    plain(E, A, u, expected);
    withWorkspace(E, A, u, v, sizedWorkspace);
    int ok = 1;
    for (int64_t i = 0; i < 9 * E; ++i)
      ok &= v[i] == expected[i];
    /* v[i][j][e] = sum_kl A[i][k] A[j][l] u[k][l][e], by plain loops. */
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int64_t e = 0; e < E; ++e) {
          double sum = 0;
          for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l)
              sum += A[i * 3 + k] * A[j * 3 + l] * u[(k * 3 + l) * E + e];
          ok &= fabs(sum - v[(i * 3 + j) * E + e]) < 1e-12;
        }
    printf("workspace E=%d: %s\n", (int)E, ok ? "ok" : "wrong");
    free(u);
    free(expected);
    free(v);
  }
  free(sizedWorkspace);
  if (tensorlangProgramGetWorkspaceSize(product, NULL, &error) < 0) {
    printf("%s", error);
    free(error);
  }
  int64_t negative = -1;
  if (tensorlangProgramGetWorkspaceSize(product, &negative, &error) < 0) {
    printf("%s", error);
    free(error);
  }
  tensorlangProgramDestroy(product);
  return 0;
}
