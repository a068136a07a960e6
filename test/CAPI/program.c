/* The program API from C: the same rules, engines and results as tl-run and
   Python. Prints what it gets; program.test checks it. */
#include "tensorlang-c/Program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source = "var input A : [2 2]\n"
                            "var t : [2 2]\n"
                            "var output B : [2 2]\n"
                            "t = A + A\n"
                            "B = t # A . [2 3]\n";

static void printMatrix(const char *label, const double *m) {
  printf("%s %g %g %g %g\n", label, m[0], m[1], m[2], m[3]);
}

static int runWith(enum TensorlangEngine engine, const char *label) {
  TensorlangProgramOptions options;
  tensorlangProgramOptionsInit(&options);
  options.engine = engine;
  char *error = NULL;
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("p.tl"), false, &options, &error);
  if (!program) {
    printf("%s", error);
    free(error);
    return 1;
  }
  if (!tensorlangProgramKeepResult(program, "t", &error)) {
    printf("%s", error);
    free(error);
    return 1;
  }
  double a[4] = {1, 2, 3, 4}, b[4], t[4];
  const char *inputNames[] = {"A"};
  const void *inputs[] = {a};
  const char *resultNames[] = {"B", "t"};
  void *results[] = {b, t};
  if (!tensorlangProgramRun(program, 1, inputNames, inputs, 2, resultNames,
                            results, &error)) {
    printf("%s", error);
    free(error);
    return 1;
  }
  printf("%s:\n", label);
  printMatrix("B", b);
  printMatrix("t", t);

  /* Rule d-in-var, as in tl-run and Python. */
  if (!tensorlangProgramRun(program, 0, NULL, NULL, 0, NULL, NULL, &error)) {
    printf("%s", error);
    free(error);
  }
  tensorlangProgramDestroy(program);
  return 0;
}

/* A program with a size, compiled once and run on three values of it;
   sizes that disagree or are missing are refused. */
static int runSized(void) {
  TensorlangProgramOptions options;
  tensorlangProgramOptionsInit(&options);
  char *error = NULL;
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(
          "size E\nvar input u : [E 2]\nvar input w : [E]\n"
          "var output s : [2]\ns = u # w . [[1 3]]\n"),
      mlirStringRefCreateFromCString("sized.tl"), false, &options, &error);
  if (!program) {
    printf("%s", error);
    return 1;
  }
  printf("sizes: %s; u is [%s %lld]\n",
         tensorlangProgramGetSizeName(program, 0),
         tensorlangProgramGetVariableSize(program, 0, 0),
         (long long)tensorlangProgramGetVariableExtent(program, 0, 1));
  double u[2 * 9], w[9];
  for (int i = 0; i < 2 * 9; ++i)
    u[i] = i;
  for (int i = 0; i < 9; ++i)
    w[i] = 1;
  const char *sizeNames[] = {"E"};
  const char *inputNames[] = {"u", "w"};
  const void *inputs[] = {u, w};
  const char *resultNames[] = {"s"};
  for (int64_t e = 1; e <= 9; e += 4) {
    double s[2];
    void *results[] = {s};
    if (!tensorlangProgramRunWithSizes(program, 1, sizeNames, &e, 2, inputNames,
                                       inputs, 1, resultNames, results,
                                       &error)) {
      printf("%s", error);
      free(error);
      return 1;
    }
    printf("E=%lld: s = %g %g\n", (long long)e, s[0], s[1]);
  }
  double s[2];
  void *results[] = {s};
  if (!tensorlangProgramRun(program, 2, inputNames, inputs, 1, resultNames,
                            results, &error)) {
    printf("%s", error);
    free(error);
  }
  /* E = 0: no rows, an empty sum. */
  int64_t zero = 0;
  s[0] = s[1] = -1;
  if (tensorlangProgramRunWithSizes(program, 1, sizeNames, &zero, 2, inputNames,
                                    inputs, 1, resultNames, results, &error))
    printf("E=0: s = %g %g\n", s[0], s[1]);
  else {
    printf("%s", error);
    free(error);
  }
  int64_t negative = -1;
  if (!tensorlangProgramRunWithSizes(program, 1, sizeNames, &negative, 2,
                                     inputNames, inputs, 1, resultNames,
                                     results, &error)) {
    printf("%s", error);
    free(error);
  }
  tensorlangProgramDestroy(program);
  return 0;
}

