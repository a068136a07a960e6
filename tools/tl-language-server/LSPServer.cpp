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
#include "llvm/Support/Path.h"

#include <optional>

using namespace mlir;
using namespace tensorlang;
namespace lsp = llvm::lsp;

/// The UTF-16 code units of the UTF-8 sequence `lead` begins: one per code
/// point, two beyond the Basic Multilingual Plane (lead bytes 0xF0 and
/// up); none for a continuation byte.
static int getUTF16Units(unsigned char lead) {
  if ((lead & 0xC0) == 0x80)
    return 0;
  return lead >= 0xF0 ? 2 : 1;
}

/// The number of UTF-16 code units of the UTF-8 text `bytes`.
static int countUTF16Units(StringRef bytes) {
  int units = 0;
  for (unsigned char byte : bytes)
    units += getUTF16Units(byte);
  return units;
}

/// The bytes of `line` before its UTF-16 code unit `units` (all of them
/// past its end).
static size_t getByteOffset(StringRef line, int units) {
  size_t bytes = 0;
  for (int counted = 0; bytes < line.size(); ++bytes) {
    int next = getUTF16Units(line[bytes]);
    if (next && counted >= units)
      break;
    counted += next;
  }
  return bytes;
}

namespace {
/// An open document, analysed.
struct Document {
  Document(MLIRContext &context, const lsp::URIForFile &uri, StringRef text,
           int64_t version, bool utf16);

  lsp::URIForFile uri;
  int64_t version;
  /// Whether positions count UTF-16 code units (LSP's default), not bytes.
  bool utf16;
  llvm::SourceMgr sourceMgr;
  std::vector<lsp::Diagnostic> diagnostics;
  SourceIndex index;
  /// Whether it parsed: its index holds what it declares.
  bool parsed = false;

  /// The text of line `line` (0-based), without its end.
  StringRef getLine(int line) {
    StringRef buffer =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
    for (int i = 0; i < line; ++i) {
      size_t end = buffer.find('\n');
      if (end == StringRef::npos)
        return StringRef();
      buffer = buffer.drop_front(end + 1);
    }
    return buffer.take_until([](char c) { return c == '\n' || c == '\r'; });
  }
  /// `position` (bytes) in the client's encoding.
  lsp::Position toClient(lsp::Position position) {
    if (utf16)
      position.character = countUTF16Units(
          getLine(position.line).take_front(position.character));
    return position;
  }
  /// The location of the client's `position`.
  llvm::SMLoc getLoc(lsp::Position position) {
    if (utf16)
      position.character =
          int(getByteOffset(getLine(position.line), position.character));
    return position.getAsSMLoc(sourceMgr);
  }

  lsp::Range getRange(llvm::SMRange range) {
    lsp::Range result(sourceMgr, range);
    return lsp::Range(toClient(result.start), toClient(result.end));
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
    lsp::Position position =
        toClient(lsp::Position(fileLoc.getLine() - 1, fileLoc.getColumn() - 1));
    return lsp::Range(position, position);
  }
};
} // namespace

Document::Document(MLIRContext &context, const lsp::URIForFile &uri,
                   StringRef text, int64_t version, bool utf16)
    : uri(uri), version(version), utf16(utf16) {
  // The grammar by the file's kind, as the tools choose it.
  ImportOptions options;
  if (llvm::sys::path::extension(uri.file()) == ".cfd")
    options.syntax = SourceSyntax::CFDlang;
  bool errors = false;
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
        errors = true;
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
    (void)importSource(sourceMgr, &context, options);
  }
  index = indexSource(sourceMgr, &context, options.syntax);
  // (A source that does not parse has an empty index.)
  parsed = !errors || !index.symbols.empty();
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

// (In a named namespace: LSP's message handler finds fromJSON by ADL.)
namespace tensorlang::languageserver {
/// What the server reads of `initialize`: the position encodings the client
/// offers (LSP 3.17, capabilities.general.positionEncodings), which LLVM's
/// InitializeParams does not hold.
struct InitializeRequest {
  std::vector<std::string> positionEncodings;
};

bool fromJSON(const llvm::json::Value &value, InitializeRequest &result,
              llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return false;
  const llvm::json::Object *capabilities = object->getObject("capabilities");
  const llvm::json::Object *general =
      capabilities ? capabilities->getObject("general") : nullptr;
  const llvm::json::Array *encodings =
      general ? general->getArray("positionEncodings") : nullptr;
  if (encodings)
    for (const llvm::json::Value &encoding : *encodings)
      if (std::optional<StringRef> name = encoding.getAsString())
        result.positionEncodings.push_back(name->str());
  return true;
}
} // namespace tensorlang::languageserver

namespace {
using tensorlang::languageserver::InitializeRequest;

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
  void onInitialize(const InitializeRequest &params,
                    lsp::Callback<llvm::json::Value> reply) {
    // Columns are bytes where the client takes UTF-8, else UTF-16 code
    // units, LSP's default, which every client understands.
    utf16 = !llvm::is_contained(params.positionEncodings, "utf-8");
    llvm::json::Object capabilities{
        {"positionEncoding", utf16 ? "utf-16" : "utf-8"},
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
    auto document =
        std::make_unique<Document>(context, uri, text, version, utf16);
    lsp::PublishDiagnosticsParams diagnostics(uri, version);
    diagnostics.diagnostics = document->diagnostics;
    publishDiagnostics(diagnostics);
    // While an edit does not parse, hover, definitions and the outline
    // answer from the last version that did.
    std::unique_ptr<Document> &current = documents[uri.file()];
    if (document->parsed || !current)
      current = std::move(document);
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
    llvm::SMLoc loc = document->getLoc(params.position);
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
      llvm::SMLoc loc = document->getLoc(params.position);
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
  /// Per document, its last version that parsed (or its only one).
  llvm::StringMap<std::unique_ptr<Document>> documents;
  bool utf16 = true;
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
