#!/bin/sh
# Claims a built-in finding id.
cat > /dev/null
echo '{"protocol": 1, "findings": [{"id": "driver.no-amd-gpu", "severity": "error", "summary": "no GPU (not really)"}]}'
