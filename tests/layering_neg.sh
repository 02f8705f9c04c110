#!/bin/sh
# The layering test can fail: on a copy of src/, each include-direction
# rule is broken once (one include added) and
# tests/layering.sh must fail naming that rule; the untouched copy must
# pass (the control).
#   sh tests/layering_neg.sh
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# case WHAT FILE LINE RULE-TEXT: add LINE before FILE's first include in a
# fresh copy; the run must fail with a FAIL line holding RULE-TEXT.
case_()
{
	_what=$1 _file=$2 _line=$3 _rule=$4
	n=$((n + 1))
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -R "$top/src" "$tmp/t/src"
	awk -v l="$_line" '!d && /^#include/ { print l; d = 1 } 1' \
	    "$tmp/t/$_file" >"$tmp/x" && cat "$tmp/x" >"$tmp/t/$_file"
	_out=$(sh "$top/tests/layering.sh" "$tmp/t" 2>&1)
	_rc=$?
	if [ "$_rc" -ne 0 ] && printf '%s\n' "$_out" |
	    grep -F "FAIL - $_rule" >/dev/null; then
		printf 'ok - %s: fails\n' "$_what"
	else
		printf 'FAIL - %s: layering.sh exit %s, output:\n%s\n' "$_what" \
		    "$_rc" "$_out"
		fails=$((fails + 1))
	fi
}

# the control: the copy as it is passes
rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -R src "$tmp/t/src"
if sh tests/layering.sh "$tmp/t" >/dev/null 2>&1; then
	echo 'ok - the untouched copy passes'
else
	echo 'FAIL - the untouched copy fails'
	fails=$((fails + 1))
fi

case_ 'box/ including host/stack/stack.h' src/box/box.c \
    '#include "host/stack/stack.h"' 'box/ includes no host/'
case_ 'box/life/vet.c including host/stack/contract.h again' \
    src/box/life/vet.c '#include "host/stack/contract.h"' 'box/ includes no host/'
case_ 'host/stack/migrate.c including host/doctor/doctor_shape.h again' \
    src/host/stack/migrate.c '#include "host/doctor/doctor_shape.h"' \
    'host/stack includes no host/doctor'
case_ 'cmd/ including net/rtnl.h' src/cmd/expose.c \
    '#include "net/rtnl.h"' 'cmd/ includes no net/'
case_ 'host/stack including host/doctor/doctor.h' src/host/stack/stack.c \
    '#include "host/doctor/doctor.h"' 'host/stack includes no host/doctor'
case_ 'model/ including box/box.h' src/model/mac.c \
    '#include "box/box.h"' 'the model floor'
case_ 'model/ including util/err.h' src/model/ip4text.c \
    '#include "util/err.h"' 'the model floor'
case_ 'box/ including cmd/cmd.h' src/box/life/life.c \
    '#include "cmd/cmd.h"' 'box/, host/, model/ include no cmd/'
case_ 'host/ including cmd/cmd.h' src/host/stack/grant.c \
    '#include "cmd/cmd.h"' 'box/, host/, model/ include no cmd/'
case_ 'net/ including incus/api.h' src/net/nl.c \
    '#include "incus/api.h"' 'incus/ and net/ include only'
case_ 'incus/ including box/box.h' src/incus/api.c \
    '#include "box/box.h"' 'incus/ and net/ include only'
case_ 'util/ including incus/api.h' src/util/err.c \
    '#include "incus/api.h"' 'util/ includes only util/'

# the rooms, one arrow up or sideways each
case_ 'box core including box/life/life.h (the old umbrella arrow)' \
    src/box/door.c '#include "box/life/life.h"' "box/'s rooms include only rooms below them"
case_ 'box/remote including the core box/box.h' src/box/remote/remote.c \
    '#include "box/box.h"' "box/'s rooms include only rooms below them"
case_ 'box/egress including box/life/mint.h' src/box/egress/egress_sync.c \
    '#include "box/life/mint.h"' "box/'s rooms include only rooms below them"
case_ 'box/life including box/import/vet_export.h' src/box/life/restore.c \
    '#include "box/import/vet_export.h"' "box/'s rooms include only rooms below them"
case_ 'box/import including box/verify/verify.h (sideways)' \
    src/box/import/import.c '#include "box/verify/verify.h"' "box/'s rooms include only rooms below them"
case_ 'box/verify including box/import/cp.h (sideways)' \
    src/box/verify/verify.c '#include "box/import/cp.h"' "box/'s rooms include only rooms below them"
case_ 'box/ including a room not in the order' src/box/box.c \
    '#include "box/nowhere/x.h"' "box/'s rooms include only rooms below them"
case_ 'host/stack including host/resolver/resolver.h (the old cycle)' \
    src/host/stack/setup.c '#include "host/resolver/resolver.h"' "host/'s parts include only parts below them"
case_ 'host/resolver including host/doctor/doctor.h' \
    src/host/resolver/feed.c '#include "host/doctor/doctor.h"' "host/'s parts include only parts below them"
case_ 'host/install including host/stack/stack.h' \
    src/host/install/install.c '#include "host/stack/stack.h"' "host/'s parts include only parts below them"

echo "$fails failed ($n broken trees, 1 control)"
[ "$fails" -eq 0 ]
