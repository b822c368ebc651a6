# SPDX-License-Identifier: BSD-2-Clause
# Shared by the local channels' tests (e2e_local.sh, e2e_local_users.sh;
# source after e2e_lib.sh): a server and a client of one test program,
# two endpoints of interface A in namespace A, run and judged alike.

# lch_pair NAME PROG SERVER_ARGS -- CLIENT_ARGS: PROG's server and client
# in namespace A, each started behind its words (the arrays LCH_SRV and
# LCH_CLI: setpriv, env and the settings), PROG taken from LCH_DIR
# (default $B). Both must end well and the client say "all ok" or
# "passed", or both outputs are shown and the test fails NAME. Sets the
# client's engine counters: LT records through the channel (local_tx), FR
# frames (tx_frames), RF inboxes the kernel refused (local_refused).
lch_pair() {
	local name=$1 prog=$2 s rc=0 sargs=() cargs=()
	local port=$((49000 + RANDOM % 1000)) dir=${LCH_DIR:-$B}
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	e2e_in A "${LCH_SRV[@]}" timeout 120 "$dir/$prog" "${sargs[@]}" \
		-p "$port" > "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A "${LCH_CLI[@]}" timeout 120 "$dir/$prog" "${cargs[@]}" \
		-p "$port" > "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || rc=$?
	if [ $rc != 0 ] ||
	   ! grep -q "client.*: \(all ok\|passed\)" "$E2E_TMP/client.out"; then
		grep -v '^uet_engine_stats' "$E2E_TMP/server.out" |
			sed 's/^/  server: /'
		grep -v '^uet_engine_stats' "$E2E_TMP/client.out" |
			sed 's/^/  client: /'
		e2e_fail "$name"
	fi
	LT=$(e2e_engine_stat "$E2E_TMP/client.out" local_tx)
	FR=$(e2e_engine_stat "$E2E_TMP/client.out" tx_frames)
	RF=$(e2e_engine_stat "$E2E_TMP/client.out" local_refused)
}
