#!/usr/bin/env bash
# integration.fix-apply: `rocm-doctor fix --yes` applies real fixes inside a
# throwaway sandbox, and each one is checked to have worked.
#
# The sandbox is a private mount namespace (unshare(1)) in which /etc is a copy,
# /dev a tmpfs with a test /dev/kfd and render node, /opt a folder holding a
# ROCm 6.2.4 layout whose lib folder no loader path names, and the home folder
# of a test user (created in the copied /etc) lives in the sandbox. Nothing
# outside changes: the script fingerprints what the fixes touch before and after.
#
# Covered: the group membership (access.group-missing, through passwordless
# sudo), the new-login detection after it (access.relogin-required, "takes
# effect after login", then access.ok in a new login), the loader path
# (rocm.lib-not-found: ld.so.conf.d entry + ldconfig, verified) and an
# environment variable in the profile (rocm.bin-not-on-path: PATH in ~/.profile).
#
# Usage: fix_apply_test.sh DOCTOR FAKE_RUNTIME_DIR
set -euo pipefail

doctor=$(realpath "$1")
fake_runtime=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
scenario="$here/../scenarios/lib-not-found/root"

fail() {
  echo "integration.fix-apply: FAIL: $*" >&2
  exit 1
}

if [ "${1:-}" != "--inside" ]; then
  [ "$(id -u)" -eq 0 ] || fail "needs root: it makes a mount namespace and a test user (README line 2 runs as root)"
  for tool in unshare setpriv useradd groupadd usermod ldconfig sudo mknod; do
    command -v "$tool" >/dev/null || fail "$tool is missing (packaging/test-deps.txt)"
  done
  sandbox=$(mktemp -d /tmp/rocm-doctor-fix-apply.XXXXXX)
  chmod 0755 "$sandbox"
  trap 'rm -rf "$sandbox"' EXIT
  # Outside state the fixes would change if they escaped: accounts, sudoers, the
  # loader's configuration and cache, /opt, the device nodes, root's profile.
  fingerprint() {
    {
      cat /etc/passwd /etc/group /etc/shadow /etc/gshadow /etc/ld.so.cache 2>/dev/null
      ls -la /etc/sudoers.d /etc/ld.so.conf.d /opt /dev/dri 2>&1
      cat /etc/ld.so.conf.d/* "$HOME/.profile" 2>/dev/null
      ls -la /dev/kfd 2>&1
    } | sha256sum
  }
  before=$(fingerprint)
  cp -a "$doctor" "$sandbox/rocm-doctor"
  cp -a "$fake_runtime" "$sandbox/fake_runtime"
  cp -a "$scenario/opt" "$sandbox/opt"
  chmod -R a+rX "$sandbox"
  start=$(date +%s)
  status=0
  timeout 120 unshare --mount --propagation private -- bash "$0" --inside "$sandbox" || status=$?
  after=$(fingerprint)
  [ "$before" = "$after" ] || fail "something outside the sandbox changed (accounts, sudoers, loader, /opt, /dev)"
  [ "$status" -eq 0 ] || fail "the sandboxed run failed (exit $status)"
  echo "integration.fix-apply: passed in $(($(date +%s) - start)) s"
  exit 0
fi

# ---- inside the mount namespace ----
sandbox=$2
doctor="$sandbox/rocm-doctor"

# /etc: a private copy, so users, groups, sudoers and the loader cache change only here.
cp -a /etc "$sandbox/etc"
mount --bind "$sandbox/etc" /etc
# /dev: a tmpfs with what programs need, a test /dev/kfd and render node (the
# null device's numbers, so opening them works) owned by the test render group.
mkdir "$sandbox/dev"
mount -t tmpfs -o mode=0755 sandbox-dev /dev
mknod -m 0666 /dev/null c 1 3
mknod -m 0666 /dev/zero c 1 5
mknod -m 0666 /dev/urandom c 1 9
ln -s /proc/self/fd /dev/fd
groupadd --gid 4242 rdfix-render
mknod -m 0660 /dev/kfd c 1 3
mkdir /dev/dri
mknod -m 0660 /dev/dri/renderD128 c 1 3
chgrp rdfix-render /dev/kfd /dev/dri/renderD128
# /opt: ROCm 6.2.4 in /opt/rocm-6.2.4 (files of the lib-not-found scenario, the
# test suite's fake HIP runtime as its real ELF library), its lib folder in no loader path.
mount --bind "$sandbox/opt" /opt
rm -f /opt/rocm && ln -s /opt/rocm-6.2.4 /opt/rocm
cp "$sandbox/fake_runtime/libamdhip64.so.6.2.41133" /opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204
rm -f /etc/ld.so.conf.d/rocm.conf /etc/ld.so.conf.d/*rocm*
ldconfig
# The test user: a home in the sandbox, a login shell whose profile is ~/.profile, passwordless sudo.
useradd --create-home --home-dir "$sandbox/home/rdfix" --shell /bin/sh --user-group rdfix
echo 'rdfix ALL=(ALL:ALL) NOPASSWD: ALL' >/etc/sudoers.d/rdfix
chmod 0440 /etc/sudoers.d/rdfix

as_user() {
  setpriv --reuid=rdfix --regid=rdfix --init-groups \
    env -i HOME="$sandbox/home/rdfix" USER=rdfix LOGNAME=rdfix PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin "$@"
}
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# Before: the user is missing from the render group and ROCm's lib folder is in no loader path.
as_user "$doctor" --only access,rocm-install --format json -o "$sandbox/before.json" || true
before_ids=$(json_field "$sandbox/before.json" "' '.join(f['id'] for c in d['checks'] for f in c['findings'])")
echo "before: $before_ids"
for id in access.group-missing rocm.lib-not-found rocm.bin-not-on-path; do
  case " $before_ids " in *" $id "*) ;; *) fail "the sandbox does not show $id before the fix: $before_ids" ;; esac
done

# Apply. Off a terminal, --yes is the consent.
rc=0
as_user "$doctor" fix --yes --only access,rocm-install access.group-missing rocm.lib-not-found rocm.bin-not-on-path \
  -o "json=$sandbox/fix.json" </dev/null 2>"$sandbox/fix.err" || rc=$?
cat "$sandbox/fix.err" >&2
[ "$rc" -eq 0 ] || fail "fix --yes exited $rc"

outcome() { json_field "$sandbox/fix.json" "[s['outcome'] for s in d['fix_log']['steps'] if s['finding']=='$1'][0]"; }
[ "$(outcome access.group-missing)" = takes-effect-after-login ] || fail "group fix: $(outcome access.group-missing)"
[ "$(outcome rocm.lib-not-found)" = verified ] || fail "loader fix: $(outcome rocm.lib-not-found)"
bin_outcome=$(outcome rocm.bin-not-on-path)
[ "$bin_outcome" = takes-effect-after-login ] || [ "$bin_outcome" = verified ] || fail "PATH fix: $bin_outcome"

# Each fix worked: the group file, the loader, the profile.
getent group rdfix-render | grep -qw rdfix || fail "rdfix is not in rdfix-render after the fix"
grep -rqs '/opt/rocm' /etc/ld.so.conf.d/ || fail "no loader entry for /opt/rocm"
ldconfig -p | grep -q 'libamdhip64.so.6 ' || fail "the loader cache does not list libamdhip64.so.6"
grep -q '/opt/rocm' "$sandbox/home/rdfix/.profile" || fail "~/.profile does not put ROCm's bin folder on PATH"
# The fix_log names the commands exactly as run, and stdout stayed empty (the report went to the file).
json_field "$sandbox/fix.json" "all(c.get('ran', True) for s in d['fix_log']['steps'] for c in s['commands'] if c['kind']=='changes')" |
  grep -qx True || fail "a changing command of an applied fix did not run"

# A new login sees the group and reads ~/.profile: access is fine now, HIP is
# found by the loader, and ROCm's tools are on PATH.
setpriv --reuid=rdfix --regid=rdfix --init-groups env -i HOME="$sandbox/home/rdfix" USER=rdfix LOGNAME=rdfix \
  PATH=/usr/bin:/bin sh -c '. "$HOME/.profile"; exec "$0" --only access,rocm-install --format json -o "$1"' \
  "$doctor" "$sandbox/after.json" || true
after_ids=$(json_field "$sandbox/after.json" "' '.join(f['id'] for c in d['checks'] for f in c['findings'] if f['severity'] in ('warning','error'))")
[ -z "$after_ids" ] || fail "after a new login these remain: $after_ids"
echo "after a new login: no warning or error"
