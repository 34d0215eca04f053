#!/bin/sh
# Dies of a segmentation fault, like a broken vendor tool.
[ -n "${PLUGIN_TEST_MARKERS:-}" ] && : > "$PLUGIN_TEST_MARKERS/crash.sh.ran"
echo "about to crash" >&2
kill -SEGV $$
