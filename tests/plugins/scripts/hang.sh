#!/bin/sh
# Never answers; leaves a background child behind too. Records both pids so
# the test can prove the whole process group was killed.
if [ -n "${PLUGIN_TEST_MARKERS:-}" ]; then
  sleep 61 &
  echo "$$ $!" > "$PLUGIN_TEST_MARKERS/hang.sh.pids"
fi
sleep 60
