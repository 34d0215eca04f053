#!/bin/sh
# A well-behaved site plugin in shell (protocol 1): reads the facts, answers
# with one warning that carries a fix.
set -eu
[ -n "${PLUGIN_TEST_MARKERS:-}" ] && : > "$PLUGIN_TEST_MARKERS/scratch.sh.ran"
facts=$(cat)
case "$facts" in
  *'"protocol":1'*) ;;
  *) echo "no protocol 1 input" >&2; exit 2 ;;
esac
cat <<'JSON'
{"protocol": 1,
 "findings": [
  {"id": "site.scratch.scratch-full", "severity": "warning",
   "summary": "/scratch is 97% full",
   "detail": "Jobs write their MIOpen caches to /scratch.",
   "evidence": [{"source": "df /scratch", "value": "97%"}],
   "fix": [{"description": "Clean old job folders",
            "commands": ["sudo find /scratch -maxdepth 1 -mtime +30 -exec rm -rf {} +"],
            "needs_root": true}]}
 ]}
JSON
