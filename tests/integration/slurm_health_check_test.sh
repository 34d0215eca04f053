#!/usr/bin/env bash
# integration.slurm-health-check: Debian's real munged, slurmctld and slurmd on
# 127.0.0.1 (throwaway key, spool and state folders; plugins that need no cgroup
# or systemd) run packaging/slurm/rocm-doctor-health as HealthCheckProgram.
#   1. a job step with two GPUs: the doctor inside `srun` sees the step's environment
#      and says it runs inside that job (report `job`, finding job.gpus);
#   2. the wrapper judges a broken snapshot: the node is DRAINED, reason = root cause;
#      then an MI300X node with uncorrectable RAS errors (a public incident's dmesg): the
#      reason becomes the RAS finding, naming the error and the GPU;
#   3. it judges a healthy one: the node returns to IDLE;
#   4. a node an administrator drained stays drained, whatever the doctor says.
# Usage: slurm_health_check_test.sh SOURCE_DIR ROCM_DOCTOR
set -euo pipefail
IT_NAME=slurm-health-check
source "$(dirname "$0")/lib.sh"

source_dir=$1
doctor=$2
wrapper=$source_dir/packaging/slurm/rocm-doctor-health
broken_snapshot=$source_dir/tests/scenarios/nvidia-only                  # driver.no-amd-gpu
healthy_snapshot=$source_dir/tests/scenarios/ubuntu2204-rx7900xtx-healthy
ras_snapshot=$source_dir/tests/scenarios/real-mi300x-ras-incident  # driver.ras-uncorrectable
it_require munged munge slurmctld slurmd scontrol sinfo srun setsid timeout flock python3
[ -x "$doctor" ] || it_fail "no rocm-doctor binary at $doctor"

w=$IT_WORK
chmod 755 "$w"
node=$(hostname -s)
user=$(id -un)
mkdir -p "$w/munge" "$w/state" "$w/spool" "$w/log" "$w/dev"
chmod 700 "$w/munge"
head -c 1024 /dev/urandom >"$w/munge/munge.key"
chmod 400 "$w/munge/munge.key"
socket=$w/munge/munge.socket

# --- munged ---------------------------------------------------------------
it_start munged "$w/log/munged.out" munged --foreground --force --key-file="$w/munge/munge.key" \
  --socket="$socket" --pid-file="$w/munge/munged.pid" --seed-file="$w/munge/munged.seed" \
  --log-file="$w/log/munged.log"
munge_works() { munge -n -S "$socket" | unmunge -S "$socket"; }
it_wait_for "munged answering on $socket" 30 munge_works

