#!/bin/sh
# A fake agent that starts a Codex thread and then works forever, in a child
# (so the whole process group has to go). Writes its pid to $PIDFILE.
[ -n "$PIDFILE" ] && echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE"
printf '%s\n' '{"type":"thread.started","thread_id":"0199aaaa-run-test-sleeper"}'
printf '%s\n' '{"type":"turn.started"}'
sleep 600 &
wait
