#!/bin/sh
# A fake agent that finishes and exits, leaving a child that holds its
# standard output open. Writes its pid to $PIDFILE.
[ -n "$PIDFILE" ] && echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE"
cat "$1"
sleep 600 &
exit 0
