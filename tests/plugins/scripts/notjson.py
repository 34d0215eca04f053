#!/usr/bin/python3
"""Prints plain text instead of JSON."""
print("everything is fine, trust me")
