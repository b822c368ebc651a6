#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The Debian packages as a user meets them: `make deb`, `apt-get install`
# of every package built, then with no environment `fi_info -p uet` finds
# the provider in libfabric's own folder, `uetctl` answers, `man -w` finds
# the pages, tshark knows protocol `uet`; `dpkg --purge` then leaves no
# file of them behind. The packages are purged on every exit, failure
# included. Needs root (apt-get), and a machine where none of them, nor a
# `make install`ed provider or dissector, is installed (else it skips:
# purging would remove the user's own installation).
source "$(dirname "$0")/e2e_lib.sh"
cd "$(dirname "$0")/../.."
PKGS=(libfabric-uet uet-tools uet-dissector libfabric-uet-dbgsym
      uet-tools-dbgsym)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
     gcc -dumpmachine)
DEB_OUT="$B/deb"

e2e_require_root
for t in dpkg-buildpackage dh fi_info tshark man; do
	command -v "$t" >/dev/null && continue
	[ "${CI:-}" = true ] && e2e_fail "$t not installed (CI=true)"
	echo "e2e: $E2E_NAME: SKIP ($t not installed; make deps)"
	exit 0
done
present=""
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$' &&
		present+=" $p"
done
for f in "/usr/lib/$MA/libfabric/libuet-fi.so" \
	 "/usr/lib/$MA/wireshark/plugins/uet.lua"; do
	[ -e "$f" ] && present+=" $f"
done
if [ -n "$present" ]; then
	[ "${CI:-}" = true ] && e2e_fail "already installed:$present (CI=true)"
	echo "e2e: $E2E_NAME: SKIP (already installed:$present)"
	exit 0
fi

