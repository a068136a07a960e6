//===- FuzzNpy.cpp - The .npy reader --------------------------------------===//
//
// Part of the TensorLang project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tensorlang/Support/Npy.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<tensorlang::HostTensor> tensor = tensorlang::parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.npy");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  // A tensor that parsed reads back all the bytes the header promised.
  volatile double sum = 0;
  for (int64_t i = 0; i < tensor->getNumElements(); ++i)
    sum = sum + tensor->getAsDouble(i);
  if (tensor->getByteSize() > int64_t(size))
    std::abort();
  return 0;
}
