#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A second `uetctl load` on an interface that is already loaded, from a
# shell that does not share the first one's pins (a bpffs of its own, as
# two `ip netns exec` shells get): it fails with "already loaded" and
# leaves the first program attached (the same program id) and working (a
# fi_write between the namespaces afterwards), whether the first is the
# device service or a bare program (--no-service), and whatever mode or
# port the second asks for; nor does a service that fails to start.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
U="$(cd "$(dirname "$B/uetctl")" && pwd)/uetctl"
BPFFS2="$E2E_TMP/bpffs2"

# prog_id SIDE: the XDP program id attached to that side's interface.
prog_id() {
	local ifc=IF_$1
	e2e_in "$1" ip -d link show "${!ifc}" |
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1
}

# second ARGS...: `uetctl load IF_A ARGS` from the other shell (its own
# pins); must fail with exit 1 and name the cause once.
second() {
	local rc=0 out
	out=$(UET_BPFFS="$BPFFS2" LIBXDP_BPFFS="$BPFFS2" \
		e2e_in A "$U" load "$IF_A" "$@" 2>&1) || rc=$?
	[ "$rc" = 1 ] || e2e_fail "second load $* exited $rc: $out"
	grep -q "^uetctl load: $IF_A: already loaded" <<< "$out" ||
		e2e_fail "second load $*: '$out'"
	[ "$(wc -l <<< "$out")" = 1 ] || e2e_fail "second load $*: '$out'"
}

# write_ok: a 64 KiB fi_write from A to a server in B, data checked.
write_ok() {
	e2e_in B timeout 30 "$B/uet_write" -s -a "$IP_B" -S 7 -n 65536 \
		> "$E2E_TMP/srv.out" 2>&1 &
	local srv=$!
	FI_PROVIDER=uet e2e_in A timeout 30 "$B/uet_write" -c "$IP_B" -S 7 \
		-n 65536 > "$E2E_TMP/cli.out" 2>&1 ||
		e2e_fail "fi_write after the second load: $(cat "$E2E_TMP/cli.out")"
	wait "$srv" ||
		e2e_fail "server after the second load: $(cat "$E2E_TMP/srv.out")"
}

e2e_setup
umount_bpffs2() { umount "$BPFFS2" 2>/dev/null; e2e_cleanup; }
trap umount_bpffs2 EXIT
mkdir -p "$BPFFS2"
mount -t bpf bpf "$BPFFS2"
export FI_PROVIDER=uet

# 1. The device service first.
e2e_in A "$U" load "$IF_A" --mode skb >/dev/null
e2e_in B "$U" load "$IF_B" --mode skb >/dev/null
id=$(prog_id A)
[ -n "$id" ] || e2e_fail "first load: nothing attached"
second --mode skb
second --mode native
second --mode skb --port 4800
second --mode skb --no-service
second --mode native --no-service
[ "$(prog_id A)" = "$id" ] || e2e_fail "program $id replaced by '$(prog_id A)'"
e2e_in A "$U" status "$IF_A" | grep -q "^$IF_A: loaded, skb mode" ||
	e2e_fail "status: $(e2e_in A "$U" status "$IF_A")"
write_ok
e2e_ok "service loaded: second loads refused, program $id still attached and working"

# 2. A bare program first (--no-service).
e2e_in A "$U" unload "$IF_A" >/dev/null
e2e_in A "$U" load "$IF_A" --mode skb --no-service >/dev/null
id=$(prog_id A)
[ -n "$id" ] || e2e_fail "bare load: nothing attached"
second --mode skb --no-service
second --mode native --no-service
# A service that fails to start (a bad policy file) from the same shell.
printf '500 nosuchuser%s\n' "$$" > "$E2E_TMP/bad.conf"
out=$(e2e_in A "$U" load "$IF_A" --mode skb --policy "$E2E_TMP/bad.conf" \
	2>&1) && e2e_fail "a bad policy loaded: $out"
[ "$(prog_id A)" = "$id" ] || e2e_fail "bare program $id replaced by '$(prog_id A)'"
e2e_in A "$U" status "$IF_A" | grep -q "^$IF_A: loaded, skb mode" ||
	e2e_fail "status: $(e2e_in A "$U" status "$IF_A")"
e2e_in A "$U" unload "$IF_A" >/dev/null
e2e_in A ip link show "$IF_A" | grep -q xdp && e2e_fail "unload left it attached"
e2e_ok "bare program loaded: second loads refused, program $id still attached"
