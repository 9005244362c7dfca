#!/bin/sh
# A fake agent: replay.sh STREAM [CODE] prints STREAM line by line, then
# exits with CODE (default 0). Optional environment:
#   PIDFILE     write our pid (= our process group) there first
#   STDIN_COPY  copy our standard input there first
#   GATE        a fifo: before each line after the first, wait for a line on it
#   HANG        after the stream, instead of exiting: "yes" waits on a child
#               forever; "stubborn" does the same, and ignores SIGTERM from
#               the start (so a stop cannot catch it before the trap is set)
[ "$HANG" = stubborn ] && trap '' TERM
[ -n "$PIDFILE" ] && echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE"
[ -n "$STDIN_COPY" ] && cat > "$STDIN_COPY"
echo "replay: starting" >&2
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	if [ -n "$GATE" ] && [ $n -gt 1 ]; then
		# A read that finds the previous writer just closing sees EOF, not
		# a line: open the fifo again until a line comes.
		until read -r _ < "$GATE"; do :; done
	fi
	printf '%s\n' "$line"
done < "$1"
case "$HANG" in
yes) sleep 600 & wait ;;
stubborn) sleep 600 & wait; wait ;;
esac
exit "${2:-0}"
