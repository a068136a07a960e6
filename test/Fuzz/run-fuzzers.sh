#!/usr/bin/env bash
# Runs TensorLang's libFuzzer harnesses, each for SECONDS, from corpora
# seeded with the test suite's inputs. Needs a build configured with
# -DTENSORLANG_ENABLE_FUZZ=ON (see docs/robustness.md).
#   run-fuzzers.sh BUILD_DIR SECONDS [Frontend|IR|Npy|Run ...]
# Crashes, hangs and sanitizer reports stop the run (exit 1) and leave the
# input in BUILD_DIR/fuzz-artifacts/.
set -uo pipefail
build="$(cd "$1" && pwd)"; seconds="$2"; shift 2
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(Frontend IR Npy Run)
src="$(cd "$(dirname "$0")/../.." && pwd)"
corpora="$build/fuzz-corpus"; artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

seed() { # harness directory
  local harness="$1" dir="$2"
  mkdir -p "$dir"
  case "$harness" in
    Frontend|Run)
      cp "$src"/examples/*.tl "$src"/test/Frontend/*.tl "$dir"/ 2>/dev/null
      cp "$src"/test/Frontend/CFDlang/*.cfd "$dir"/ 2>/dev/null
      # Inputs that once failed a harness (regression seeds).
      cp "$src"/test/Fuzz/regressions/*.tl "$dir"/ 2>/dev/null
      # The cases of syntax-errors.test, one file each.
      awk -v dir="$dir" '/^#--- /{f=dir "/syntax-" $2; next} f{print > f}' \
        "$src/test/Frontend/syntax-errors.test" ;;
    IR)
      for file in "$src"/test/Dialect/TL/*.mlir "$src"/test/Conversion/TLToLinalg/*.mlir; do
        awk -v dir="$dir" -v base="$(basename "$file" .mlir)" \
          'BEGIN{n=0} /^\/\/ -----/{n++; next} {print > (dir "/" base "-" n ".mlir")}' "$file"
      done ;;
    Npy)
      for kind in good v2 v3 f4 scalar nan inf shape3 bad-magic bad-version short \
                  truncated-header truncated-data trailing-data lying-shape huge-shape unaligned \
                  fortran fortran-unaligned fortran-empty-huge int32 big-endian malformed extra-key; do
        /usr/bin/python3 "$src/test/Tools/tl-run/Inputs/make_npy.py" "$kind" "$dir/$kind.npy"
      done ;;
  esac
}

status=0
total=0
for harness in "${harnesses[@]}"; do
  name="tensorlang-fuzz-$(echo "$harness" | tr 'A-Z' 'a-z')"
  corpus="$corpora/$harness"
  seed "$harness" "$corpus"
  log="$build/fuzz-$harness.log"
  "$build/bin/$name" "$corpus" -dict="$src/test/Fuzz/tl.dict" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$harness-" > "$log" 2>&1
  result=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  runs=${runs:-0}
  total=$((total + runs))
  if [ $result -eq 0 ]; then
    echo "fuzz $harness: $runs executions in ${seconds}s, no crash, hang or sanitizer report"
  else
    echo "fuzz $harness: FAILED after $runs executions; see $log and $artifacts"
    tail -30 "$log"
    status=1
  fi
done
echo "fuzz total: $total executions"
exit $status
