#!/usr/bin/python3
"""Aborts (SIGABRT) after reading its input."""
import os
import sys

sys.stdin.read()
print("giving up", file=sys.stderr, flush=True)
os.abort()
