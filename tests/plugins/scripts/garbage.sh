#!/bin/sh
# Prints bytes that are neither UTF-8 nor JSON.
cat > /dev/null
printf 'hello \377\376 world\n'
