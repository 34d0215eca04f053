#!/usr/bin/env bash
# build.git-commit: the commit a binary reports is read when it is built, not
# when CMake configured (cmake/GitCommit.cmake). In a throwaway git repository:
# a new commit changes the generated file; the same commit leaves it untouched
# (nothing recompiles); no git at all gives the fallback. Then the real binary
# names the source tree's HEAD.
set -euo pipefail
source_dir=$1 doctor=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "build.git-commit: $*" >&2; exit 1; }

generate() {  # $1 = folder to read the commit of
  cmake -DSOURCE_DIR="$1" -DTEMPLATE="$source_dir/src/git_commit.cpp.in" -DOUTPUT="$work/git_commit.cpp" \
        -DFALLBACK=no-git-here -P "$source_dir/cmake/GitCommit.cmake"
}
reported() { sed -n 's/.*return "\(.*\)";/\1/p' "$work/git_commit.cpp"; }

git init -q "$work/repo"
git_in() { git -C "$work/repo" -c user.name=t -c user.email=t@example.invalid "$@"; }
git_in commit -q --allow-empty -m one
generate "$work/repo"
[ "$(reported)" = "$(git_in rev-parse --short=12 HEAD)" ] || fail "first commit not reported: $(reported)"
touch -d '2000-01-01' "$work/git_commit.cpp"
generate "$work/repo"
[ "$(stat -c %Y "$work/git_commit.cpp")" = "$(date -d 2000-01-01 +%s)" ] || fail "same commit rewrote the file"
git_in commit -q --allow-empty -m two
generate "$work/repo"
[ "$(reported)" = "$(git_in rev-parse --short=12 HEAD)" ] || fail "second commit not reported: $(reported)"
mkdir "$work/tarball"
generate "$work/tarball"
[ "$(reported)" = "no-git-here" ] || fail "no git: expected the fallback, got $(reported)"

if head=$(git -C "$source_dir" rev-parse --short=12 HEAD 2>/dev/null); then
  "$doctor" --version | grep -q "commit $head" || fail "$("$doctor" --version) does not name HEAD $head"
fi
echo "build.git-commit: ok"
