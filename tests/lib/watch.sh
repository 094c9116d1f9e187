# SPDX-License-Identifier: Apache-2.0
# tests/lib/watch.sh - was a planted file opened?  Sourced by lib.sh.
#
#   t_watch_open PATH     start watching PATH for real opens (inotify)
#   ... run jsym ...
#   t_watch_result        stop; prints "unopened", "opened N" or "error ..."
#                         (usable inside $(...))
#
# One watch at a time.  The watcher is registered with kit_on_exit, so a
# scenario that ends early leaves none behind.

T_WATCH_PID=
T_WATCH_OUT=

t_watch_open() {
	local i
	T_WATCH_OUT=$(mktemp "${TMPDIR:-/tmp}/jsym-watch.XXXXXX")
	python3 "$JSYM_ROOT/tests/lib/watch_open.py" "$1" "$T_WATCH_OUT" &
	T_WATCH_PID=$!
	kit_on_exit "kill $T_WATCH_PID 2>/dev/null; rm -f '$T_WATCH_OUT'"
	for i in $(seq 100); do
		grep -q . "$T_WATCH_OUT" 2>/dev/null && break
		sleep 0.05
	done
}

t_watch_result() {
	local i r=
	kill -TERM "$T_WATCH_PID" 2>/dev/null
	# no `wait`: this runs in $(...), a subshell the watcher is no child
	# of; its verdict replaces "ready" in the file
	for i in $(seq 100); do
		r=$(cat "$T_WATCH_OUT" 2>/dev/null)
		case $r in ready | '') sleep 0.05 ;; *) break ;; esac
	done
	echo "$r"
}
