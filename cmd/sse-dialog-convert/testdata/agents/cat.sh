#!/bin/sh
# A fake agent that prints FILE byte for byte, and a line on stderr.
echo "cat.sh: agent stderr line" >&2
cat "$1"
