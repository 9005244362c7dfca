#!/bin/sh
# A fake agent that is killed by SIGKILL halfway through its stream.
printf '%s\n' '{"type":"thread.started","thread_id":"0199aaaa-run-test-killed"}'
printf '%s\n' '{"type":"turn.started"}'
kill -KILL $$
