//===- InitAllTranslations.h - Register TensorLang's translations -*- C++
//-*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_INITALLTRANSLATIONS_H
#define TENSORLANG_INITALLTRANSLATIONS_H

namespace tensorlang {

/// Registers `--import-tl` and `--export-tl` with their options (defined in
/// TensorLangFrontend).
void registerTensorLangTranslations();

} // namespace tensorlang

#endif // TENSORLANG_INITALLTRANSLATIONS_H
