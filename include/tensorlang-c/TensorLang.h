/*===- TensorLang.h - C API of TensorLang -------------------------*- C -*-===*\
|*                                                                            *|
|* Part of the TensorLang project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TENSORLANG_C_TENSORLANG_H
#define TENSORLANG_C_TENSORLANG_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tl dialect: mlirGetDialectHandle__tl__() registers or loads it. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TL, tl);

/* Registers the tl passes and the lowering pipelines (--convert-tl-to-linalg,
   --tl-pad, --tl-to-llvm, ...) in the global pass registry. */
MLIR_CAPI_EXPORTED void tensorlangRegisterPasses(void);

/* Parses and type-checks tensor language source text into a module holding
   one tl.program (loading the tl dialect into the context). On error,
   reports every problem through the context's diagnostic handlers, with
   `filename`:line:col locations, and returns a null module (check with
   mlirModuleIsNull). */
MLIR_CAPI_EXPORTED MlirModule tensorlangImportSource(MlirContext context,
                                                     MlirStringRef source,
                                                     MlirStringRef filename);

#ifdef __cplusplus
}
#endif

#endif /* TENSORLANG_C_TENSORLANG_H */
