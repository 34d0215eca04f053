#!/usr/bin/env bash
# Builds the fuzz targets (when needed) and runs each one for SECONDS (default
# 25) on its committed corpus (fuzz/corpus/<target>) plus what earlier runs
# found (build-fuzz/corpus/<target>). Fails when any target crashes, leaks,
# times out or breaks a contract; the reproducer is left in build-fuzz/artifacts/.
#   fuzz/run.sh            # 25 s per target (CI runs fuzz/run.sh 20)
#   fuzz/run.sh 600        # a longer session
#   fuzz/run.sh 60 kfd_properties group_file   # some targets only
set -euo pipefail
seconds=${1:-25}
shift || true
cd "$(dirname "$0")/.."
build=build-fuzz

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset fuzz >/dev/null
fi
cmake --build --preset fuzz >/dev/null

if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < "$build/fuzz/targets.txt"; fi
mkdir -p "$build/artifacts"

# One target for SECONDS; its table row goes to $build/artifacts/<target>.row,
# and the row of a failed target says FAILED.
run_target() {
  local target=$1 seeds="fuzz/corpus/$1" found="$build/corpus/$1" log="$build/artifacts/$1.log" status=0
  mkdir -p "$found" "$seeds"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a leak or a blow-up.
  "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$found" "$seeds" >"$log" 2>&1 || status=$?
  local runs rate corpus result=ok
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  corpus=$(find "$found" "$seeds" -type f | wc -l)
  [ "$status" -eq 0 ] || result="FAILED (exit $status, log $log)"
  printf '%-20s %12s %10s %8s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "$corpus" "$result" >"$build/artifacts/$target.row"
}

# Each target is single-threaded: one per core at a time (FUZZ_JOBS to change),
# so every target still gets its SECONDS of a whole core and the stage takes
# 1/nproc of the time.
parallel=${FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  run_target "$target" &
done
wait
failed=()
printf '%-20s %12s %10s %8s  %s\n' target executions exec/s corpus result
for target in "${targets[@]}"; do
  cat "$build/artifacts/$target.row"
  grep -q FAILED "$build/artifacts/$target.row" && failed+=("$target")
done
if [ ${#failed[@]} -gt 0 ]; then
  for target in "${failed[@]}"; do
    echo "--- $target" >&2
    grep -m1 -A30 -E 'ERROR: |runtime error|fuzz contract broken|deadly signal' "$build/artifacts/$target.log" >&2 || tail -n 40 "$build/artifacts/$target.log" >&2
  done
  echo "fuzz/run.sh: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz/run.sh: ${#targets[@]} targets, ${seconds} s each, no crash"
