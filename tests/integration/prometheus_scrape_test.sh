#!/usr/bin/env bash
# integration.prometheus-scrape: Debian's real node_exporter (textfile collector)
# reads the doctor's `--output prometheus=` file from several snapshots without a
# collector error (duplicate series, HELP or TYPE mismatches, bad escaping), and a
# real Prometheus server scrapes it: the HTTP API answers rocm_doctor_worst_severity
# with the report's value and has loaded packaging/prometheus/rocm-doctor.rules.yml.
# Loopback only, throwaway storage.
# Usage: prometheus_scrape_test.sh SOURCE_DIR ROCM_DOCTOR
set -euo pipefail
IT_NAME=prometheus-scrape
source "$(dirname "$0")/lib.sh"

source_dir=$1
doctor=$2
scenarios=$source_dir/tests/scenarios
rules=$source_dir/packaging/prometheus/rocm-doctor.rules.yml
it_require prometheus-node-exporter prometheus setsid timeout python3
[ -x "$doctor" ] || it_fail "no rocm-doctor binary at $doctor"

w=$IT_WORK
mkdir -p "$w/textfile" "$w/tsdb"
exporter_port=$(it_free_port)
prometheus_port=$(it_free_port)
while [ "$prometheus_port" = "$exporter_port" ]; do prometheus_port=$(it_free_port); done

# GET URL: the body on stdout (python3, no curl needed).
http_get() {
  python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
}
metric_value() {  # metric_value METRICS_TEXT NAME{LABELS}: the sample's value
  awk -v name="$2" '$1 == name { print $2 }' <<<"$1"
}
worst_number() {  # the report's summary.worst as rocm_doctor_worst_severity's number
  python3 -c 'import json, sys; print({"ok": 0, "info": 1, "warning": 2, "error": 3}[json.load(open(sys.argv[1]))["summary"]["worst"]])' "$1"
}

it_start node_exporter "$w/node_exporter.log" prometheus-node-exporter \
  --web.listen-address="127.0.0.1:$exporter_port" --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$w/textfile"
it_wait_for "node_exporter serving 127.0.0.1:$exporter_port/metrics" 15 http_get "http://127.0.0.1:$exporter_port/metrics"

# --- node_exporter accepts the file of every kind of node -------------------------
# broken (no AMD GPU), healthy, eight MI300X, hostile label text, mixed releases, and a real
# 8 x MI300X node in CPX mode (63 partitions: partition series per physical GPU, none repeated).
for scenario in nvidia-only ubuntu2204-rx7900xtx-healthy gpu-mi300x-x8 access-hostile-user-name \
  env-arch-and-mixed-releases gpu-apu-plus-rx7900xtx real-mi300x-cpx-x8; do
  "$doctor" --replay "$scenarios/$scenario" --level quick --output "json=$w/$scenario.json" \
    --output "prometheus=$w/textfile/rocm-doctor.prom" >/dev/null 2>&1 || true
  [ -s "$w/textfile/rocm-doctor.prom" ] || it_fail "$scenario: the doctor wrote no prometheus file"
  metrics=$(http_get "http://127.0.0.1:$exporter_port/metrics") || it_fail "node_exporter stopped answering"
  error=$(metric_value "$metrics" node_textfile_scrape_error)
  if [ "$error" != 0 ]; then
    it_show_logs
    it_fail "$scenario: node_textfile_scrape_error is '$error': node_exporter rejected the doctor's file"
  fi
  expected=$(worst_number "$w/$scenario.json")
  got=$(metric_value "$metrics" rocm_doctor_worst_severity)
  [ "$got" = "$expected" ] || it_fail "$scenario: node_exporter serves rocm_doctor_worst_severity '$got', the report says $expected"
  grep -q '^rocm_doctor_info{' <<<"$metrics" || it_fail "$scenario: rocm_doctor_info missing from node_exporter's answer"
  if [ "$scenario" = real-mi300x-cpx-x8 ]; then
    partitioned=$(grep -c '^rocm_doctor_gpu_partition_info{.*compute_partition="CPX"' <<<"$metrics" || true)
    [ "$partitioned" = 8 ] || it_fail "$scenario: node_exporter serves $partitioned CPX rocm_doctor_gpu_partition_info series, not 8"
  fi
  it_log "$scenario: node_exporter accepted it, worst severity $got"
done
# Its log names every file it could not read (duplicate series, HELP mismatch, parse errors).
if grep -iE 'level=(error|warn)' "$w/node_exporter.log" | grep -v 'running as root' >&2; then
  it_fail "node_exporter logged the errors above for the doctor's files"
fi

# --- Prometheus scrapes it; the API returns the report's value --------------------
"$doctor" --replay "$scenarios/nvidia-only" --level quick --output "json=$w/scraped.json" \
  --output "prometheus=$w/textfile/rocm-doctor.prom" >/dev/null 2>&1 || true
expected=$(worst_number "$w/scraped.json")
cat >"$w/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$exporter_port"]
YAML
it_start prometheus "$w/prometheus.log" prometheus --config.file="$w/prometheus.yml" \
  --storage.tsdb.path="$w/tsdb" --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn
api="http://127.0.0.1:$prometheus_port/api/v1"
it_wait_for "Prometheus ready on 127.0.0.1:$prometheus_port" 60 http_get "http://127.0.0.1:$prometheus_port/-/ready"
query_value() {  # the single value of an instant query, or nothing
  http_get "$api/query?query=$1" | python3 -c '
import json, sys
answer = json.load(sys.stdin)
result = answer["data"]["result"] if answer.get("status") == "success" else []
print(result[0]["value"][1] if len(result) == 1 else "")'
}
scraped() { [ -n "$(query_value rocm_doctor_worst_severity)" ]; }
it_wait_for "Prometheus holding rocm_doctor_worst_severity" 60 scraped
got=$(query_value rocm_doctor_worst_severity)
[ "$got" = "$expected" ] || it_fail "Prometheus answers rocm_doctor_worst_severity=$got, the report says $expected"
[ "$(query_value 'up%7Bjob%3D%22node%22%7D')" = 1 ] || it_fail "the scrape target is not up"
[ "$(query_value node_textfile_scrape_error)" = 0 ] || it_fail "Prometheus sees node_textfile_scrape_error != 0"
[ "$(query_value rocm_doctor_gpus)" = 0 ] || it_fail "rocm_doctor_gpus of the NVIDIA-only node is not 0"
loaded=$(http_get "$api/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
print(" ".join(sorted(rule["name"] for group in groups for rule in group["rules"])))')
case $loaded in *RocmDoctorNodeBroken*RocmDoctorReportStale*) ;; *) it_fail "Prometheus did not load the shipped rules: '$loaded'" ;; esac
# The broken node's alert is pending (for: 15m), so the rule works on the scraped series.
pending() {
  http_get "$api/alerts" | python3 -c '
import json, sys
alerts = json.load(sys.stdin)["data"]["alerts"]
sys.exit(0 if any(a["labels"]["alertname"] == "RocmDoctorNodeBroken" for a in alerts) else 1)'
}
it_wait_for "RocmDoctorNodeBroken pending on the scraped broken node" 60 pending
if grep -iE 'level=error' "$w/prometheus.log" >&2; then it_fail "Prometheus logged the errors above"; fi
echo "PASS [$IT_NAME] node_exporter accepted every file; Prometheus scraped rocm_doctor_worst_severity=$got and loaded the rules"
