#!/usr/bin/env bash
# Docker is not available here (no engine), and hadolint is not in Debian, so
# the Dockerfile is checked by running its gate: every `RUN rocm-doctor ...`
# line is run against a replay of a realistic image snapshot, and must pass.
set -euo pipefail
source_dir=$1
binary=$2
dockerfile=$source_dir/packaging/docker/Dockerfile
scenario=$source_dir/tests/scenarios/image-rocm62-ci-gate

grep -q '^FROM ' "$dockerfile" || { echo "FAIL: no FROM line" >&2; exit 1; }
mapfile -t gates < <(sed -n 's/^RUN rocm-doctor //p' "$dockerfile")
[ "${#gates[@]}" -gt 0 ] || { echo "FAIL: the Dockerfile runs no rocm-doctor gate" >&2; exit 1; }
for gate in "${gates[@]}"; do
  read -r -a args <<<"$gate"
  echo "+ rocm-doctor ${args[*]} --replay $scenario"
  "$binary" "${args[@]}" --replay "$scenario"
done
echo "PASS: ${#gates[@]} gate line(s) pass on the image snapshot"