/* The target, CPU and GPU options, as tl-run's --target, --cpu and
   --gpu-arch and Python's target=. */
static int runTargets(void) {
  TensorlangProgramOptions options;
  tensorlangProgramOptionsInit(&options);
  char *error = NULL;
  /* A CPU by name: the same results. */
  options.cpu = "x86-64-v3";
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("p.tl"), false, &options, &error);
  double a[4] = {1, 2, 3, 4}, b[4];
  const char *inputNames[] = {"A"};
  const void *inputs[] = {a};
  const char *resultNames[] = {"B"};
  void *results[] = {b};
  if (!program || !tensorlangProgramRun(program, 1, inputNames, inputs, 1,
                                        resultNames, results, &error)) {
    printf("%s", error);
    free(error);
    return 1;
  }
  printMatrix("x86-64-v3: B", b);
  /* A CPU program has no device kernel. */
  if (!tensorlangProgramGetDeviceKernel(program, &error)) {
    printf("%s", error);
    free(error);
  }
  tensorlangProgramDestroy(program);
  /* The JIT's targets are this machine's CPU and GPU. */
  options.cpu = NULL;
  options.target = "aarch64-linux-gnu";
  program = tensorlangProgramCreate(mlirStringRefCreateFromCString(source),
                                    mlirStringRefCreateFromCString("p.tl"),
                                    false, &options, &error);
  printf("aarch64 created: %s\n%s", program ? "yes" : "no", error);
  free(error);
  /* The GPU: without a driver, the kernel is refused in one line. */
  options.target = "cuda";
  program = tensorlangProgramCreate(mlirStringRefCreateFromCString(source),
                                    mlirStringRefCreateFromCString("p.tl"),
                                    false, &options, &error);
  if (!program)
    return 1;
  void *kernel = tensorlangProgramGetDeviceKernel(program, &error);
  printf("cuda device kernel: %s\n", kernel ? "compiled" : error);
  free(error);
  /* Its temporaries are in device memory: no workspace to size (where a
     driver compiles it). */
  error = NULL;
  int64_t bytes = tensorlangProgramGetWorkspaceSize(program, NULL, &error);
  printf("cuda workspace: %lld %s", (long long)bytes, error ? error : "\n");
  free(error);
  tensorlangProgramDestroy(program);
  return 0;
}

/* The options are checked by the table tl-run's flags and Python's
   keywords share: a bad value gets the same message. And the options that
   tl-run has and C gained take effect: syntax, distribute. */
static void printCreateError(const TensorlangProgramOptions *options) {
  char *error = NULL;
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("p.tl"), false, options, &error);
  if (program) {
    printf("created\n");
    tensorlangProgramDestroy(program);
    return;
  }
  printf("%s", error);
  free(error);
}

