#!/usr/bin/env bash
# Configures, builds and runs examples/downstream against the installed
# TensorLang tree: find_package(TensorLang), the tl dialect and passes in a
# downstream opt tool, the lowering run on a program.
#   downstream.sh SOURCE_DIR INSTALL_PREFIX WORK_DIR
set -euo pipefail
src="$1"; prefix="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -G Ninja -S "$src/examples/downstream" -B "$work" \
  -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld "${launcher[@]}" \
  -DTensorLang_DIR="$prefix/lib/cmake/tensorlang" > "$work/configure.log"
cmake --build "$work" > "$work/build.log"
tool="$work/downstream-opt"

"$tool" --import-source "$src/examples/matmul.tl" > "$work/matmul.mlir"
grep -q "tl.program @main" "$work/matmul.mlir"
"$tool" "$work/matmul.mlir" --tl-pad="multiple=8" --tl-to-llvm > "$work/matmul.llvm.mlir"
grep -q "llvm.func @main(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)" "$work/matmul.llvm.mlir"
# A planner the downstream compiler registers plans the contractions.
"$tool" "$work/matmul.mlir" -o /dev/null 2> "$work/narrow.err" \
  --pass-pipeline="builtin.module(convert-tl-to-linalg,func.func(tl-tile-contractions{planner=narrow emit-remarks}))"
grep -q "planner narrow, for 64-bit elements: .* register tile 2x" "$work/narrow.err"
grep -q "tiling plan: .* register=\[2," "$work/narrow.err"
# The dialect's verifiers work downstream too.
printf 'tl.program @p {\n  tl.var @x : tensor<2xf64>\n  tl.assign @y = {\n    %%x = tl.use @x : tensor<2xf64>\n    tl.yield %%x : tensor<2xf64>\n  }\n}\n' > "$work/bad.mlir"
if "$tool" "$work/bad.mlir" 2> "$work/bad.err"; then exit 1; fi
grep -q "assigns to undeclared variable @y (rule ok-stmt)" "$work/bad.err"
echo "downstream: ok"
