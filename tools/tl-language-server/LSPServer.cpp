//===- LSPServer.cpp - The language server of TensorLang sources ----------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Built on LLVM's LSP support library, as upstream's PDLL and TableGen
// servers are. Every open document is analysed whole on every change (a
// source is a few hundred lines): the frontend's diagnostics (the report's
// syntax and typing rules, with their notes as related information) and
// the source index (SourceIndex.h) that hover, go-to-definition and
// document symbols read.
//
//===----------------------------------------------------------------------===//

#include "LSPServer.h"
#include "tensorlang/Dialect/TL/IR/TLDialect.h"
#include "tensorlang/Frontend/MLIRGen.h"
#include "tensorlang/Frontend/SourceIndex.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>

using namespace mlir;
using namespace tensorlang;
namespace lsp = llvm::lsp;

namespace {
/// An open document, analysed.
struct Document {
  Document(MLIRContext &context, const lsp::URIForFile &uri, StringRef text,
           int64_t version);

  lsp::URIForFile uri;
  int64_t version;
  llvm::SourceMgr sourceMgr;
  std::vector<lsp::Diagnostic> diagnostics;
  SourceIndex index;

  lsp::Range getRange(llvm::SMRange range) {
    return lsp::Range(sourceMgr, range);
  }
  /// The location `loc` (of this document) points to.
  std::optional<llvm::SMLoc> getLoc(FileLineColLoc loc) {
    llvm::SMLoc found = sourceMgr.FindLocForLineAndColumn(
        sourceMgr.getMainFileID(), loc.getLine(), loc.getColumn());
    if (!found.isValid())
      return std::nullopt;
    return found;
  }
  lsp::Range getRange(Location location) {
    auto fileLoc = dyn_cast<FileLineColLoc>(location);
    if (!fileLoc)
      return lsp::Range();
    if (std::optional<llvm::SMLoc> loc = getLoc(fileLoc))
      return getRange(getTokenRange(sourceMgr, *loc));
    lsp::Position position(fileLoc.getLine() - 1, fileLoc.getColumn() - 1);
    return lsp::Range(position, position);
  }
};
} // namespace

Document::Document(MLIRContext &context, const lsp::URIForFile &uri,
                   StringRef text, int64_t version)
    : uri(uri), version(version) {
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, uri.file()), llvm::SMLoc());
  {
    ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
      lsp::Diagnostic lspDiagnostic;
      lspDiagnostic.source = "tensorlang";
      lspDiagnostic.range = getRange(diagnostic.getLocation());
      lspDiagnostic.message = diagnostic.str();
      switch (diagnostic.getSeverity()) {
      case DiagnosticSeverity::Error:
        lspDiagnostic.severity = lsp::DiagnosticSeverity::Error;
        break;
      case DiagnosticSeverity::Warning:
        lspDiagnostic.severity = lsp::DiagnosticSeverity::Warning;
        break;
      default:
        lspDiagnostic.severity = lsp::DiagnosticSeverity::Information;
        break;
      }
      // The notes (a declaration, the previous definition) point into
      // this document.
      std::vector<lsp::DiagnosticRelatedInformation> related;
      for (Diagnostic &note : diagnostic.getNotes())
        related.emplace_back(lsp::Location(uri, getRange(note.getLocation())),
                             note.str());
      if (!related.empty())
        lspDiagnostic.relatedInformation = std::move(related);
      diagnostics.push_back(std::move(lspDiagnostic));
      return success();
    });
    (void)importSource(sourceMgr, &context);
  }
  index = indexSource(sourceMgr, &context);
}

static lsp::SymbolKind getSymbolKind(SourceIndex::SymbolKind kind) {
  switch (kind) {
  case SourceIndex::SymbolKind::Size:
    return lsp::SymbolKind::Constant;
  case SourceIndex::SymbolKind::TypeAlias:
    return lsp::SymbolKind::TypeParameter;
  case SourceIndex::SymbolKind::Variable:
    return lsp::SymbolKind::Variable;
  case SourceIndex::SymbolKind::Statement:
    return lsp::SymbolKind::Event;
  }
  llvm_unreachable("unknown symbol kind");
}

static StringRef describe(SourceIndex::SymbolKind kind) {
  switch (kind) {
  case SourceIndex::SymbolKind::Size:
    return "size";
  case SourceIndex::SymbolKind::TypeAlias:
    return "type";
  case SourceIndex::SymbolKind::Variable:
    return "var";
  case SourceIndex::SymbolKind::Statement:
    return "statement";
  }
  llvm_unreachable("unknown symbol kind");
}

namespace {
class LSPServer {
public:
  explicit LSPServer(lsp::MessageHandler &handler)
      : publishDiagnostics(
            handler.outgoingNotification<lsp::PublishDiagnosticsParams>(
                "textDocument/publishDiagnostics")) {
    context.loadDialect<tl::TLDialect>();
    handler.method("initialize", this, &LSPServer::onInitialize);
    handler.notification("initialized", this, &LSPServer::onInitialized);
    handler.method("shutdown", this, &LSPServer::onShutdown);
    handler.notification("textDocument/didOpen", this, &LSPServer::onOpen);
    handler.notification("textDocument/didClose", this, &LSPServer::onClose);
    handler.notification("textDocument/didChange", this, &LSPServer::onChange);
    handler.method("textDocument/hover", this, &LSPServer::onHover);
    handler.method("textDocument/definition", this, &LSPServer::onDefinition);
    handler.method("textDocument/documentSymbol", this,
                   &LSPServer::onDocumentSymbol);
  }

