//===- ElementKind.h - The element types of tensors -------------*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one enum of element types, from the frontend's choice of type down to
// the host tensors the runs read and write: a header of its own, so that the
// frontend's options name it without the host tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_SUPPORT_ELEMENTKIND_H
#define TENSORLANG_SUPPORT_ELEMENTKIND_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace tensorlang {

/// The element type of every variable of a program and of a tensor's
/// elements in memory.
enum class ElementKind { F32, F64 };

/// "f32" or "f64".
inline llvm::StringRef getElementKindName(ElementKind kind) {
  return kind == ElementKind::F32 ? "f32" : "f64";
}

/// Bytes per element.
inline int64_t getElementSize(ElementKind kind) {
  return kind == ElementKind::F32 ? 4 : 8;
}

} // namespace tensorlang

#endif // TENSORLANG_SUPPORT_ELEMENTKIND_H