purge() {
	set +e
	local p installed=()
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'not-installed' || installed+=("$p")
	done
	[ ${#installed[@]} = 0 ] ||
		DEBIAN_FRONTEND=noninteractive dpkg --purge "${installed[@]}" \
			>>"$E2E_TMP/purge.log" 2>&1
}
trap 'purge; rm -rf "$E2E_TMP"' EXIT

# 1. Build.
make -s deb B="$B" >"$E2E_TMP/deb.log" 2>&1 ||
	e2e_fail "make deb: $(tail -5 "$E2E_TMP/deb.log")"
debs=("$DEB_OUT"/*.deb)
for p in libfabric-uet uet-tools uet-dissector; do
	ls "$DEB_OUT/${p}_"*.deb >/dev/null 2>&1 || e2e_fail "no $p package"
done
e2e_ok "make deb: ${#debs[@]} packages"

# 2. Install with apt-get, as a user would; remember which folders were
# there before (the packages' own folders must go with them).
for deb in "${debs[@]}"; do
	dpkg-deb -c "$deb" | awk '{ sub(/^\./, "", $6); print $6 }'
done | sed 's:/$::' | sort -u >"$E2E_TMP/paths"
while read -r path; do
	[ -n "$path" ] && [ -e "$path" ] && echo "$path"
done <"$E2E_TMP/paths" >"$E2E_TMP/before"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${debs[@]/#/./}" >"$E2E_TMP/apt.log" 2>&1 ||
	e2e_fail "apt-get install: $(tail -5 "$E2E_TMP/apt.log")"
e2e_ok "apt-get install"

# 3. Used with no environment at all.
out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin FI_LOG_LEVEL=info \
	fi_info -p uet 2>"$E2E_TMP/fi_info.err") ||
	e2e_fail "fi_info -p uet: $(tail -3 "$E2E_TMP/fi_info.err")"
grep -q "^provider: uet" <<<"$out" || e2e_fail "fi_info -p uet: $out"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin fi_info -l | grep -q "^uet:" ||
	e2e_fail "fi_info -l does not list uet"
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin fi_info -e -p uet 2>/dev/null |
	grep -A2 "FI_UET_MAX_RETRIES" | grep -q "default 25" ||
	e2e_fail "fi_info -e: FI_UET_MAX_RETRIES"
e2e_ok "fi_info -p uet with no environment (/usr/lib/$MA/libfabric)"
out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin uetctl 2>&1) || true
grep -q "uetctl: control the UET XDP program" <<<"$out" ||
	e2e_fail "uetctl: $out"
[ "$(command -v uetctl)" = /usr/sbin/uetctl ] || e2e_fail "uetctl is $(command -v uetctl)"
[ -x /usr/sbin/uetd ] || e2e_fail "no /usr/sbin/uetd"
grep -q "^ExecStart=/usr/sbin/uetd " /lib/systemd/system/uetd@.service ||
	e2e_fail "uetd@.service: $(grep ExecStart /lib/systemd/system/uetd@.service)"
e2e_ok "uetctl, uetd, uetd@.service"
for page in fi_uet uetctl uetd; do
	man -w "$page" >/dev/null 2>&1 || e2e_fail "man -w $page"
done
man -P cat fi_uet 2>/dev/null | grep -q "FI_UET_MAX_RETRIES (integer, default 25)" ||
	e2e_fail "man fi_uet: no generated FI_UET_MAX_RETRIES"
e2e_ok "man -w fi_uet, uetctl, uetd"
# The extension header, where a program including <rdma/fi_ext_uet.h> finds it.
printf '#include <rdma/fi_ext_uet.h>\nint main(void) { struct fi_uet_rdmo_ops o = { sizeof(o) }; return !FI_UET_RDMO_OPS[0] + (int)!o.size; }\n' |
	cc -x c -o "$E2E_TMP/ext" - 2>"$E2E_TMP/cc.err" ||
	e2e_fail "<rdma/fi_ext_uet.h>: $(head -3 "$E2E_TMP/cc.err")"
"$E2E_TMP/ext" || e2e_fail "<rdma/fi_ext_uet.h>: the program failed"
e2e_ok "<rdma/fi_ext_uet.h> installed and compiles"
tshark -G protocols 2>/dev/null | awk -F'\t' '$3 == "uet"' | grep -q . ||
	e2e_fail "tshark -G protocols: no uet"
# Installed and given on the command line: both load, one registers.
if [ -x "$B/gen_uet_pcap" ]; then
	"$B/gen_uet_pcap" "$E2E_TMP/u.pcap" >/dev/null
	n=$(tshark -n -r "$E2E_TMP/u.pcap" -X lua_script:tools/uet.lua \
		-Y uet 2>"$E2E_TMP/ts.err" | wc -l)
	all=$(tshark -n -r "$E2E_TMP/u.pcap" 2>/dev/null | wc -l)
	[ "$n" = "$all" ] && [ "$n" -gt 0 ] ||
		e2e_fail "tshark with both dissectors: $n of $all frames, $(head -2 "$E2E_TMP/ts.err")"
fi
e2e_ok "tshark knows uet (installed, and with -X lua_script too)"

# 4. Purge: nothing of them left.
dpkg_files=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$' &&
		mapfile -t -O "${#dpkg_files[@]}" dpkg_files < <(dpkg -L "$p")
done
[ ${#dpkg_files[@]} -gt 0 ] || e2e_fail "dpkg -L lists nothing"
purge
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'not-installed' ||
	! dpkg-query -W "$p" >/dev/null 2>&1 ||
		e2e_fail "$p left: $(dpkg-query -W -f='${Status}' "$p")"
done
for path in "${dpkg_files[@]}"; do
	[ "$path" = /. ] && continue
	[ -e "$path" ] || [ -L "$path" ] || continue
	grep -qxF "$path" "$E2E_TMP/before" ||
		e2e_fail "left after purge: $path"
done
ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -q uetd &&
	e2e_fail "systemd state of uetd@ left"
e2e_ok "dpkg --purge leaves nothing (${#dpkg_files[@]} paths checked)"
