//===- InitAll.h - Register everything TensorLang provides ------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The dialects, the passes and the translations together; tools that need
// less include InitAllDialects.h or InitAllPasses.h alone.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INITALL_H
#define TENSORLANG_INITALL_H

#include "tensorlang/InitAllDialects.h"
#include "tensorlang/InitAllPasses.h"
#include "tensorlang/InitAllTranslations.h"

#endif // TENSORLANG_INITALL_H
