//===- HostTensor.cpp - A tensor's elements in host memory ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/HostTensor.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <limits>

using namespace tensorlang;

llvm::StringRef tensorlang::getElementKindName(ElementKind kind) {
  return kind == ElementKind::F32 ? "f32" : "f64";
}

std::optional<HostTensor> HostTensor::allocate(ElementKind kind,
                                               llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t extent : shape)
    if (extent < 0 || llvm::MulOverflow(count, extent, count))
      return std::nullopt;
  int64_t bytes;
  if (llvm::MulOverflow(count, getElementSize(kind), bytes))
    return std::nullopt;
  // aligned_alloc rather than new: running out of memory is an error the
  // caller reports, not a crash. Cache-line alignment lets compiled code
  // write large results with non-temporal stores (tl-streaming-stores);
  // the size must be a multiple of it. Allocate at least one line so that
  // empty shapes (never produced by the language) still have storage.
  constexpr int64_t kAlignment = 64;
  int64_t rounded = std::max<int64_t>(bytes, 1);
  if (llvm::AddOverflow<int64_t>(rounded, kAlignment - 1, rounded))
    return std::nullopt;
  rounded -= rounded % kAlignment;
  void *pointer = std::aligned_alloc(kAlignment, rounded);
  if (!pointer)
    return std::nullopt;
  HostTensor tensor;
  tensor.kind = kind;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = count;
  tensor.storage.reset(pointer);
  return tensor;
}

std::optional<HostTensor>
HostTensor::allocateUndefined(ElementKind kind, llvm::ArrayRef<int64_t> shape) {
  std::optional<HostTensor> tensor = allocate(kind, shape);
  if (!tensor)
    return std::nullopt;
  if (kind == ElementKind::F32)
    std::fill_n(tensor->data<float>(), tensor->numElements,
                std::numeric_limits<float>::quiet_NaN());
  else
    std::fill_n(tensor->data<double>(), tensor->numElements,
                std::numeric_limits<double>::quiet_NaN());
  return tensor;
}

std::optional<HostTensor>
HostTensor::allocateZero(ElementKind kind, llvm::ArrayRef<int64_t> shape) {
  std::optional<HostTensor> tensor = allocate(kind, shape);
  if (tensor)
    std::memset(tensor->getData(), 0, tensor->getByteSize());
  return tensor;
}

/// Calls `row(outerOffset, innerOffset)` for every row (run along the last
/// dimension) of the corner of shape `shape`, with the row's element offsets
/// in a tensor of shape `outer` and in a dense tensor of shape `shape`.
static void forEachCornerRow(
    llvm::ArrayRef<int64_t> outer, llvm::ArrayRef<int64_t> shape,
    llvm::function_ref<void(int64_t, int64_t)> row) {
  size_t rank = shape.size();
  if (rank == 0) {
    row(0, 0);
    return;
  }
  llvm::SmallVector<int64_t, 8> index(rank - 1, 0);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d)
    rows *= shape[d];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t outerOffset = 0, innerOffset = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      outerOffset = outerOffset * outer[d] + index[d];
      innerOffset = innerOffset * shape[d] + index[d];
    }
    row(outerOffset * outer[rank - 1], innerOffset * shape[rank - 1]);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

void tensorlang::copyIntoCorner(const void *source,
                                llvm::ArrayRef<int64_t> shape,
                                HostTensor &destination) {
  int64_t size = getElementSize(destination.getKind());
  int64_t rowBytes = shape.empty() ? size : shape.back() * size;
  auto *to = static_cast<char *>(destination.getData());
  const auto *from = static_cast<const char *>(source);
  forEachCornerRow(destination.getShape(), shape,
                   [&](int64_t outer, int64_t inner) {
                     std::memcpy(to + outer * size, from + inner * size,
                                 rowBytes);
                   });
}

void tensorlang::copyIntoCorner(const HostTensor &source,
                                HostTensor &destination) {
  copyIntoCorner(source.getData(), source.getShape(), destination);
}

std::optional<HostTensor>
tensorlang::extractCorner(const HostTensor &source,
                          llvm::ArrayRef<int64_t> shape) {
  std::optional<HostTensor> result =
      HostTensor::allocateZero(source.getKind(), shape);
  if (!result)
    return std::nullopt;
  int64_t size = getElementSize(source.getKind());
  int64_t rowBytes = shape.empty() ? size : shape.back() * size;
  auto *to = static_cast<char *>(result->getData());
  const auto *from = static_cast<const char *>(source.getData());
  forEachCornerRow(source.getShape(), shape, [&](int64_t outer, int64_t inner) {
    std::memcpy(to + inner * size, from + outer * size, rowBytes);
  });
  return result;
}

void tensorlang::fillCornerUndefined(HostTensor &tensor,
                                     llvm::ArrayRef<int64_t> shape) {
  int64_t length = shape.empty() ? 1 : shape.back();
  forEachCornerRow(tensor.getShape(), shape, [&](int64_t outer, int64_t) {
    if (tensor.getKind() == ElementKind::F32)
      std::fill_n(tensor.data<float>() + outer, length,
                  std::numeric_limits<float>::quiet_NaN());
    else
      std::fill_n(tensor.data<double>() + outer, length,
                  std::numeric_limits<double>::quiet_NaN());
  });
}
