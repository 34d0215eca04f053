#!/usr/bin/python3
"""A well-behaved site plugin in Python (protocol 1): echoes facts it was given."""
import json
import os
import sys

if os.environ.get("PLUGIN_TEST_MARKERS"):
    open(os.path.join(os.environ["PLUGIN_TEST_MARKERS"], "facts.py.ran"), "w").close()
facts = json.load(sys.stdin)
name = facts["plugin"]["name"]
findings = [{
    "id": f"site.{name}.facts-seen",
    "severity": "info",
    "summary": f"protocol {facts['protocol']}, doctor {facts['doctor']['version']}, "
               f"{len(facts['gpus'])} GPUs, prefix {facts['plugin']['id_prefix']}",
    "evidence": [{"source": "stdin", "value": ",".join(sorted(facts))},
                 {"source": "environment", "value": ",".join(sorted(facts["environment"]))}],
}]
json.dump({"protocol": 1, "findings": findings}, sys.stdout)
