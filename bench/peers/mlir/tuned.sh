#!/bin/sh
# The "mlir-tuned" peer of bench/run.py: one hand-written linalg kernel
# lowered by stock mlir-opt 22 under a transform-dialect schedule (tile for
# caches and registers, vectorize, hoist the accumulators, contract to
# FMAs): the best upstream MLIR does without TensorLang's passes. Pipeline
# from shared/peers/README.md ("Tuned").
# Usage: sh tuned.sh KERNEL.mlir SCHEDULE.mlir OUT_BINARY
# Tools: MLIR_OPT, MLIR_TRANSLATE, CC as in build.sh; MARCH (default native).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$1
SCHEDULE=$2
BIN=$3
MLIR_OPT=${MLIR_OPT:-/usr/bin/mlir-opt-22}
MLIR_TRANSLATE=${MLIR_TRANSLATE:-/usr/bin/mlir-translate-22}
CC=${CC:-/usr/bin/clang-22}
MARCH=${MARCH:-native}
"$MLIR_OPT" "$SRC" \
  "--transform-preload-library=transform-library-paths=$SCHEDULE" \
  --transform-interpreter=entry-point=pre --canonicalize --cse \
  --eliminate-empty-tensors \
  "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  --buffer-deallocation-pipeline --fold-memref-alias-ops --canonicalize --cse \
  --transform-interpreter=entry-point=post --canonicalize --cse \
  "--convert-vector-to-scf=full-unroll=true target-rank=1" --convert-linalg-to-loops \
  --lower-affine --convert-scf-to-cf --convert-vector-to-llvm --expand-strided-metadata \
  --lower-affine --finalize-memref-to-llvm --convert-arith-to-llvm --convert-math-to-llvm \
  --convert-cf-to-llvm --convert-func-to-llvm=use-bare-ptr-memref-call-conv=1 \
  --convert-ub-to-llvm --reconcile-unrealized-casts -o "$BIN.llvm.mlir"
"$MLIR_TRANSLATE" --mlir-to-llvmir "$BIN.llvm.mlir" -o "$BIN.ll"
"$CC" -O3 -march="$MARCH" -Wno-override-module -c "$BIN.ll" -o "$BIN.o"
"$CC" -O3 -march="$MARCH" -I"$HERE/.." "$HERE/driver.c" "$BIN.o" -o "$BIN"
