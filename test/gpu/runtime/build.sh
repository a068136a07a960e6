#!/bin/sh
# Builds the GPU runtime's checks into OUT (default gpu-bundle/ at the
# repository root, which git ignores): a 64 x 64 f64 matrix product lowered
# by MLIR 22's gpu pipeline and linked with our runtime
# (lib/Runtime/CUDARuntime.c) statically, as PTX for the driver to compile
# and, where the CUDA toolkit's ptxas is found, as a cubin and a fat binary;
# and the runtime's own test. Needs LLVM/MLIR 22, no GPU. The executables
# need only libc (and libcuda.so.1, opened when they start): copy OUT to a
# GPU machine and run OUT/run.sh there (docs/gpu.md).
#   sh test/gpu/runtime/build.sh [OUT]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/gpu-bundle}
mkdir -p "$out"
LLVM=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
CUDA=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CC="$LLVM/clang"
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -I$root/include"
# MLIR links libdevice into every kernel: without a toolkit, one laid out
# with an empty libdevice does for kernels that call no math function.
if [ ! -f "$CUDA/nvvm/libdevice/libdevice.10.bc" ]; then
  mkdir -p "$work/cuda/nvvm/libdevice"
  printf 'target triple = "nvptx64-nvidia-cuda"\n' |
    "$LLVM/llvm-as" -o "$work/cuda/nvvm/libdevice/libdevice.10.bc"
  CUDA="$work/cuda"
fi
formats=isa
if [ -x "$CUDA/bin/ptxas" ]; then
  formats="isa bin fatbin"
else
  echo "skipped: no ptxas in $CUDA/bin: PTX only"
fi

$CC $CFLAGS -c "$root/lib/Runtime/CUDARuntime.c" -o "$work/CUDARuntime.o"
checks=cuda_runtime_no_driver
for entry in matmul matmul_copy; do
  # linalg -> parallel loops tiled 16 x 16 -> gpu.launch
  "$LLVM/mlir-opt" "$here/Inputs/$entry.mlir" \
    --convert-linalg-to-parallel-loops \
    --scf-parallel-loop-tiling="parallel-loop-tile-sizes=16,16" \
    --gpu-map-parallel-loops --convert-parallel-loops-to-gpu \
    --lower-affine --canonicalize -o "$work/$entry.gpu.mlir"
  for format in $formats; do
    # isa: PTX text that the driver compiles (mgpuModuleLoadJIT); bin: a
    # cubin from ptxas; fatbin: a fat binary holding the cubin.
    pipeline="builtin.module(convert-nvgpu-to-nvvm,gpu-kernel-outlining,convert-vector-to-scf,convert-scf-to-cf,convert-nvvm-to-llvm,convert-func-to-llvm,expand-strided-metadata,nvvm-attach-target{chip=sm_90 features=+ptx80 O=3},lower-affine,convert-arith-to-llvm,convert-index-to-llvm,canonicalize,cse,gpu.module(convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),gpu-to-llvm,gpu-module-to-binary{format=$format toolkit=$CUDA},convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts)"
    "$LLVM/mlir-opt" "$work/$entry.gpu.mlir" --pass-pipeline="$pipeline" |
      "$LLVM/mlir-translate" --mlir-to-llvmir |
      "$LLVM/llc" -O2 -relocation-model=pic -filetype=obj \
        -o "$work/$entry.$format.o"
    case $format in bin) name=cubin ;; isa) name=ptx ;; *) name=$format ;; esac
    # matmul hands its memrefs to the kernel as they are: managed memory.
    managed=
    [ $entry = matmul ] && managed=-DMANAGED
    $CC $CFLAGS $managed -DENTRY=$entry -DFORMAT=$name \
      "$here/Inputs/matmul_main.c" "$work/$entry.$format.o" \
      "$work/CUDARuntime.o" -ldl -lpthread -lm -o "$out/$entry-$name"
    checks="$checks $entry-$name"
  done
done
$CC $CFLAGS "$here/Inputs/cuda_runtime_no_driver.c" "$work/CUDARuntime.o" \
  -ldl -lpthread -o "$out/cuda_runtime_no_driver"

cat >"$out/run.sh" <<RUN
#!/bin/sh
# Runs every check; exits 1 if any fails. With an NVIDIA GPU and driver
# each prints PASS; without, each prints the runtime's one-line reason.
cd "\$(dirname "\$0")" || exit 2
status=0
for check in $checks; do
  echo "== \$check"
  ./\$check || { echo "== \$check failed (\$?)"; status=1; }
done
echo "== \$([ \$status -eq 0 ] && echo 'all passed' || echo 'some failed')"
exit \$status
RUN
chmod +x "$out/run.sh"
