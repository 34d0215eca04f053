#!/usr/bin/env bash
# -DROCM_DOCTOR_STATIC=ON must give one binary that needs only libc-level
# libraries, so it can be dropped into any image.
set -euo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROCM_DOCTOR_STATIC=ON \
      -DROCM_DOCTOR_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/build" -j"$(nproc)" --target rocm-doctor >/dev/null
binary=$work/build/rocm-doctor
ldd "$binary"
unexpected=$(ldd "$binary" | awk '{print $1}' | grep -vE '^(linux-vdso\.so|libc\.so|libm\.so|ld-linux|/lib64/ld-linux|libdl\.so|libpthread\.so|librt\.so)' || true)
if [ -n "$unexpected" ]; then echo "FAIL: links more than libc: $unexpected" >&2; exit 1; fi
"$binary" --version
"$binary" --replay "$source_dir/tests/scenarios/os-wsl2-ubuntu2204" --only os >/dev/null
echo "PASS: static build links only libc-level libraries"