  bool shutdownRequested = false;

private:
  void onInitialize(const lsp::InitializeParams &,
                    lsp::Callback<llvm::json::Value> reply) {
    llvm::json::Object capabilities{
        {"textDocumentSync",
         llvm::json::Object{
             {"openClose", true},
             {"change", int(lsp::TextDocumentSyncKind::Full)},
             {"save", true},
         }},
        {"hoverProvider", true},
        {"definitionProvider", true},
        {"documentSymbolProvider", true},
    };
    reply(llvm::json::Object{
        {"serverInfo", llvm::json::Object{{"name", "tl-language-server"},
                                          {"version", "0.2"}}},
        {"capabilities", std::move(capabilities)},
    });
  }
  void onInitialized(const lsp::InitializedParams &) {}
  void onShutdown(const lsp::NoParams &, lsp::Callback<std::nullptr_t> reply) {
    shutdownRequested = true;
    reply(nullptr);
  }

  void update(const lsp::URIForFile &uri, StringRef text, int64_t version) {
    auto document = std::make_unique<Document>(context, uri, text, version);
    lsp::PublishDiagnosticsParams diagnostics(uri, version);
    diagnostics.diagnostics = document->diagnostics;
    publishDiagnostics(diagnostics);
    documents[uri.file()] = std::move(document);
  }
  void onOpen(const lsp::DidOpenTextDocumentParams &params) {
    update(params.textDocument.uri, params.textDocument.text,
           params.textDocument.version);
  }
  void onChange(const lsp::DidChangeTextDocumentParams &params) {
    // Full synchronization: the last change holds the whole text.
    if (params.contentChanges.empty())
      return;
    update(params.textDocument.uri, params.contentChanges.back().text,
           params.textDocument.version);
  }
  void onClose(const lsp::DidCloseTextDocumentParams &params) {
    documents.erase(params.textDocument.uri.file());
    publishDiagnostics(lsp::PublishDiagnosticsParams(params.textDocument.uri,
                                                     /*version=*/0));
  }

  Document *lookup(const lsp::URIForFile &uri) {
    auto it = documents.find(uri.file());
    return it == documents.end() ? nullptr : it->second.get();
  }

  void onHover(const lsp::TextDocumentPositionParams &params,
               lsp::Callback<std::optional<lsp::Hover>> reply) {
    Document *document = lookup(params.textDocument.uri);
    if (!document)
      return reply(std::nullopt);
    llvm::SMLoc loc = params.position.getAsSMLoc(document->sourceMgr);
    const SourceIndex::TypeAt *type = document->index.findType(loc);
    if (!type)
      return reply(std::nullopt);
    lsp::Hover hover(document->getRange(type->range));
    std::string &text = hover.contents.value;
    text = "`" + type->type + "`";
    // A declared name: what it is, and where.
    if (const SourceIndex::Symbol *symbol = document->index.findSymbol(loc)) {
      text += "\n\n" + describe(symbol->kind).str() + " `" + symbol->name + "`";
      if (symbol->kind == SourceIndex::SymbolKind::Variable)
        text += " : " + symbol->detail;
      lsp::Position declared(document->sourceMgr, symbol->nameRange.Start);
      text += ", declared on line " + std::to_string(declared.line + 1);
    }
    reply(std::move(hover));
  }

  void onDefinition(const lsp::TextDocumentPositionParams &params,
                    lsp::Callback<std::vector<lsp::Location>> reply) {
    std::vector<lsp::Location> locations;
    if (Document *document = lookup(params.textDocument.uri)) {
      llvm::SMLoc loc = params.position.getAsSMLoc(document->sourceMgr);
      if (const SourceIndex::Symbol *symbol = document->index.findSymbol(loc))
        locations.emplace_back(document->uri,
                               document->getRange(symbol->nameRange));
    }
    reply(std::move(locations));
  }

  void onDocumentSymbol(const lsp::DocumentSymbolParams &params,
                        lsp::Callback<std::vector<lsp::DocumentSymbol>> reply) {
    std::vector<lsp::DocumentSymbol> symbols;
    if (Document *document = lookup(params.textDocument.uri))
      for (const SourceIndex::Symbol &symbol : document->index.symbols) {
        std::string name = symbol.kind == SourceIndex::SymbolKind::Statement
                               ? symbol.name + " = ..."
                               : symbol.name;
        symbols.emplace_back(name, getSymbolKind(symbol.kind),
                             document->getRange(symbol.range),
                             document->getRange(symbol.nameRange));
        symbols.back().detail = symbol.detail;
      }
    reply(std::move(symbols));
  }

  MLIRContext context{MLIRContext::Threading::DISABLED};
  llvm::StringMap<std::unique_ptr<Document>> documents;
  lsp::OutgoingNotification<lsp::PublishDiagnosticsParams> publishDiagnostics;
};
} // namespace

llvm::LogicalResult
tensorlang::runLanguageServer(lsp::JSONTransport &transport) {
  lsp::MessageHandler handler(transport);
  LSPServer server(handler);
  if (llvm::Error error = transport.run(handler)) {
    lsp::Logger::error("transport error: {0}", error);
    llvm::consumeError(std::move(error));
    return failure();
  }
  return success(server.shutdownRequested);
}
