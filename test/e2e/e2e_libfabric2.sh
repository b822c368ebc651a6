#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A libfabric 2.x core finds uet (issue 33). In a namespace whose
# interface has uet loaded: libfabric 2.6's fi_info (test/vendor/build.sh
# builds it into $B/vendor/libfabric-2.6), with no environment but
# FI_PROVIDER_PATH, lists uet and reports API version 2.6 (the core hides
# a provider whose version is below the one asked for, and fi_info asks
# for its own); its log has no "fi_version ... < requested"; the system's
# fi_info (1.17) still lists uet, at 1.17. Needs the vendor build: skips
# without it, fails without it under CI=true.
source "$(dirname "$0")/e2e_lib.sh"
PP="$(cd "$B" && pwd)"
LF2="$PP/vendor/libfabric-2.6"
if [ ! -x "$LF2/bin/fi_info" ]; then
	[ "${CI:-}" = true ] && e2e_fail "$LF2 not built (test/vendor/build.sh)"
	echo "e2e: $E2E_NAME: SKIP ($LF2 not built: test/vendor/build.sh)"
	exit 0
fi

e2e_setup 9000
e2e_in A "$B/uetctl" load "$IF_A" --mode skb >/dev/null

# fi_info_in ARGS...: an fi_info in A, nothing in its environment but
# FI_PROVIDER_PATH (and what FI_INFO_ENV adds).
FI_INFO_ENV=()
fi_info_in() {
	local bin=$1
	shift
	e2e_in A env -i FI_PROVIDER_PATH="$PP" \
		${FI_INFO_ENV[@]+"${FI_INFO_ENV[@]}"} "$bin" "$@"
}

out=$(fi_info_in "$LF2/bin/fi_info" -p uet 2>&1) || true
why="$out"
e2e_check "libfabric 2.6: fi_info -p uet lists uet" \
	grep -q "provider: uet" <<< "$out"
out=$(fi_info_in "$LF2/bin/fi_info" -p uet -v 2>&1) || true
why=$(grep -m1 "api_version" <<< "$out" || echo "no api_version")
e2e_check "libfabric 2.6: api_version 2.6" \
	grep -q "api_version: 2.6" <<< "$out"
FI_INFO_ENV=(FI_LOG_LEVEL=warn)
out=$(fi_info_in "$LF2/bin/fi_info" -p uet 2>&1) || true
why=$(grep -m1 "< requested" <<< "$out" || true)
e2e_check "libfabric 2.6: no version refusal in the log" \
	bash -c '! grep -q "< requested" <<< "$1"' _ "$out"
FI_INFO_ENV=()
out=$(fi_info_in "$(command -v fi_info)" -p uet -v 2>&1) || true
why=$(grep -m1 "api_version" <<< "$out" || echo "$out")
e2e_check "libfabric 1.17 (the system's): fi_info -p uet at 1.17" \
	grep -q "api_version: 1.17" <<< "$out"
e2e_checks_done
