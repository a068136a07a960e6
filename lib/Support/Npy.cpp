//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Format reference: numpy/lib/format.py. The header is a Python dict literal
// with exactly the keys 'descr', 'fortran_order' and 'shape'.
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/Npy.h"
#include "tensorlang/Support/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;
using namespace tensorlang;

static constexpr StringLiteral kMagic("\x93NUMPY");

namespace {
/// A cursor over the header's dict literal.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  bool consume(char c) {
    skipSpace();
    if (text.empty() || text.front() != c)
      return false;
    text = text.drop_front();
    return true;
  }
  bool peek(char c) {
    skipSpace();
    return !text.empty() && text.front() == c;
  }
  std::optional<StringRef> parseString() {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return std::nullopt;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return std::nullopt;
    StringRef value = text.slice(1, end);
    text = text.drop_front(end + 1);
    return value;
  }
  std::optional<bool> parseBool() {
    skipSpace();
    if (text.consume_front("True"))
      return true;
    if (text.consume_front("False"))
      return false;
    return std::nullopt;
  }
  std::optional<int64_t> parseInteger() {
    skipSpace();
    size_t digits = 0;
    while (digits < text.size() && isDigit(text[digits]))
      ++digits;
    int64_t value;
    if (digits == 0 || text.take_front(digits).getAsInteger(10, value))
      return std::nullopt;
    text = text.drop_front(digits);
    text.consume_front("L"); // Python 2 long literals.
    return value;
  }
  bool atEnd() {
    skipSpace();
    return text.empty();
  }

private:
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  StringRef text;
};
} // namespace

static Error fail(StringRef name, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           name + ": " + message);
}

namespace {
/// What a .npy file holds, from its header.
struct NpyArray {
  ElementKind kind;
  SmallVector<int64_t> shape;
  /// The elements, row-major or, with fortranOrder, column-major.
  StringRef data;
  bool fortranOrder;
};
} // namespace

/// Checks the header of `contents` and that the data has exactly the
/// bytes its shape needs.
static Expected<NpyArray> parseNpyArray(StringRef contents, StringRef name) {
  if (!sys::IsLittleEndianHost)
    return fail(name, "reading .npy files needs a little-endian host");
  if (contents.size() < kMagic.size() + 2 ||
      !contents.starts_with(kMagic)) {
    if (contents.size() >= kMagic.size() && !contents.starts_with(kMagic))
      return fail(name, "not a .npy file (bad magic string)");
    return fail(name, "truncated header");
  }
  unsigned major = uint8_t(contents[6]), minor = uint8_t(contents[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fail(name, "unsupported .npy format version " + Twine(major) + "." +
                          Twine(minor) + " (supported: 1.0, 2.0, 3.0)");
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t prefix = 8 + lengthSize;
  if (contents.size() < prefix)
    return fail(name, "truncated header");
  uint64_t headerLength =
      major == 1 ? support::endian::read16le(contents.data() + 8)
                 : support::endian::read32le(contents.data() + 8);
  if (contents.size() - prefix < headerLength)
    return fail(name, "truncated header: it claims " + Twine(headerLength) +
                          " bytes, the file has " +
                          Twine(contents.size() - prefix));
  StringRef header = contents.substr(prefix, headerLength);
  StringRef data = contents.drop_front(prefix + headerLength);

  // {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
  auto malformed = [&](const Twine &what) {
    return fail(name, "malformed header (" + what + "): " + header.rtrim());
  };
  HeaderParser parser(header);
  if (!parser.consume('{'))
    return malformed("expected '{'");
  std::optional<StringRef> descr;
  std::optional<bool> fortranOrder;
  std::optional<SmallVector<int64_t>> shape;
  while (!parser.consume('}')) {
    std::optional<StringRef> key = parser.parseString();
    if (!key || !parser.consume(':'))
      return malformed("expected a quoted key and ':'");
    if (*key == "descr") {
      if (descr || !(descr = parser.parseString()))
        return malformed("bad or repeated 'descr'");
    } else if (*key == "fortran_order") {
      if (fortranOrder || !(fortranOrder = parser.parseBool()))
        return malformed("bad or repeated 'fortran_order'");
    } else if (*key == "shape") {
      if (shape || !parser.consume('('))
        return malformed("bad or repeated 'shape'");
      shape.emplace();
      while (!parser.consume(')')) {
        std::optional<int64_t> extent = parser.parseInteger();
        if (!extent)
          return malformed("bad extent in 'shape'");
        shape->push_back(*extent);
        if (!parser.consume(',') && !parser.peek(')'))
          return malformed("expected ',' or ')' in 'shape'");
      }
    } else {
      return malformed("unexpected key '" + *key + "'");
    }
    if (!parser.consume(',') && !parser.peek('}'))
      return malformed("expected ',' or '}'");
  }
  if (!parser.atEnd())
    return malformed("unexpected text after '}'");
  if (!descr || !fortranOrder || !shape)
    return malformed("missing 'descr', 'fortran_order' or 'shape'");

  ElementKind kind;
  if (*descr == "<f8")
    kind = ElementKind::F64;
  else if (*descr == "<f4")
    kind = ElementKind::F32;
  else
    return fail(name, "unsupported dtype '" + *descr +
                          "' (expected little-endian float64 '<f8' or "
                          "float32 '<f4')");

  int64_t bytes = getElementSize(kind);
  for (int64_t extent : *shape)
    if (MulOverflow(bytes, extent, bytes))
      return fail(name, "the shape in the header is too large");
  if (static_cast<uint64_t>(bytes) > data.size())
    return fail(name, "truncated data: the header's shape needs " +
                          Twine(bytes) + " bytes, the file has " +
                          Twine(data.size()));
  if (static_cast<uint64_t>(bytes) < data.size())
    return fail(name, Twine(data.size() - bytes) +
                          " unexpected bytes after the data");

  return NpyArray{kind, std::move(*shape), data, *fortranOrder};
}

Expected<HostTensor> tensorlang::parseNpy(StringRef contents, StringRef name,
                                          Layout layout) {
  Expected<NpyArray> array = parseNpyArray(contents, name);
  if (!array)
    return array.takeError();
  std::optional<HostTensor> tensor =
      HostTensor::allocateUninitialized(array->kind, array->shape);
  if (!tensor)
    return fail(name, "out of memory reading " + Twine(array->data.size()) +
                          " bytes");
  Layout stored = array->fortranOrder ? Layout::ColumnMajor : Layout::RowMajor;
  if (stored == layout)
    std::memcpy(tensor->getData(), array->data.data(), array->data.size());
  else
    reverseDimensionsInto(array->kind, array->data.data(),
                          getStorageOrder(array->shape, stored),
                          tensor->getData());
  return std::move(*tensor);
}

Expected<HostTensor> tensorlang::readNpyBlock(StringRef path, unsigned dim,
                                              NpyBlockChooser choose) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot open file: " + buffer.getError().message());
  Expected<NpyArray> array = parseNpyArray((*buffer)->getBuffer(), path);
  if (!array)
    return array.takeError();
  if (array->fortranOrder)
    return fail(path, "a distributed run reads blocks of arrays in C order; "
                      "this one is in Fortran order "
                      "(numpy.ascontiguousarray converts it)");
  if (array->shape.size() <= dim)
    return parseNpy((*buffer)->getBuffer(), path);
  auto [first, count] = choose(array->shape);
  int64_t extent = array->shape[dim];
  SmallVector<int64_t> shape(array->shape);
  shape[dim] = count;
  std::optional<HostTensor> block =
      HostTensor::allocateUninitialized(array->kind, shape);
  if (!block)
    return fail(path, "out of memory reading a block");
  int64_t outer = 1, rowBytes = getElementSize(array->kind);
  for (unsigned d = 0; d < shape.size(); ++d)
    (d < dim ? outer : rowBytes) *= d == dim ? 1 : shape[d];
  char *target = static_cast<char *>(block->getData());
  for (int64_t i = 0; i < outer; ++i)
    std::memcpy(target + i * count * rowBytes,
                array->data.data() + (i * extent + first) * rowBytes,
                count * rowBytes);
  return std::move(*block);
}

Expected<HostTensor> tensorlang::readNpy(StringRef path, Layout layout) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot open file: " + buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), path, layout);
}

