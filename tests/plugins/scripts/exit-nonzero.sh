#!/bin/sh
# A valid answer, but exit status 3: the doctor does not believe it.
cat > /dev/null
echo '{"protocol": 1, "findings": [{"id": "site.exit-nonzero.x", "severity": "ok", "summary": "fine"}]}'
echo "license server unreachable" >&2
exit 3
