#!/usr/bin/env bash
# Packages the build it is given (cpack, into a folder of its own), inspects the
# .deb with lintian, installs it, runs the installed binary (version, man page,
# completion, a replay), and removes it again. Needs root (dpkg -i), as CI has.
#   deb_package_test.sh SOURCE_DIR BUILD_DIR   (BUILD_DIR: a configured, built tree)
set -euo pipefail
source_dir=$1
build_dir=$2
scenario=$source_dir/tests/scenarios/os-wsl2-ubuntu2204
work=$(mktemp -d)
trap 'dpkg --purge rocm-doctor >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root for dpkg -i"; exit 0; fi
if dpkg-query -W -f='${Status}' rocm-doctor 2>/dev/null | grep -q "install ok installed"; then
  echo "FAIL: a rocm-doctor package is already installed; refusing to replace it" >&2; exit 1
fi

# The package of the build under test, not of a third compilation of the project.
[ -x "$build_dir/rocm-doctor" ] || { echo "FAIL: $build_dir holds no built rocm-doctor" >&2; exit 1; }
cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/package" >/dev/null
deb=$(ls "$work"/package/rocm-doctor_*_amd64.deb)

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
case "$depends" in *libfmt*) ;; *) echo "FAIL: Depends lacks libfmt" >&2; exit 1 ;; esac
case "$depends" in *rocm*|*hip*) echo "FAIL: Depends names ROCm, which is loaded at run time" >&2; exit 1 ;; esac
[ "$(dpkg-deb -f "$deb" Suggests)" = "rocminfo" ] || { echo "FAIL: Suggests is not rocminfo" >&2; exit 1; }

# The health check's settings are a conffile: dpkg keeps an admin's edits.
dpkg-deb -I "$deb" conffiles | grep -qx /etc/default/rocm-doctor-health \
  || { echo "FAIL: /etc/default/rocm-doctor-health is not a conffile" >&2; exit 1; }

# lintian: no errors or warnings (info/pedantic tags are allowed).
if lintian --allow-root --fail-on error,warning "$deb"; then echo "lintian: clean"; else exit 1; fi

dpkg -i "$deb" >/dev/null
for path in /usr/bin/rocm-doctor /usr/share/man/man1/rocm-doctor.1.gz \
            /usr/share/bash-completion/completions/rocm-doctor \
            /usr/share/zsh/vendor-completions/_rocm-doctor \
            /usr/share/fish/vendor_completions.d/rocm-doctor.fish \
            /usr/share/doc/rocm-doctor/copyright \
            /usr/sbin/rocm-doctor-health /usr/share/man/man8/rocm-doctor-health.8.gz \
            /etc/default/rocm-doctor-health /usr/share/rocm-doctor/prometheus/rocm-doctor.rules.yml; do
  [ -e "$path" ] || { echo "FAIL: $path not installed" >&2; exit 1; }
done
/usr/bin/rocm-doctor --version | grep -q "rocm-doctor 0\." || { echo "FAIL: --version" >&2; exit 1; }
/usr/bin/rocm-doctor --replay "$scenario" --only os --json | grep -q '"schema": "rocm-doctor/report"'
MANWIDTH=80 man -l /usr/share/man/man1/rocm-doctor.1.gz 2>/dev/null | grep -q "EXIT STATUS" \
  || { echo "FAIL: man page does not render" >&2; exit 1; }
bash -c 'source /usr/share/bash-completion/completions/rocm-doctor && complete -p rocm-doctor' >/dev/null
[ -x /usr/sbin/rocm-doctor-health ] || { echo "FAIL: rocm-doctor-health is not executable" >&2; exit 1; }
/usr/sbin/rocm-doctor-health --help | grep -q HealthCheckProgram || { echo "FAIL: rocm-doctor-health --help" >&2; exit 1; }
promtool check rules /usr/share/rocm-doctor/prometheus/rocm-doctor.rules.yml >/dev/null \
  || { echo "FAIL: the installed alert rules do not pass promtool check rules" >&2; exit 1; }

dpkg -r rocm-doctor >/dev/null
[ ! -e /usr/bin/rocm-doctor ] || { echo "FAIL: binary left after dpkg -r" >&2; exit 1; }
[ -e /etc/default/rocm-doctor-health ] || { echo "FAIL: dpkg -r removed the conffile" >&2; exit 1; }
dpkg --purge rocm-doctor >/dev/null
[ ! -e /etc/default/rocm-doctor-health ] || { echo "FAIL: conffile left after dpkg --purge" >&2; exit 1; }
echo "PASS: .deb builds, passes lintian, installs, runs and removes cleanly"

# The .rpm from the same configuration carries the same files.
cpack --config "$build_dir/CPackConfig.cmake" -G RPM -B "$work/package" >/dev/null
rpm_files=$(rpm -qlp "$work"/package/rocm-doctor-*.x86_64.rpm 2>/dev/null)
for path in /usr/bin/rocm-doctor /usr/share/man/man1/rocm-doctor.1.gz /usr/share/bash-completion/completions/rocm-doctor \
            /usr/sbin/rocm-doctor-health /etc/default/rocm-doctor-health /usr/share/rocm-doctor/prometheus/rocm-doctor.rules.yml; do
  grep -qx "$path" <<<"$rpm_files" || { echo "FAIL: $path missing from the .rpm" >&2; exit 1; }
done
echo "PASS: .rpm carries the binary, man page and completions"
