# SPDX-License-Identifier: Apache-2.0
# tests/lib/list.sh - what `jsym list` says of a JVM.  Sourced by lib.sh.
#
#   t_list_row PID COLUMN=VALUE...   the row of PID in $T_OUT (the table of
#                                    `jsym list`, run with t_run, here or in
#                                    a sidecar) has each VALUE in that column,
#                                    named as in its header (PID NSPID UID
#                                    KIND VERSION LIBC AGENT CONTAINER HOST)
#   t_list_container PID ID [COLUMN=VALUE...]
#                                    the host's `jsym list` names PID's
#                                    container by ID, the runtime's id (its
#                                    first 12 hex digits), in the CONTAINER
#                                    column (and has the other columns given),
#                                    and `jsym list --json` gives the same
#                                    container_id (and hostname, when
#                                    HOST=NAME is among the columns)
#
# A row is split at blanks, as the header is: a KIND with blanks in it
# ("not a JVM") shifts the columns after it, so use these on JVMs only.

t_list_row() {
	local pid=$1 row kv missing=
	shift
	row=$(awk -v pid="$pid" '
		$1 == "PID" && $2 == "NSPID" { for (i = 1; i <= NF; i++) col[i] = $i; next }
		$1 == pid { for (i = 1; i <= NF; i++) printf "%s=%s ", col[i], $i; exit }' <<<"$T_OUT")
	for kv in "$@"; do
		[[ " $row" == *" $kv "* ]] || missing+=" $kv"
	done
	if [ -z "$missing" ]; then
		t_pass "jsym list: $pid has $*"
	else
		t_fail "jsym list: $pid has not$missing (its row: ${row:-none})"
	fi
}

t_list_container() {
	local pid=$1 id=$2 host= kv
	shift 2
	for kv in "$@"; do
		case $kv in HOST=*) host=${kv#HOST=} ;; esac
	done
	t_run "$JSYM_BUILD/jsym" list
	t_list_row "$pid" "CONTAINER=$id" "$@"
	t_run "$JSYM_BUILD/jsym" list --json
	t_check "list --json: container_id $id${host:+, hostname $host}" python3 -c '
import json, sys
pid, text, cid, host = sys.argv[1:]
e = [x for x in json.loads(text) if x["pid"] == int(pid)]
sys.exit(0 if e and e[0].get("container_id") == cid and
         (not host or e[0].get("hostname") == host) else 1)' "$pid" "$T_OUT" "$id" "$host"
}
