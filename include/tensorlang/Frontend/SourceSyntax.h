//===- SourceSyntax.h - The source languages of the frontend ----*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_FRONTEND_SOURCESYNTAX_H
#define TENSORLANG_FRONTEND_SOURCESYNTAX_H

namespace tensorlang {

/// The source languages the frontend reads, from the parser to the
/// importer and the API.
enum class SourceSyntax {
  /// This language (docs/language.md).
  TensorLang,
  /// CFDlang's (docs/language.md, "Differences from CFDlang";
  /// docs/notes/cfdlang-syntax.md): 0-based index lists, every binary
  /// operator right-associative, `.` on the level of `* /`, juxtaposed
  /// stack elements, `E . F` as a matrix product, its elem directive.
  CFDlang,
};

} // namespace tensorlang

#endif // TENSORLANG_FRONTEND_SOURCESYNTAX_H