Expected<HostTensor> tensorlang::mapNpy(StringRef path, Layout layout) {
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file)
    return fail(path, "cannot open file: " + toString(file.takeError()));
  sys::fs::file_status status;
  std::error_code error = sys::fs::status(*file, status);
  if (error || status.getSize() == 0) {
    sys::fs::closeFile(*file);
    return readNpy(path, layout);
  }
  // Private, writable: compiled code without qualifiers may assign an
  // input's variable; its pages are then copied, the file untouched.
  auto region = std::make_shared<sys::fs::mapped_file_region>(
      *file, sys::fs::mapped_file_region::priv, status.getSize(), 0, error);
  sys::fs::closeFile(*file);
  if (error)
    return readNpy(path, layout);
  StringRef contents(region->const_data(), region->size());
  Expected<NpyArray> array = parseNpyArray(contents, path);
  if (!array)
    return array.takeError();
  Layout stored = array->fortranOrder ? Layout::ColumnMajor : Layout::RowMajor;
  // NumPy and writeNpy pad the header to 64 bytes; another file's elements
  // may be misaligned for their type, and are read instead.
  size_t offset = array->data.data() - region->const_data();
  if (stored != layout || offset % getElementSize(array->kind) != 0)
    return parseNpy(contents, path, layout);
  void *data = region->data() + offset;
  return HostTensor::wrap(array->kind, array->shape, data, std::move(region));
}

Expected<std::string> tensorlang::makeNpyPreamble(StringRef path,
                                                  ElementKind kind,
                                                  ArrayRef<int64_t> shape,
                                                  Layout layout) {
  std::string header;
  raw_string_ostream os(header);
  os << "{'descr': '" << (kind == ElementKind::F32 ? "<f4" : "<f8")
     << "', 'fortran_order': "
     << (layout == Layout::ColumnMajor ? "True" : "False") << ", 'shape': (";
  for (int64_t extent : shape)
    os << extent << (shape.size() == 1 ? "," : ", ");
  if (shape.size() > 1)
    header.resize(header.size() - 2);
  os << "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end the header with a newline, as numpy does.
  size_t unpadded = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  if (header.size() > 0xffff)
    return fail(path, "header too long for format version 1.0");
  char length[2];
  support::endian::write16le(length, header.size());
  return (kMagic + StringRef("\x01\x00", 2) + StringRef(length, 2) + header)
      .str();
}

Error tensorlang::writeNpy(StringRef path, const HostTensor &tensor,
                           Layout layout) {
  Expected<std::string> preamble =
      makeNpyPreamble(path, tensor.getKind(), tensor.getShape(), layout);
  if (!preamble)
    return preamble.takeError();
  return writeFileAtomically(path, [&](raw_pwrite_stream &out) -> Error {
    out << *preamble;
    out.write(static_cast<const char *>(tensor.getData()),
              tensor.getByteSize());
    return Error::success();
  });
}
