#!/usr/bin/python3
"""Prints 2 MiB: more than a plugin may."""
import sys

sys.stdout.write('{"protocol": 1, "findings": [], "padding": "' + "x" * (2 * 1024 * 1024) + '"}')
