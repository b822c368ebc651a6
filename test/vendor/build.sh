#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The third-party builds tests run (issue 33), from the tarballs kept in
# ../shared/vendor/ (its README.md says what they are; CI cannot fetch),
# into $B/vendor/, never into the system:
#   libfabric-2.6   libfabric 2.6.0 with only the providers tests need
#                   (tcp, shm, rxm, udp, rxd);
#   fabtests-2.6    its fabtests, against it (run with LD_LIBRARY_PATH=
#                   $B/vendor/libfabric-2.6/lib: they carry no rpath);
#   fabtests-1.17   fabtests 1.17.0 against the system's libfabric, the
#                   version Debian 12 ships.
# Each tree is cached: DIR/.stamp holds its tarball's sha256 and RECIPE
# below, and the tree is built again only when either changes (or when
# what it is built against was). Prints "vendor: NAME cached" or
# "vendor: NAME built in Ns"; a failed build leaves its log in
# $B/vendor/NAME.log and its tail on stderr.
#
# Usage: B=build test/vendor/build.sh [NAME...]  (default: all three)
# VENDOR_DIR: where the tarballs are (else ../shared/vendor from the
# project's root, or from the repository it was cloned from, when that is
# a directory: a clone made elsewhere, in /root or /tmp, still finds
# them); VENDOR_JOBS: make -j (nproc).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
if [ -z "${VENDOR_DIR:-}" ]; then
	VENDOR_DIR=$ROOT/../shared/vendor
	origin=$(git -C "$ROOT" remote get-url origin 2>/dev/null || true)
	origin=${origin#file://}
	if [ ! -d "$VENDOR_DIR" ] && [ -n "$origin" ] && [ -d "$origin" ] &&
	   [ -d "$origin/../shared/vendor" ]; then
		VENDOR_DIR=$(cd "$origin/../shared/vendor" && pwd)
	fi
fi
JOBS=${VENDOR_JOBS:-$(nproc)}
# Bump when a configure line below changes, so that caches are rebuilt.
RECIPE=1

mkdir -p "$B/vendor"
OUT=$(cd "$B/vendor" && pwd)
LF26_TAR=$VENDOR_DIR/libfabric-2.6.0.tar.xz
FT117_TAR=$VENDOR_DIR/fabtests-1.17.0.tar.xz

# Only the providers tests use; the others would need their libraries
# or only cost build time. No static library: nothing links it.
LF26_CONF=(--enable-only --enable-tcp=yes --enable-shm=yes --enable-rxm=yes
	   --enable-udp=yes --enable-rxd=yes --disable-static)
# No debug information: they are not debugged here, and it is faster.
export CFLAGS=${VENDOR_CFLAGS:--O2}

die() {
	echo "vendor: $*" >&2
	exit 1
}

# stamp_of TARBALL: what a tree built from it records.
stamp_of() {
	[ -r "$1" ] || die "$1 missing (see ../shared/vendor/README.md)"
	echo "$(sha256sum "$1" | cut -d' ' -f1) recipe=$RECIPE"
}

# fresh NAME STAMP: true when $OUT/NAME was built with STAMP.
fresh() {
	[ -f "$OUT/$1/.stamp" ] && [ "$(cat "$OUT/$1/.stamp")" = "$2" ]
}

# run NAME CMD...: a build step, its output into NAME.log.
run() {
	local name=$1
	shift
	if ! "$@" >> "$OUT/$name.log" 2>&1; then
		tail -30 "$OUT/$name.log" >&2
		die "$name: '$*' failed (log: $OUT/$name.log)"
	fi
}

# build NAME STAMP SRCDIR CONFIGURE-ARGS...: autogen, configure, make,
# install into $OUT/NAME, which gets its stamp last (a build cut short
# leaves none, and runs again).
build() {
	local name=$1 stamp=$2 src=$3 t0=$SECONDS
	shift 3
	rm -rf "${OUT:?}/$name" "$OUT/$name.log"
	(
		cd "$src"
		run "$name" ./autogen.sh
		run "$name" ./configure --prefix="$OUT/$name" "$@"
		run "$name" make -j"$JOBS"
		run "$name" make install
	)
	echo "$stamp" > "$OUT/$name/.stamp"
	echo "vendor: $name built in $((SECONDS - t0))s"
}

# unpack TARBALL: a clean copy of its tree under $OUT/src.
unpack() {
	rm -rf "$OUT/src" && mkdir -p "$OUT/src"
	tar -xJf "$1" -C "$OUT/src"
}

built_lf26=0
done_lf26=0
libfabric_26() {
	local stamp
	[ "$done_lf26" = 0 ] || return 0
	done_lf26=1
	stamp=$(stamp_of "$LF26_TAR")
	if fresh libfabric-2.6 "$stamp"; then
		echo "vendor: libfabric-2.6 cached"
		return 0
	fi
	unpack "$LF26_TAR"
	build libfabric-2.6 "$stamp" "$OUT/src/libfabric-2.6.0" \
		"${LF26_CONF[@]}"
	built_lf26=1
}

fabtests_26() {
	local stamp
	stamp=$(stamp_of "$LF26_TAR")
	libfabric_26
	if [ "$built_lf26" = 0 ] && fresh fabtests-2.6 "$stamp"; then
		echo "vendor: fabtests-2.6 cached"
		return 0
	fi
	[ -d "$OUT/src/libfabric-2.6.0" ] || unpack "$LF26_TAR"
	build fabtests-2.6 "$stamp" "$OUT/src/libfabric-2.6.0/fabtests" \
		--with-libfabric="$OUT/libfabric-2.6"
}

fabtests_117() {
	local stamp
	# The system's libfabric is part of what it is built against.
	stamp="$(stamp_of "$FT117_TAR") $(dpkg-query -W -f='${Version}' \
		libfabric-dev 2>/dev/null || echo unknown)"
	if fresh fabtests-1.17 "$stamp"; then
		echo "vendor: fabtests-1.17 cached"
		return 0
	fi
	unpack "$FT117_TAR"
	build fabtests-1.17 "$stamp" "$OUT/src/libfabric-1.17.0/fabtests" \
		--with-libfabric=/usr
}

[ $# -gt 0 ] || set -- libfabric-2.6 fabtests-2.6 fabtests-1.17
for name; do
	case $name in
	libfabric-2.6) libfabric_26 ;;
	fabtests-2.6) fabtests_26 ;;
	fabtests-1.17) fabtests_117 ;;
	*) die "unknown tree $name" ;;
	esac
done
# The sources are only needed while building.
rm -rf "$OUT/src"
