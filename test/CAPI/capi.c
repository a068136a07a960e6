/* Uses TensorLang's C API: the dialect handle, pass registration, and
   importing source text with diagnostics through the context's handler. */
#include "tensorlang-c/TensorLang.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static void printText(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diagnostic,
                                          void *userData) {
  (void)userData;
  printf("diagnostic at ");
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printText, NULL);
  printf(": ");
  mlirDiagnosticPrint(diagnostic, printText, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectHandle tl = mlirGetDialectHandle__tl__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(tl);
  printf("dialect namespace: %.*s\n", (int)ns.length, ns.data);
  mlirDialectHandleLoadDialect(tl, context);
  tensorlangRegisterPasses();
  mlirContextAttachDiagnosticHandler(context, handleDiagnostic, NULL, NULL);

  const char *good = "var input A : [2 3]\nvar output B : [3 2]\nB = A ^ [1 2]\n";
  MlirModule module = tensorlangImportSource(
      context, mlirStringRefCreateFromCString(good),
      mlirStringRefCreateFromCString("good.tl"));
  if (mlirModuleIsNull(module))
    return 1;
  mlirOperationPrint(mlirModuleGetOperation(module), printText, NULL);
  printf("\n");
  mlirModuleDestroy(module);

  const char *bad = "var A : [2 3]\nA = A ^ [1 3]\n";
  module = tensorlangImportSource(context, mlirStringRefCreateFromCString(bad),
                                  mlirStringRefCreateFromCString("bad.tl"));
  printf("bad program imported: %s\n", mlirModuleIsNull(module) ? "no" : "yes");
  mlirContextDestroy(context);
  return 0;
}
