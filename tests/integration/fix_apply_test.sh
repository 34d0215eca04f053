#!/usr/bin/env bash
# integration.fix-apply: `rocm-doctor fix --yes` applies real fixes inside a
# throwaway sandbox, and each one is checked to have worked.
#
# The sandbox is a temporary root inside a private mount namespace (unshare(1)):
# /usr bound read-only, /etc a copy, /dev a tmpfs with a test /dev/kfd and
# render node, /opt a ROCm 6.2.4 layout whose lib folder no loader path names,
# and a test user created in the copied /etc with its home in the sandbox. Nothing
# outside changes: the script fingerprints what the fixes touch before and after.
#
# Covered: the group membership (access.group-missing, through passwordless
# sudo), the new-login detection after it (access.relogin-required, "takes
# effect after login", then access.ok in a new login), the loader path
# (rocm.lib-not-found: ld.so.conf.d entry + ldconfig, verified) and an
# environment variable in the profile (rocm.bin-not-on-path: PATH in ~/.profile).
#
# Usage: fix_apply_test.sh DOCTOR FAKE_RUNTIME_DIR [LSAN_SUPPRESSIONS]
# (the third for a sanitizer build: the compiled-in path does not exist in the chroot)
set -euo pipefail

fail() {
  echo "integration.fix-apply: FAIL: $*" >&2
  exit 1
}