# --- Slurm configuration ----------------------------------------------------
ctld_port=$(it_free_port)
slurmd_port=$(it_free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(it_free_port); done
# Two "GPUs" for the gres plugin: it wants character devices whose names end in
# a number; links to /dev/null and /dev/zero are that, and need no root.
ln -s /dev/null "$w/dev/renderD128"
ln -s /dev/zero "$w/dev/renderD129"
cat >"$w/gres.conf" <<CONF
AutoDetect=off
NodeName=$node Name=gpu Type=mi300x File=$w/dev/renderD[128-129] Flags=amd_gpu_env
CONF
cat >"$w/slurm.conf" <<CONF
ClusterName=rocmdoctor
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$w/state
SlurmdSpoolDir=$w/spool
SlurmctldPidFile=$w/slurmctld.pid
SlurmdPidFile=$w/slurmd.pid
SlurmctldLogFile=$w/log/slurmctld.log
SlurmdLogFile=$w/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
ReturnToService=2
GresTypes=gpu
HealthCheckProgram=$w/health-check
HealthCheckInterval=1
HealthCheckNodeState=ANY
NodeName=$node NodeAddr=127.0.0.1 CPUs=1 Gres=gpu:mi300x:2 State=UNKNOWN
PartitionName=gpu Nodes=$node Default=YES MaxTime=5 State=UP
CONF
export SLURM_CONF=$w/slurm.conf

# The HealthCheckProgram: slurmd gives it no environment but SLURMD_NODENAME, and
# no arguments, so a site's shim names the config (here, one the test switches).
# It counts the runs that judged the node: slurmd starts one every second even while the
# last is still going (slow under a sanitizer), and such a run leaves the node to the one
# holding the wrapper's lock.
cat >"$w/health-check" <<SH
#!/bin/sh
said=\$("$wrapper" --config "$w/health.conf" 2>&1)
[ -z "\$said" ] || printf '%s\\n' "\$said" >>"$w/log/health.out"
case \$said in *"another run is still going"*) ;; *) echo judged >>"$w/health-runs" ;; esac
SH
chmod +x "$w/health-check"
IT_LOGS+=("$w/log/health.out")
config_for() {  # config_for SNAPSHOT FILE: a wrapper config that replays SNAPSHOT
  cat >"$2.new" <<CONF
export SLURM_CONF=$w/slurm.conf
ROCM_DOCTOR=$doctor
ROCM_DOCTOR_ARGS="--level quick --replay $1"
REPORT=$w/health.json
TIMEOUT=20
LOCK_FILE=$w/health.lock
CONF
  mv "$2.new" "$2"
}
judge() { config_for "$1" "$w/health.conf"; }  # what slurmd's health check judges from now on
runs() { [ -f "$w/health-runs" ] && wc -l <"$w/health-runs" || echo 0; }
# Waits until the health check judged the node at least twice more after now: runs take
# turns, so the second started after now and read the settings of now.
two_more_runs() {
  local target=$(($(runs) + 2))
  runs_reached() { [ "$(runs)" -ge "$target" ]; }
  it_wait_for "two more health-check runs" 60 runs_reached
}
state_of() { sinfo --noheader --nodes="$node" --format='%T' | head -n 1; }
reason_of() { scontrol show node "$node" | sed -n 's/^[[:space:]]*Reason=//p' | sed 's/ \[[^]]*\]$//'; }
state_is() { [ "$(state_of)" = "$1" ]; }

# --- slurmctld and slurmd -------------------------------------------------
judge "$healthy_snapshot"
it_start slurmctld "$w/log/slurmctld.out" slurmctld -D -i -f "$w/slurm.conf"
it_wait_for "slurmctld answering on 127.0.0.1:$ctld_port" 60 scontrol ping
it_start slurmd "$w/log/slurmd.out" slurmd -D -f "$w/slurm.conf" -N "$node"
it_wait_for "slurmd registered, node $node idle" 60 state_is idle
it_log "cluster up at $(it_elapsed) s: node $node $(state_of), health check every 1 s"

# --- 1. the doctor inside a job step with two GPUs --------------------------
step_env=$(timeout 60 srun --nodes=1 --ntasks=1 --gres=gpu:2 --time=1 env) || {
  it_show_logs
  it_fail "srun could not start a step on $node"
}
job_id=$(sed -n 's/^SLURM_JOB_ID=//p' <<<"$step_env")
rocr=$(sed -n 's/^ROCR_VISIBLE_DEVICES=//p' <<<"$step_env")
[ -n "$job_id" ] || it_fail "the step has no SLURM_JOB_ID"
[ "$rocr" = "0,1" ] || it_fail "Slurm gave the step ROCR_VISIBLE_DEVICES='$rocr', expected 0,1 (gres.conf Flags=amd_gpu_env)"
# One step runs both, so that the snapshot and the report belong to the same job. The
# report's exit code is the machine's verdict (no GPU here), not a failure of the step.
# shellcheck disable=SC2016 # the inner shell expands them
timeout 60 srun --nodes=1 --ntasks=1 --gres=gpu:2 --time=1 \
  sh -c '"$0" capture --level quick "$1" && { "$0" --level quick --json -o "json=$2" >/dev/null || true; }' \
  "$doctor" "$w/step-snapshot" "$w/step.json" >"$w/step-capture.out" 2>&1 ||
  { cat "$w/step-capture.out" >&2; it_fail "rocm-doctor capture failed inside the srun step"; }
