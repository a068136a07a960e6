#!/bin/sh
# The "mlir-plain" peer of bench/run.py: lower one hand-written linalg kernel
# (function @kernel, sizes already filled in) with upstream mlir-opt 22's
# plain pipeline (bufferize, linalg -> loops -> LLVM; no tiling, no
# vectorization: clang -O3 does the rest) and link it with driver.c.
# Usage: sh build.sh KERNEL.mlir OUT_BINARY
# Tools: MLIR_OPT, MLIR_TRANSLATE, CC (default mlir-opt-22, mlir-translate-22,
# clang-22 from /usr/bin); MARCH (default native). Pipeline from shared/peers/README.md ("Plain").
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$1
BIN=$2
MLIR_OPT=${MLIR_OPT:-/usr/bin/mlir-opt-22}
MLIR_TRANSLATE=${MLIR_TRANSLATE:-/usr/bin/mlir-translate-22}
CC=${CC:-/usr/bin/clang-22}
MARCH=${MARCH:-native}
"$MLIR_OPT" "$SRC" --eliminate-empty-tensors \
  "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  --buffer-deallocation-pipeline --convert-linalg-to-loops \
  --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm \
  --convert-arith-to-llvm --convert-math-to-llvm --convert-cf-to-llvm \
  --convert-func-to-llvm=use-bare-ptr-memref-call-conv=1 --reconcile-unrealized-casts \
  -o "$BIN.llvm.mlir"
"$MLIR_TRANSLATE" --mlir-to-llvmir "$BIN.llvm.mlir" -o "$BIN.ll"
"$CC" -O3 -march="$MARCH" -Wno-override-module -c "$BIN.ll" -o "$BIN.o"
"$CC" -O3 -march="$MARCH" -I"$HERE/.." "$HERE/driver.c" "$BIN.o" -o "$BIN"
