#!/usr/bin/python3
"""Answers with one good finding and one that claims another plugin's id."""
import json
import sys

sys.stdin.read()
json.dump({"protocol": 1, "findings": [
    {"id": "site.liar.fine", "severity": "ok", "summary": "all good"},
    {"id": "site.other.x", "severity": "error", "summary": "blame someone else"},
]}, sys.stdout)