python3 - "$w/step-snapshot/snapshot.json" "$w/step.json" <<'PY' || it_fail "the doctor inside the step did not see the step's environment"
import json, sys
snapshot = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
env = snapshot.get("env", {})
# The GPUs Slurm gave the step reach the doctor (what a HIP program in the step sees).
assert env.get("ROCR_VISIBLE_DEVICES") == "0,1", f"snapshot env: {env}"
assert report["schema"] == "rocm-doctor/report" and report["source"] == "live", report.get("source")
# It says it runs inside the job: the report's job section and the job.gpus finding name
# the job id the step has, and the GPUs Slurm allocated to the step.
job = report.get("job")
assert job and job["scheduler"] == "slurm", f"report job section: {job}"
assert job["id"] == env.get("SLURM_JOB_ID"), f"job id {job['id']} != step's {env.get('SLURM_JOB_ID')}"
assert len(job["allocated"]) == 2, f"allocated: {job['allocated']}"
findings = [f for check in report["checks"] for f in check["findings"]]
gpus = [f for f in findings if f["id"] == "job.gpus"]
assert gpus and f"Slurm job {job['id']}" in gpus[0]["summary"], f"job.gpus: {gpus}"
print("step: snapshot env ROCR_VISIBLE_DEVICES=0,1; report", report["summary"]["worst"], "-", gpus[0]["summary"],
      file=sys.stderr)
PY
it_log "1. step of job $job_id: the doctor saw ROCR_VISIBLE_DEVICES=$rocr"

# --- 2. broken: drained with the root cause as reason -----------------------
judge "$broken_snapshot"
drained() { case $(state_of) in drained | draining) return 0 ;; *) return 1 ;; esac; }
it_wait_for "node $node drained after the broken snapshot" 60 drained
reason=$(reason_of)
case $reason in
  "rocm-doctor: driver.no-amd-gpu: "*) ;;
  *) it_fail "drain reason is '$reason', expected 'rocm-doctor: driver.no-amd-gpu: ...'" ;;
esac
[ "${#reason}" -le 100 ] || it_fail "drain reason is ${#reason} bytes, more than REASON_MAX=100"
scontrol show node "$node" | grep -q 'State=[A-Z+]*DRAIN' || it_fail "scontrol does not show DRAIN: $(scontrol show node "$node")"
sinfo_reason=$(sinfo --list-reasons --noheader --format='%50E|%N')
case $sinfo_reason in
  "rocm-doctor: driver.no-amd-gpu: "*"|$node") ;;
  *) it_fail "sinfo -R shows '$sinfo_reason'" ;;
esac
[ "$(state_of)" = drained ] || it_fail "node is $(state_of), not drained"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["summary"]["worst"]=="error"' "$w/health.json" ||
  it_fail "the wrapper's REPORT is not the broken snapshot's JSON report"
it_log "2. broken snapshot: node $(state_of), reason '$reason'"

# --- 2b. RAS errors: the reason names them ------------------------------------
judge "$ras_snapshot"
ras_reason() { case $(reason_of) in "rocm-doctor: driver.ras-uncorrectable: "*) return 0 ;; *) return 1 ;; esac; }
it_wait_for "drain reason naming the RAS errors" 60 ras_reason
reason=$(reason_of)
case $reason in
  "rocm-doctor: driver.ras-uncorrectable: Uncorrectable RAS errors on GPU 0 (0000:1c:00"*) ;;
  *) it_fail "RAS drain reason '$reason' does not name the error and GPU 0" ;;
