//===- Store.h - The store a program runs on --------------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The report's dynamic store, shared by both engines: the reference
// interpreter and compiled code run on the same Store, so neither depends on
// the other.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_STORE_H
#define TENSORLANG_SUPPORT_STORE_H

#include "tensorlang/Support/HostTensor.h"

#include "llvm/ADT/StringMap.h"

namespace tensorlang {

/// The dynamic store: one tensor per declared variable, by name, with the
/// variable's storage shape (padded, in a padded program).
using Store = llvm::StringMap<HostTensor>;

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_STORE_H
