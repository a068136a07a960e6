//===- HostTensor.cpp - A tensor's elements in host memory ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/HostTensor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <cassert>
#include <cstring>
#include <limits>

using namespace tensorlang;

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
  // Large tensors are aligned to huge pages and advised to use them
  // (Linux's transparent huge pages, as NumPy does for its arrays): one page
  // fault per 2 MiB instead of per 4 KiB, which is most of the time spent
  // reading and writing large .npy files.
  constexpr int64_t kHugePage = 2 << 20, kHugePageMinBytes = 4 << 20;
  int64_t alignment = bytes >= kHugePageMinBytes ? kHugePage : 64;
  int64_t rounded = std::max<int64_t>(bytes, 1);
  if (llvm::AddOverflow<int64_t>(rounded, alignment - 1, rounded))
    return std::nullopt;
  rounded -= rounded % alignment;
  void *pointer = std::aligned_alloc(alignment, rounded);
  if (!pointer)
    return std::nullopt;
#ifdef __linux__
  if (alignment == kHugePage)
    (void)madvise(pointer, rounded, MADV_HUGEPAGE);
#endif
  HostTensor tensor;
  tensor.kind = kind;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = count;
  tensor.storage.reset(pointer);
  return tensor;
}

HostTensor HostTensor::wrap(ElementKind kind, llvm::ArrayRef<int64_t> shape,
                            void *data, std::shared_ptr<void> owner) {
  HostTensor tensor;
  tensor.kind = kind;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = 1;
  for (int64_t extent : shape)
    tensor.numElements *= extent;
  tensor.external = data;
  tensor.owner = std::move(owner);
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

void HostTensor::reinterpretShape(llvm::ArrayRef<int64_t> newShape) {
  int64_t count = 1;
  for (int64_t extent : newShape)
    count *= extent;
  assert(count == numElements && "reinterpretShape changes the size");
  (void)count;
  shape.assign(newShape.begin(), newShape.end());
}

llvm::SmallVector<int64_t>
tensorlang::getStorageOrder(llvm::ArrayRef<int64_t> shape, Layout layout) {
  llvm::SmallVector<int64_t> order(shape);
  if (layout == Layout::ColumnMajor)
    std::reverse(order.begin(), order.end());
  return order;
}

// The source may be a .npy file's data, which starts wherever the header
// ends: elements are read with memcpy, which makes no alignment assumption
// and compiles to a plain load.
template <typename T>
static void reverseInto(const char *source, llvm::ArrayRef<int64_t> shape,
                        T *destination) {
  // Walk the destination in order; its dimension d is the source's
  // dimension rank-1-d, whose stride in the source is sourceStrides[...].
  // An empty tensor has nothing to move, and its other extents may be
  // anything (their strides would overflow); otherwise every stride is at
  // most the element count.
  if (llvm::is_contained(shape, 0))
    return;
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> sourceStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    sourceStrides[d] = sourceStrides[d + 1] * shape[d + 1];
  llvm::SmallVector<int64_t> extents, strides;
  for (int64_t d = rank - 1; d >= 0; --d) {
    extents.push_back(shape[d]);
    strides.push_back(sourceStrides[d]);
  }
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  if (rank == 0) {
    std::memcpy(destination, source, sizeof(T));
    return;
  }
  // The innermost destination dimension is contiguous in the destination;
  // the others advance as an odometer.
  llvm::SmallVector<int64_t> index(rank, 0);
  int64_t inner = extents.back(), innerStride = strides.back();
  int64_t offset = 0;
  for (int64_t written = 0; written < count; written += inner) {
    const char *from = source + offset * sizeof(T);
    for (int64_t i = 0; i < inner; ++i)
      std::memcpy(&destination[written + i], from + i * innerStride * sizeof(T),
                  sizeof(T));
    for (int64_t d = rank - 2; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < extents[d])
        break;
      offset -= strides[d] * extents[d];
      index[d] = 0;
    }
  }
}

void tensorlang::reverseDimensionsInto(ElementKind kind, const void *source,
                                       llvm::ArrayRef<int64_t> shape,
                                       void *destination) {
  if (kind == ElementKind::F32)
    reverseInto(static_cast<const char *>(source), shape,
                static_cast<float *>(destination));
  else
    reverseInto(static_cast<const char *>(source), shape,
                static_cast<double *>(destination));
}

std::optional<HostTensor>
tensorlang::reverseDimensions(const HostTensor &source) {
  llvm::SmallVector<int64_t> shape(llvm::reverse(source.getShape()));
  std::optional<HostTensor> result =
      HostTensor::allocateUninitialized(source.getKind(), shape);
  if (!result)
    return std::nullopt;
  reverseDimensionsInto(source.getKind(), source.getData(), source.getShape(),
                        result->getData());
  return result;
}
