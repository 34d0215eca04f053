#!/usr/bin/python3
"""Reads its input, then sleeps far past any timeout."""
import sys
import time

sys.stdin.read()
time.sleep(60)
