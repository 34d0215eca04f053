#!/usr/bin/env bash
# integration.prometheus-rules: promtool (Debian's prometheus package) checks the
# shipped alert rules and runs their unit tests (rocm-doctor.rules.test.yml); every
# alert of the rules file must have a test in which it fires and a healthy series
# that stays quiet.
# Usage: prometheus_rules_test.sh SOURCE_DIR
set -euo pipefail
IT_NAME=prometheus-rules
source "$(dirname "$0")/lib.sh"

source_dir=$1
rules=$source_dir/packaging/prometheus/rocm-doctor.rules.yml
unit_tests=$source_dir/tests/integration/rocm-doctor.rules.test.yml
it_require promtool python3
python3 -c 'import yaml' 2>/dev/null || it_fail "python3 cannot import yaml (Debian package python3-yaml, in packaging/test-deps.txt)"

promtool check rules "$rules" || it_fail "promtool check rules rejects $rules"
promtool test rules "$unit_tests" || it_fail "promtool test rules: a unit test of $rules failed"

python3 - "$rules" "$unit_tests" <<'PY' || it_fail "an alert has no unit test that makes it fire"
import sys, yaml
rules = yaml.safe_load(open(sys.argv[1]))
tests = yaml.safe_load(open(sys.argv[2]))
alerts = [rule["alert"] for group in rules["groups"] for rule in group["rules"] if "alert" in rule]
fired = {}    # alert -> the instances or groups it fired for
quiet = set() # alerts some test series exist for that do not fire
for test in tests["tests"]:
    for case in test.get("alert_rule_test", []):
        if case["exp_alerts"]:
            fired.setdefault(case["alertname"], []).extend(case["exp_alerts"])
    # A test fires an alert for fewer label sets than it has input series: the others are the healthy ones.
    for case in test.get("alert_rule_test", []):
        if len(case["exp_alerts"]) < len(test["input_series"]):
            quiet.add(case["alertname"])
missing = [a for a in alerts if a not in fired]
unhealthy = [a for a in alerts if a not in quiet]
for a in missing: print(f"{a}: no unit test in which it fires", file=sys.stderr)
for a in unhealthy: print(f"{a}: no unit test with a healthy series that stays quiet", file=sys.stderr)
for a in alerts:
    for alert in fired.get(a, []):
        labels = alert.get("exp_labels", {})
        if "severity" not in labels: print(f"{a}: fires without a severity label", file=sys.stderr); missing.append(a)
        if not alert.get("exp_annotations", {}).get("summary"): print(f"{a}: fires without a summary", file=sys.stderr); missing.append(a)
print(f"{len(alerts)} alerts, each fires in a unit test and stays quiet on a healthy series: {', '.join(alerts)}", file=sys.stderr)
sys.exit(1 if missing or unhealthy else 0)
PY
echo "PASS [$IT_NAME] promtool check rules and test rules"