if [ "${1:-}" != "--inside" ]; then
  doctor=$(realpath "$1")
  fake_runtime=$(realpath "$2")
  suppressions=${3:-/dev/null}
  here=$(cd "$(dirname "$0")" && pwd)
  scenario="$here/../scenarios/lib-not-found/root"
  [ "$(id -u)" -eq 0 ] || fail "needs root: it makes a mount namespace and a test user (README line 2 runs as root)"
  for tool in unshare setpriv useradd groupadd usermod ldconfig sudo mknod; do
    command -v "$tool" >/dev/null || fail "$tool is missing (packaging/test-deps.txt)"
  done
  sandbox=$(mktemp -d /tmp/rocm-doctor-fix-apply.XXXXXX)
  chmod 0755 "$sandbox"
  # The mounts live only in the namespace; --one-file-system never follows one that leaked.
  trap 'rm -rf --one-file-system "$sandbox"' EXIT
  # Outside state the fixes would change if they escaped: accounts, sudoers, the
  # loader's configuration and cache, /opt, the device nodes, root's profile.
  fingerprint() {
    {
      cat /etc/passwd /etc/group /etc/shadow /etc/gshadow /etc/ld.so.cache 2>/dev/null || true
      ls -la /etc/sudoers.d /etc/ld.so.conf.d /opt /dev/dri 2>&1 || true
      cat /etc/ld.so.conf.d/* "$HOME/.profile" 2>/dev/null || true
      ls -la /dev/kfd 2>&1 || true
    } | sha256sum || true
  }
  before=$(fingerprint)
  cp -a "$doctor" "$sandbox/rocm-doctor"
  cp -a "$fake_runtime" "$sandbox/fake_runtime"
  cp -a "$scenario/opt" "$sandbox/opt"
  cp "$suppressions" "$sandbox/lsan.supp"
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
# A temporary root: /usr and the libraries bound read-only from this machine,
# /etc a copy, /dev, /run and /tmp fresh tmpfs, /opt the sandbox's ROCm, no
# /.dockerenv (so the machine CI runs on, a container itself, looks like a host).
sandbox=$2
root="$sandbox/root"
mkdir -p "$root"/{dev,proc,sys,tmp,run,usr,var/lib/dpkg,home,out}
cp -a /etc "$root/etc"
for top in usr var/lib/dpkg; do
  mount --bind "/$top" "$root/$top"
  mount -o remount,bind,ro "$root/$top"
done
for top in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$top" ]; then cp -P "/$top" "$root/$top"; elif [ -d "/$top" ]; then
    mkdir "$root/$top" && mount --bind "/$top" "$root/$top"
  fi
done
mount --bind /proc "$root/proc"
mount --bind /sys "$root/sys"
mount -t tmpfs -o mode=1777 sandbox-tmp "$root/tmp"
mount -t tmpfs -o mode=0755 sandbox-run "$root/run"
# /dev: what programs need, and a test /dev/kfd and render node (the null
# device's numbers, so opening them works) owned by the test render group.
mount -t tmpfs -o mode=0755 sandbox-dev "$root/dev"
mknod -m 0666 "$root/dev/null" c 1 3
mknod -m 0666 "$root/dev/zero" c 1 5
mknod -m 0666 "$root/dev/urandom" c 1 9
ln -s /proc/self/fd "$root/dev/fd"
mknod -m 0660 "$root/dev/kfd" c 1 3
mkdir "$root/dev/dri"
mknod -m 0660 "$root/dev/dri/renderD128" c 1 3
# /opt: ROCm 6.2.4 in /opt/rocm-6.2.4 (files of the lib-not-found scenario, the
# test suite's fake HIP runtime as its real ELF library), its lib folder in no loader path.
cp -a "$sandbox/opt" "$root/opt"
rm -f "$root/opt/rocm" && ln -s /opt/rocm-6.2.4 "$root/opt/rocm"
cp "$sandbox/fake_runtime/libamdhip64.so.6.2.41133" "$root/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204"
cp -a "$sandbox/rocm-doctor" "$root/rocm-doctor"
cp "$sandbox/lsan.supp" "$root/lsan.supp"
rm -f "$root"/etc/ld.so.conf.d/*rocm*
inside() { chroot "$root" "$@"; }
inside ldconfig
inside groupadd --gid 4242 rdfix-render
inside chgrp rdfix-render /dev/kfd /dev/dri/renderD128
# The test user: a home folder, a login shell whose profile is ~/.profile, passwordless sudo.
inside useradd --create-home --home-dir /home/rdfix --shell /bin/sh --user-group rdfix
echo 'rdfix ALL=(ALL:ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/rdfix"
chmod 0440 "$root/etc/sudoers.d/rdfix"
inside chown rdfix: /out
out="$root/out"  # the reports, written by the test user
doctor=/rocm-doctor
# The user's PATH holds sudo and not ROCm's tools: Debian's own rocminfo in
# /usr/bin (a test dependency) would otherwise hide /opt/rocm/bin's absence.
mkdir "$root/tools"
ln -s "$(command -v sudo)" "$root/tools/sudo"

as_user() {
  chroot "$root" setpriv --reuid=rdfix --regid=rdfix --init-groups \
    env -i HOME=/home/rdfix USER=rdfix LOGNAME=rdfix PATH=/tools LSAN_OPTIONS=suppressions=/lsan.supp "$@"
}
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# Before: the user is missing from the render group and ROCm's lib folder is in no loader path.
as_user "$doctor" --only access,rocm-install --format json -o /out/before.json || true
before_ids=$(json_field "$out/before.json" "' '.join(f['id'] for c in d['checks'] for f in c['findings'])")
echo "before: $before_ids"
for id in access.group-missing rocm.lib-not-found rocm.bin-not-on-path; do
  case " $before_ids " in *" $id "*) ;; *) fail "the sandbox does not show $id before the fix: $before_ids" ;; esac
done

# Apply. Off a terminal, --yes is the consent.
rc=0
as_user "$doctor" fix --yes --only access,rocm-install access.group-missing rocm.lib-not-found rocm.bin-not-on-path \
  -o json=/out/fix.json </dev/null 2>"$out/fix.err" || rc=$?
cat "$out/fix.err" >&2
[ "$rc" -eq 0 ] || fail "fix --yes exited $rc"

outcome() { json_field "$out/fix.json" "[s['outcome'] for s in d['fix_log']['steps'] if s['finding']=='$1'][0]"; }
[ "$(outcome access.group-missing)" = takes-effect-after-login ] || fail "group fix: $(outcome access.group-missing)"
[ "$(outcome rocm.lib-not-found)" = verified ] || fail "loader fix: $(outcome rocm.lib-not-found)"
[ "$(outcome rocm.bin-not-on-path)" = takes-effect-after-login ] || fail "PATH fix: $(outcome rocm.bin-not-on-path)"

# The group change needs a new login, and the re-run access check says so.
json_field "$out/fix.json" "any(f['id']=='access.relogin-required' for c in d['checks'] for f in c['findings'])" |
  grep -qx True || fail "after the group fix the doctor does not ask for a new login (access.relogin-required)"
grep -q 'access.relogin-required' "$out/fix.err" || fail "the before/after lines do not name access.relogin-required"

# Each fix worked: the group file, the loader, the profile.
inside getent group rdfix-render | grep -qw rdfix || fail "rdfix is not in rdfix-render after the fix"
grep -rqs '/opt/rocm' "$root/etc/ld.so.conf.d/" || fail "no loader entry for /opt/rocm"
inside ldconfig -p >"$out/ldconfig.txt"
grep -q 'libamdhip64.so.6 ' "$out/ldconfig.txt" || fail "the loader cache does not list libamdhip64.so.6"
grep -q '/opt/rocm' "$root/home/rdfix/.profile" || fail "~/.profile does not put ROCm's bin folder on PATH"
# The fix_log names the commands exactly as run, and stdout stayed empty (the report went to the file).
json_field "$out/fix.json" "all(c.get('ran', True) for s in d['fix_log']['steps'] for c in s['commands'] if c['kind']=='changes')" |
  grep -qx True || fail "a changing command of an applied fix did not run"

# A new login sees the group and reads ~/.profile: access is fine now, HIP is
# found by the loader, and ROCm's tools are on PATH.
chroot "$root" setpriv --reuid=rdfix --regid=rdfix --init-groups env -i HOME=/home/rdfix USER=rdfix LOGNAME=rdfix \
  LSAN_OPTIONS=suppressions=/lsan.supp PATH=/usr/bin:/bin sh -c '. "$HOME/.profile"; exec "$0" --only access,rocm-install --format json -o "$1"' \
  "$doctor" /out/after.json || true
after_ids=$(json_field "$out/after.json" "' '.join(f['id'] for c in d['checks'] for f in c['findings'])")
echo "after a new login: $after_ids"
for id in access.kfd-denied access.render-denied access.group-missing access.relogin-required rocm.lib-not-found \
  rocm.bin-not-on-path; do
  case " $after_ids " in *" $id "*) fail "$id is still there after a new login" ;; esac
done
case " $after_ids " in *" access.ok "*) ;; *) fail "no access.ok after a new login" ;; esac

# A fix that runs and changes nothing is a failure, never a success (issue 26). This
# machine's /etc/ld.so.conf no longer includes /etc/ld.so.conf.d: the loader fix still
# writes its file there and ldconfig exits 0, but the loader cannot find HIP any better.
rm -f "$root"/etc/ld.so.conf.d/*rocm*
grep -v 'ld.so.conf.d' "$root/etc/ld.so.conf" >"$root/etc/ld.so.conf.new" || true
mv "$root/etc/ld.so.conf.new" "$root/etc/ld.so.conf"
inside ldconfig
rc=0
as_user "$doctor" fix --yes --only rocm-install rocm.lib-not-found -o json=/out/unchanged.json </dev/null \
  2>"$out/unchanged.err" || rc=$?
cat "$out/unchanged.err" >&2
[ "$rc" -eq 4 ] || fail "a loader fix that changed nothing exited $rc, not 4"
[ "$(json_field "$out/unchanged.json" "[s['outcome'] for s in d['fix_log']['steps'] if s['finding']=='rocm.lib-not-found'][0]")" = unchanged ] ||
  fail "the loader fix that changed nothing is not 'unchanged'"
grep -q 'did not change anything' "$out/unchanged.err" || fail "the before/after lines do not say the fix changed nothing"
echo "a fix that changed nothing: exit 4, outcome unchanged"
