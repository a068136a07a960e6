//===- TensorPrinter.cpp - Print tensors for people -----------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/TensorPrinter.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace tensorlang;

namespace {
struct Printer {
  llvm::raw_ostream &os;
  const HostTensor &tensor;
  int precision;
  bool summarize;

  void printElement(int64_t index) {
    double value = tensor.getAsDouble(index);
    if (std::isnan(value))
      os << "nan";
    else if (std::isinf(value))
      os << (value < 0 ? "-inf" : "inf");
    else
      os << llvm::format("%.*g", precision, value);
  }

  void print(unsigned dim, int64_t offset, int64_t stride) {
    llvm::ArrayRef<int64_t> shape = tensor.getShape();
    if (dim == shape.size())
      return printElement(offset);
    int64_t extent = shape[dim];
    // An empty dimension (a size bound to 0) prints as [].
    int64_t inner = extent == 0 ? 0 : stride / extent;
    os << '[';
    bool elide = summarize && extent > 6;
    for (int64_t i = 0; i < extent; ++i) {
      if (elide && i == 3) {
        separator(dim);
        os << "...";
        i = extent - 3;
      }
      if (i != 0)
        separator(dim);
      print(dim + 1, offset + i * inner, inner);
    }
    os << ']';
  }

  /// numpy puts rank-1 rows side by side and higher-rank blocks on new
  /// lines, with one blank line per extra level.
  void separator(unsigned dim) {
    unsigned rank = tensor.getShape().size();
    os << ',';
    if (dim + 1 == rank) {
      os << ' ';
      return;
    }
    for (unsigned i = dim + 1; i < rank; ++i)
      os << '\n';
    os.indent(dim + 1);
  }
};
} // namespace

void tensorlang::printTensor(llvm::raw_ostream &os, const HostTensor &tensor,
                             int precision, int64_t summarizeAbove) {
  Printer{os, tensor, precision, tensor.getNumElements() > summarizeAbove}
      .print(0, 0, tensor.getNumElements());
}
