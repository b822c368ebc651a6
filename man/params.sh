#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# man/params.sh SOURCE...: the RUNTIME PARAMETERS of fi_uet(7) as roff, from
# the provider's fi_param_define() calls (name, type, help text), so that
# the page says what `fi_info -e` says. The default is the help text's own
# "default X" (up to ';' or ')'); a parameter whose help gives none fails
# the build. Output: one .TP entry per parameter, in the order defined.
set -eu
[ $# -gt 0 ] || { echo "usage: man/params.sh SOURCE..." >&2; exit 2; }
cat "$@" | awk '
function flush(  def, t, m) {
	if (name == "")
		return
	if (match(help, /default:? [^;)]*/)) {
		def = substr(help, RSTART, RLENGTH)
		sub(/^default:? /, "", def)
	} else {
		printf "params.sh: %s: no default in its help text\n", name \
			> "/dev/stderr"
		bad = 1
	}
	t = type
	sub(/^FI_PARAM_/, "", t)
	t = (t == "INT") ? "integer" : (t == "BOOL") ? "boolean" : \
	    (t == "SIZE_T") ? "size" : (t == "STRING") ? "string" : tolower(t)
	# the help is a printf format: what fi_info -e shows
	gsub(/%%/, "%", help)
	gsub(/\\/, "\\e", help)
	gsub(/\\/, "\\e", def)
	printf ".TP\n.BR FI_UET_%s \" (%s, default %s)\"\n%s.\n", \
		toupper(name), t, def, help
	count++
	name = ""
}
# A call: fi_param_define(&prov, "name", FI_PARAM_TYPE, "help" "help"...);
/fi_param_define\(/ { incall = 1; text = "" }
incall {
	text = text $0 "\n"
	if ($0 ~ /\);[[:space:]]*$/) {
		incall = 0
		# name and type
		s = text
		sub(/^[^"]*"/, "", s)
		name = s; sub(/".*/, "", name)
		sub(/^[^"]*"/, "", s)
		sub(/^[[:space:]]*,/, "", s)
		type = s; sub(/,.*/, "", type); gsub(/[[:space:]]/, "", type)
		sub(/^[^,]*,/, "", s)
		# the help: every string literal left, joined
		help = ""
		while (match(s, /"([^"\\]|\\.)*"/)) {
			help = help substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
		flush()
	}
}
END {
	if (bad) exit 1
	if (!count) { print "params.sh: no fi_param_define call" > "/dev/stderr"; exit 1 }
}'
