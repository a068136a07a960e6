#!/bin/sh
# Nsight Compute on bench/gpu.py's kernels, on the GPU machine (it has
# ncu; this machine has no GPU). Build the cases here first:
#   /usr/bin/python3 bench/gpu.py --make OUT --tccg-suite
#   sh bench/gpu-profile.sh OUT ab-ac-cb abcdef-gdab-efgc K5     # there
# Prints the speed-of-light, occupancy, warp-state and memory figures of
# the second launch of each case's kernels (the first is the warm-up);
# the whole reports go to $OUT (the device tool's output folder) or /tmp.
set -u
bundle=$1; shift
report=${OUT:-/tmp}
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "no ncu on this machine"; exit 1; }
for case in "$@"; do
  echo "== $case"
  timeout 120 "$NCU" --target-processes all -k regex:k_ --launch-skip 1 \
    --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    python3 "$bundle/gpu.py" --only "$case" --reps 2 --budget 20 \
    > "$report/ncu-$case.txt" 2>&1
  grep -E "Duration|Throughput|Registers Per|Occupancy|Block Limit|Warp Cycles|Hit Rate|Issue Slots|pipeline" \
    "$report/ncu-$case.txt" | head -30
done
