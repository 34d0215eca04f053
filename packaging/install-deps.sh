#!/bin/sh
# Installs the Debian packages rocm-doctor needs: build-deps.txt, plus
# test-deps.txt with --test. Runs apt-get only when something is missing.
set -eu
here=$(dirname "$0")
lists="$here/build-deps.txt"
[ "${1:-}" = "--test" ] && lists="$lists $here/test-deps.txt"
wanted=$(cat $lists | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
missing=""
for package in $wanted; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "Installing:$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
