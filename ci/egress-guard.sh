#!/bin/sh
# shellcheck disable=SC2086 # $TABLE is two words (family, name), $uplinks a list
# egress-guard.sh {install|remove|status}
#
# The test harness's own nft table, inet box_test_guard, installed before any
# test container starts.  This machine may only send packets to loopback and
# to what the tests create, so:
#   * anything forwarded from a test bridge (boxtest0, boxnet, every "box*"
#     bridge: a prefix match, so bridges created later are covered) out of
#     the real uplink (the interfaces holding a default route, read at
#     install time) is dropped.  With no default route at all, everything
#     forwarded from those bridges to an interface that is not a bridge is.
#   * the host never resolves on the bridges' behalf: DNS (53, 853) sent by
#     the bridges' dnsmasq (it runs as nobody, or dnsmasq) out of the uplink
#     is dropped.  The test bridge's dnsmasq also has no upstream at all
#     (raw.dnsmasq no-resolv, see start-incus.sh); this is the second lock.
# Install replaces the table in one transaction, so re-running it (after an
# interrupted run, or once the routes changed) is safe.  remove deletes it.
set -eu

TABLE="inet box_test_guard"

ruleset()
{
	uplinks=$({ ip -o -4 route show table all default
	    ip -o -6 route show table all default; } 2>/dev/null |
	    sed -n 's/.* dev \([^ ]*\).*/\1/p' | sort -u)
	uids=""
	for u in nobody dnsmasq; do
		n=$(id -u "$u" 2>/dev/null) || continue
		uids="$uids${uids:+, }$n"
	done

	echo "table $TABLE"
	echo "delete table $TABLE"
	echo "table $TABLE {"
	echo "	chain forward {"
	echo "		type filter hook forward priority filter - 10; policy accept;"
	if [ -n "$uplinks" ]; then
		set=$(printf '"%s", ' $uplinks)
		out="oifname { ${set%, } }"
	else
		# No uplink to name: allow only bridge to bridge.
		out='oifname != "box*"'
		for b in $(ip -o link show type bridge | sed -n 's/^[0-9]*: \([^:@]*\).*/\1/p'); do
			case $b in box*) ;; *) out="$out oifname != \"$b\"" ;; esac
		done
	fi
	echo "		iifname \"box*\" $out counter drop"
	echo "	}"
	echo "	chain output {"
	echo "		type filter hook output priority filter - 10; policy accept;"
	if [ -n "$uids" ]; then
		[ -n "$uplinks" ] || out="oifname != \"lo\" $out"
		echo "		meta skuid { $uids } $out udp dport { 53, 853 } counter drop"
		echo "		meta skuid { $uids } $out tcp dport { 53, 853 } counter drop"
	fi
	echo "	}"
	echo "}"
}

case ${1:-} in
install)
	command -v nft >/dev/null || { echo "egress-guard.sh: nft missing (run ci/install-deps.sh)" >&2; exit 1; }
	rules=$(ruleset)
	printf '%s\n' "$rules" | nft -f -
	# Read it back: the guard counts only once the kernel holds it.
	nft list table $TABLE >/dev/null
	echo "egress-guard.sh: installed table $TABLE:" >&2
	printf '%s\n' "$rules" | sed -n '/iifname\|skuid/s/^\t*/  /p' >&2
	;;
remove)
	printf 'table %s\ndelete table %s\n' "$TABLE" "$TABLE" | nft -f -
	echo "egress-guard.sh: removed table $TABLE" >&2
	;;
status)
	nft list table $TABLE
	;;
*)
	echo "usage: egress-guard.sh {install|remove|status}" >&2
	exit 2
	;;
esac
