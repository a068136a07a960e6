//===- TLDialect.cpp - The tl dialect -------------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Dialect/TL/IR/TLAttributes.h"
#include "tensorlang/Dialect/TL/IR/TLOps.h"

using namespace tensorlang::tl;

#include "tensorlang/Dialect/TL/IR/TLDialect.cpp.inc"

void TLDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tensorlang/Dialect/TL/IR/TLOps.cpp.inc"
      >();
  registerAttributes();
}
