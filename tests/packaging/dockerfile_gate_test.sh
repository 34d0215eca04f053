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
# Policies the image installs in /etc/rocm-doctor/policy.d (copies of docs/examples/*.json in
# the build context). A replay never reads /etc, so they are given explicitly, as --policy.
policies=()
while read -r file; do
  example=$source_dir/docs/examples/$(basename "$file")
  [ -f "$example" ] || { echo "FAIL: the Dockerfile installs $file, which is not in docs/examples/" >&2; exit 1; }
  policies+=(--policy "$example")
done < <(sed -n 's|^COPY \([^ ]*\.json\) /etc/rocm-doctor/policy\.d/.*|\1|p' "$dockerfile")
for gate in "${gates[@]}"; do
  read -r -a args <<<"$gate"
  echo "+ rocm-doctor ${args[*]} ${policies[*]} --replay $scenario"
  "$binary" "${args[@]}" "${policies[@]}" --replay "$scenario"
  # The policy was judged, not silently left out.
  if [ "${#policies[@]}" -gt 0 ]; then
    report=$("$binary" "${args[@]}" "${policies[@]}" --replay "$scenario" --json)
    grep -q '"id": "policy.rocm"' <<<"$report" || { echo "FAIL: the gate's policy was not judged" >&2; exit 1; }
  fi
done
echo "PASS: ${#gates[@]} gate line(s) pass on the image snapshot, with $((${#policies[@]} / 2)) policy file(s)"
