//===- LSPServer.h - The language server of TensorLang sources --*- C++ -*-===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TENSORLANG_TOOLS_TL_LANGUAGE_SERVER_LSPSERVER_H
#define TENSORLANG_TOOLS_TL_LANGUAGE_SERVER_LSPSERVER_H

#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/LogicalResult.h"

namespace tensorlang {

/// Serves `.tl` sources over `transport` until the client says exit:
/// diagnostics on every change, hover, go-to-definition and document
/// symbols. Fails if the transport fails.
llvm::LogicalResult runLanguageServer(llvm::lsp::JSONTransport &transport);

} // namespace tensorlang

#endif // TENSORLANG_TOOLS_TL_LANGUAGE_SERVER_LSPSERVER_H