esac
[ "${#reason}" -le 100 ] || it_fail "RAS drain reason is ${#reason} bytes, more than REASON_MAX=100"
[ "$(state_of)" = drained ] || it_fail "RAS node is $(state_of), not drained"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["root_causes"][0]=="driver.ras-uncorrectable", r["root_causes"]' \
  "$w/health.json" || it_fail "the wrapper's REPORT does not rank the RAS finding first"
it_log "2b. RAS snapshot: node $(state_of), reason '$reason'"

# --- 3. healthy again: resumed ------------------------------------------------
judge "$healthy_snapshot"
it_wait_for "node $node idle again after the healthy snapshot" 60 state_is idle
[ -z "$(sinfo --list-reasons --noheader)" ] || it_fail "a reason is left: $(sinfo --list-reasons --noheader)"
it_log "3. healthy snapshot: node $(state_of)"

# --- 4. an administrator's drain is never undone, nor overwritten -------------
scontrol update nodename="$node" state=drain reason="maintenance: swap PSU"
two_more_runs
[ "$(reason_of)" = "maintenance: swap PSU" ] || it_fail "the healthy doctor touched an admin drain: '$(reason_of)'"
drained || it_fail "the wrapper resumed a node an administrator drained"
judge "$broken_snapshot"
two_more_runs
[ "$(reason_of)" = "maintenance: swap PSU" ] || it_fail "the broken doctor overwrote an admin's reason: '$(reason_of)'"
judge "$healthy_snapshot"  # before the resume: a broken verdict would drain it again
two_more_runs              # (so would a run still going with the broken settings)
scontrol update nodename="$node" state=resume
it_wait_for "node $node idle after the administrator's resume" 60 state_is idle
it_log "4. admin drain left alone by the healthy and the broken doctor"

# --- NHC mode: no Slurm call, the verdict in the exit code --------------------
# (configs of its own: slurmd keeps running the health check on health.conf)
config_for "$broken_snapshot" "$w/nhc-broken.conf"
config_for "$healthy_snapshot" "$w/nhc-healthy.conf"
set +e
nhc_line=$(sh "$wrapper" --nhc --config "$w/nhc-broken.conf")
nhc_status=$?
set -e
[ "$nhc_status" -eq 1 ] || it_fail "--nhc on a broken node exits $nhc_status, expected 1"
case $nhc_line in "rocm-doctor: driver.no-amd-gpu: "*) ;; *) it_fail "--nhc printed '$nhc_line'" ;; esac
sh "$wrapper" --nhc --config "$w/nhc-healthy.conf" || it_fail "--nhc on a healthy node did not exit 0"
! drained || it_fail "--nhc changed the node: $(state_of)"

# --- a run that finds another going changes nothing --------------------------
sed "s|^LOCK_FILE=.*|LOCK_FILE=$w/manual.lock|" "$w/nhc-broken.conf" >"$w/manual-broken.conf"
flock "$w/manual.lock" sh "$wrapper" --config "$w/manual-broken.conf" 2>"$w/locked.err" ||
  it_fail "the wrapper exited non-zero behind the lock"
grep -q "another run is still going" "$w/locked.err" || it_fail "no log line behind the lock: $(cat "$w/locked.err")"
! drained || it_fail "a run behind the lock drained the node: $(state_of), '$(reason_of)'"

# --- the wrapper exits 0 even when the doctor cannot run ----------------------
cat >"$w/missing.conf" <<CONF
export SLURM_CONF=$w/slurm.conf
ROCM_DOCTOR=$w/no-such-doctor
LOCK_FILE=$w/manual.lock
CONF
sh "$wrapper" --config "$w/missing.conf" 2>"$w/missing.err" || it_fail "the wrapper exited non-zero without a doctor"
grep -q "rocm-doctor failed" "$w/missing.err" || it_fail "no log line for a missing doctor: $(cat "$w/missing.err")"
! drained || it_fail "a failed doctor drained the node: $(state_of), '$(reason_of)'"
echo "PASS [$IT_NAME] drained with the root cause (RAS errors named), resumed when clean, admin drains kept, step environment seen"