static int runOptions(void) {
  TensorlangProgramOptions options;
  tensorlangProgramOptionsInit(&options);
  options.threads = 0;
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.syntax = "fortran";
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.l1CacheBytes = -1;
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.l3CacheBytes = -2;
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.cpu = "";
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.distribute = "2E";
  printCreateError(&options);
  tensorlangProgramOptionsInit(&options);
  options.optLevel = 7;
  printCreateError(&options);

  /* CFDlang's 0-based index lists: (A # x) . [[0 2]] is A's transpose
     times x. */
  tensorlangProgramOptionsInit(&options);
  options.syntax = "cfdlang";
  char *error = NULL;
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString("var input A : [2 2]\nvar input x : [2]\n"
                                     "var output y : [2]\n"
                                     "y = (A # x) . [[0 2]]\n"),
      mlirStringRefCreateFromCString("p.cfd"), false, &options, &error);
  if (!program) {
    printf("%s", error);
    free(error);
    return 1;
  }
  double a[4] = {1, 2, 3, 4}, x[2] = {1, 10}, y[2];
  const char *inputNames[] = {"A", "x"};
  const void *inputs[] = {a, x};
  const char *resultNames[] = {"y"};
  void *results[] = {y};
  if (!tensorlangProgramRun(program, 2, inputNames, inputs, 1, resultNames,
                            results, &error)) {
    printf("%s", error);
    free(error);
    return 1;
  }
  printf("cfdlang: y = %g %g\n", y[0], y[1]);
  tensorlangProgramDestroy(program);

  /* A distributed program's kernel takes the communicator first. */
  tensorlangProgramOptionsInit(&options);
  options.distribute = "E";
  program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(
          "size E\nvar input u : [E 2]\nvar input w : [E]\n"
          "var output s : [2]\ns = u # w . [[1 3]]\n"),
      mlirStringRefCreateFromCString("sum.tl"), false, &options, &error);
  char *declaration =
      program ? tensorlangProgramGetKernelDeclaration(program, &error) : NULL;
  /* The declaration is tl-compile's header; from its function on: */
  const char *function =
      declaration ? strstr(declaration, "void main_mpi(") : NULL;
  if (function)
    printf("distributed: %s\n", function);
  else
    printf("distributed: %s\n", declaration ? declaration : error);
  free(declaration);
  free(error);
  if (program)
    tensorlangProgramDestroy(program);
  return 0;
}

int main(void) {
  TensorlangProgramOptions options;
  tensorlangProgramOptionsInit(&options);
  printf("variables of the signature:");
  TensorlangProgram program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("p.tl"), false, &options, NULL);
  for (intptr_t i = 0; i < tensorlangProgramGetNumVariables(program); ++i)
    printf(" %s[%lld]%s%s", tensorlangProgramGetVariableName(program, i),
           (long long)tensorlangProgramGetVariableExtent(program, i, 0),
           tensorlangProgramIsInput(program, i) ? " input" : "",
           tensorlangProgramIsOutput(program, i) ? " output" : "");
  printf("\n");
  /* A variable that is neither output nor kept is refused. */
  double t[4];
  double a[4] = {1, 2, 3, 4};
  const char *inputNames[] = {"A"};
  const void *inputs[] = {a};
  const char *resultNames[] = {"t"};
  void *results[] = {t};
  char *error = NULL;
  if (!tensorlangProgramRun(program, 1, inputNames, inputs, 1, resultNames,
                            results, &error)) {
    printf("%s", error);
    free(error);
  }
  tensorlangProgramDestroy(program);

  /* A source error, with its location. */
  program = tensorlangProgramCreate(
      mlirStringRefCreateFromCString("var A : [2]\nA = B\n"),
      mlirStringRefCreateFromCString("bad.tl"), false, &options, &error);
  printf("bad program created: %s\n", program ? "yes" : "no");
  printf("%s", error);
  free(error);

  /* Warnings: kept with the program, or errors with warningsAreErrors. */
  const char *unused =
      "var input A : [2]\nvar input B : [2]\nvar output C : [2]\nC = B\n";
  program = tensorlangProgramCreate(mlirStringRefCreateFromCString(unused),
                                    mlirStringRefCreateFromCString("unused.tl"),
                                    false, &options, NULL);
  printf("warnings: %s", tensorlangProgramGetWarnings(program));
  tensorlangProgramDestroy(program);
  options.warningsAreErrors = true;
  program = tensorlangProgramCreate(mlirStringRefCreateFromCString(unused),
                                    mlirStringRefCreateFromCString("unused.tl"),
                                    false, &options, &error);
  printf("with warningsAreErrors, created: %s\n%s", program ? "yes" : "no",
         error);
  free(error);
  options.warningsAreErrors = false;

  return runWith(TensorlangEngineJit, "jit") ||
         runWith(TensorlangEngineReference, "reference") || runSized() ||
         runTargets() || runOptions();
}
