#!/usr/bin/env python3
"""integration.kubernetes-manifests: packaging/kubernetes/*.yaml parse as YAML, and
what node-problem-detector and node_exporter rely on holds for the real binary:
the NPD rule's exact arguments give exit 0 (OK), 1 (NonOK) or 2 (Unknown) and one
ASCII line within the config's max_output_length; the DaemonSet writes the textfile
where its hostPath volume puts it, as a non-root user, with options the doctor has.

Usage: kubernetes_manifests_test.py SOURCE_DIR ROCM_DOCTOR
"""
import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

try:
    import yaml
except ImportError:
    sys.exit("FAIL: python3 cannot import yaml (Debian package python3-yaml, in packaging/test-deps.txt)")

source, doctor = Path(sys.argv[1]), sys.argv[2]
scenarios = source / "tests" / "scenarios"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def seconds(duration):  # "60s", "10m" -> seconds
    match = re.fullmatch(r"(\d+)(s|m|h)", duration)
    check(match is not None, f"duration {duration!r} is not <n>s, <n>m or <n>h")
    return int(match.group(1)) * {"s": 1, "m": 60, "h": 3600}[match.group(2)] if match else 0


# --- node-problem-detector config ----------------------------------------------
npd_docs = list(yaml.safe_load_all((source / "packaging/kubernetes/node-problem-detector-config.yaml").read_text()))
check(len(npd_docs) == 1 and npd_docs[0]["kind"] == "ConfigMap", "the NPD file is one ConfigMap")
monitor = json.loads(npd_docs[0]["data"]["rocm-doctor-monitor.json"])
check(monitor["plugin"] == "custom", "NPD plugin is 'custom'")
config = monitor["pluginConfig"]
max_output = config["max_output_length"]
check(max_output == 80, f"max_output_length is {max_output}, the doctor cuts its npd line at 80")
interval, plugin_timeout = seconds(config["invoke_interval"]), seconds(config["timeout"])
check(plugin_timeout < interval, "the plugin timeout is shorter than the invoke interval")
condition_types = {c["type"] for c in monitor["conditions"]}
check(monitor["rules"], "the monitor has a rule")
for rule in monitor["rules"]:
    check(rule["condition"] in condition_types, f"rule condition {rule['condition']} is declared in conditions")
    check(rule["path"] == "/usr/bin/rocm-doctor", "the rule runs the packaged /usr/bin/rocm-doctor")
    args = rule["args"]
    check(args[args.index("--format") + 1] == "npd", "the rule asks for --format npd")
    rule_timeout = seconds(rule.get("timeout", config["timeout"]))
    # The exact arguments, on a broken, a healthy and a hostile node.
    cases = {"nvidia-only": 1, "ubuntu2204-rx7900xtx-healthy": 0, "access-hostile-user-name": 1,
             "gpu-mi300x-x8": 1, "probe-crash-and-hang": None}
    for scenario, expected in cases.items():
        started = time.monotonic()
        run = subprocess.run([doctor, *args, "--replay", str(scenarios / scenario)], capture_output=True,
                             timeout=rule_timeout)
        took = time.monotonic() - started
        out = run.stdout
        check(run.returncode in (0, 1, 2), f"{scenario}: exit {run.returncode} is not an NPD status (0, 1, 2)")
        if expected is not None:
            check(run.returncode == expected, f"{scenario}: exit {run.returncode}, expected {expected}")
        check(out.endswith(b"\n") and out.count(b"\n") == 1, f"{scenario}: stdout is not one line: {out!r}")
        line = out.rstrip(b"\n")
        check(len(line) <= max_output, f"{scenario}: {len(line)} bytes > max_output_length {max_output}")
        check(all(0x20 <= b < 0x7F for b in line), f"{scenario}: the line is not printable ASCII: {line!r}")
        check(took < rule_timeout, f"{scenario}: took {took:.1f}s, the rule allows {rule_timeout}s")
        print(f"npd {scenario}: exit {run.returncode}, {len(line)} bytes, {took:.2f}s: {line.decode()}", file=sys.stderr)

# --- DaemonSet -----------------------------------------------------------------------
ds_docs = list(yaml.safe_load_all((source / "packaging/kubernetes/daemonset.yaml").read_text()))
check(len(ds_docs) == 1, "daemonset.yaml is one document")
ds = ds_docs[0]
check(ds["apiVersion"] == "apps/v1" and ds["kind"] == "DaemonSet", "a DaemonSet of apps/v1")
pod = ds["spec"]["template"]["spec"]
check(ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items(),
      "the selector matches the pod template's labels")
volumes = {v["name"]: v for v in pod["volumes"]}
help_text = subprocess.run([doctor, "--help"], capture_output=True, text=True).stdout
for container in pod["containers"]:
    security = container["securityContext"]
    check(security.get("runAsUser", 0) != 0, "the doctor does not run as root")
    check(security.get("readOnlyRootFilesystem") is True, "read-only root file system")
    check(security.get("allowPrivilegeEscalation") is False, "no privilege escalation")
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    script = " ".join(container.get("args", []))
    words = shlex.split(script.replace("\\\n", " "))
    for word in words:
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            check(re.search(rf"(^|[\s,]){re.escape(option)}\b", help_text) is not None,
                  f"the DaemonSet passes {option}, which rocm-doctor --help does not list")
    outputs = [words[i + 1] for i, w in enumerate(words) if w == "--output"]
    prometheus = [o.split("=", 1)[1] for o in outputs if o.startswith("prometheus=")]
    check(len(prometheus) == 1, "the DaemonSet writes one prometheus file")
    for path in prometheus:
        folder = str(Path(path).parent)
        check(folder in mounts, f"{path}: its folder {folder} is a volume mount")
        host = volumes.get(mounts.get(folder, ""), {}).get("hostPath", {}).get("path")
        check(host == "/var/lib/node_exporter/textfile",
              f"{folder} is the host's {host}, not node_exporter's textfile folder /var/lib/node_exporter/textfile")
        check(Path(path).suffix == ".prom", "the textfile collector reads only *.prom")

if failures:
    sys.exit(f"FAIL [kubernetes-manifests] {len(failures)} problem(s)")
print("PASS [kubernetes-manifests] NPD config and DaemonSet hold for the real binary")
