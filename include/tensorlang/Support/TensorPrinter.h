//===- TensorPrinter.h - Print tensors for people ---------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_TENSORPRINTER_H
#define TENSORLANG_SUPPORT_TENSORPRINTER_H

#include "tensorlang/Support/HostTensor.h"

#include "llvm/Support/raw_ostream.h"

namespace tensorlang {

/// Prints `tensor` as nested lists in the style of numpy's repr: rows on
/// their own lines, `nan` for undefined elements, `precision` significant
/// digits. Tensors with more than `summarizeAbove` elements show only the
/// first and last three entries of each dimension.
void printTensor(llvm::raw_ostream &os, const HostTensor &tensor,
                 int precision = 6, int64_t summarizeAbove = 1000);

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_TENSORPRINTER_H
