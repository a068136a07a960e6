//===- HostTensor.cpp - A tensor's elements in host memory ----------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/HostTensor.h"

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
  // malloc rather than new: running out of memory is an error the caller
  // reports, not a crash. Allocate at least one element so that empty
  // shapes (never produced by the language) still have valid storage.
  void *pointer = std::malloc(std::max<int64_t>(bytes, 8));
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
