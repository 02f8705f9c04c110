#!/bin/sh
# test_netlink.sh - src/net against the real kernel (root).
#
# Everything runs in throwaway network namespaces (boxit-nl-<pid>...), which
# the trap deletes on every exit.  A small driver, nltool (this directory),
# is compiled against src/net and src/util/err.c; nft(8), ip(8) and
# bridge(8) serve only as independent readers and for setup.
#
#   (a) our firewall batch is byte-for-byte the batch nft sends for the same
#       text, applies, and reads back (nft list / nft -j / our own lister)
#       the same as nft -f of that text does;
#   (b) re-applying changes nothing (no duplicate rules), and a table that
#       is not ours survives byte for byte;
#   (c) a batch with one refused rule leaves the ruleset exactly as it was,
#       and the error names the message; the capability probe leaves
#       nothing behind and agrees with nft;
#   (d) the rtnetlink readers agree with ip -j / bridge -j on links, bridge
#       port isolation, IPv4 addresses and routes; the sysctl writer works.
#
# Prints one line per check and ends with "N passed, N failed".
set -u

cd "$(dirname "$0")/../.." || exit 1
if [ "$(id -u)" != 0 ]; then
	echo "test_netlink: needs root (network namespaces, nf_tables)"
	exit 1
fi
for t in ip nft bridge python3 gcc; do
	command -v "$t" >/dev/null 2>&1 || { echo "test_netlink: needs $t"; exit 1; }
done

NS=boxit-nl-$$
REF=boxit-nl-$$-ref
T=$(mktemp -d /tmp/boxit-nl.XXXXXX)
cleanup() {
	ip netns del "$NS" 2>/dev/null
	ip netns del "$REF" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | head -40; }
# check NAME CMD...: pass when CMD succeeds
check() { n=$1; shift; if "$@" >"$T/out" 2>&1; then ok "$n"; else bad "$n" "$T/out"; fi; }
# same NAME FILE1 FILE2: pass when the files are identical
same() {
	if cmp -s "$2" "$3"; then ok "$1"
	else diff -u "$2" "$3" >"$T/diff"; bad "$1" "$T/diff"; fi
}
ns() { ip netns exec "$NS" "$@"; }
ref() { ip netns exec "$REF" "$@"; }
J=tests/integration/nljson.py
NLT=$T/nltool

# --- build --------------------------------------------------------------
check "build nltool" gcc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
	-Wshadow -Wno-unused-parameter -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -Isrc -o "$NLT" \
	tests/integration/nltool.c src/net/nl.c src/net/nft.c src/net/rtnl.c \
	src/util/err.c src/util/clock.c
if [ ! -x "$NLT" ]; then
	echo "$pass passed, $fail failed"
	exit 1
fi
export ASAN_OPTIONS=detect_leaks=1
ip netns add "$NS" && ip netns add "$REF" || { echo "cannot create namespaces"; exit 1; }
ns ip link set lo up
ref ip link set lo up

# Somebody else's table, made before we touch anything.
cat >"$T/other.nft" <<'EOF'
table ip other {
	chain c {
		type filter hook input priority 0; policy accept;
		tcp dport 9 counter accept comment "not ours"
	}
	chain d {
		udp dport 10 drop
	}
}
EOF
check "setup: an unrelated table" ns nft -f "$T/other.nft"
ref nft -f "$T/other.nft"	# the reference namespace gets it too
ns nft list table ip other >"$T/other.before"

# --- (a) apply and read back ---------------------------------------------
"$NLT" fw-text >"$T/fw.nft"
"$NLT" fw-bytes >"$T/ours.hex"
ref nft --debug=mnl -f "$T/fw.nft" >"$T/mnl.txt" 2>&1
python3 tests/integration/mnl2hex.py <"$T/mnl.txt" >"$T/nft.hex"
same "(a) our batch is byte-for-byte nft's for the same rules" \
	"$T/nft.hex" "$T/ours.hex"
check "(a) apply the firewall batch" ns "$NLT" fw
ns nft list ruleset >"$T/rs.1"
ref nft list ruleset >"$T/ref.txt"
same "(a) nft list ruleset equals nft -f of the same text" "$T/ref.txt" "$T/rs.1"
ns nft -j list ruleset | python3 $J nft-norm >"$T/rs.json"
ref nft -j list ruleset | python3 $J nft-norm >"$T/ref.json"
same "(a) nft -j list ruleset equals nft -f of the same text" \
	"$T/ref.json" "$T/rs.json"
ns nft -j list ruleset | python3 $J nft-summary | grep ' box ' >"$T/sum.nft"
{ ns "$NLT" list inet box; ns "$NLT" list bridge box; } | sort >"$T/sum.ours.u"
sort "$T/sum.nft" >"$T/sum.nft.s"
same "(a) our lister: chains, rule counts, comments agree with nft -j" \
	"$T/sum.nft.s" "$T/sum.ours.u"
grep -q '^chain inet box input rules 5$' "$T/sum.ours.u" &&
grep -q '^rule inet box input "box: drop the rest"$' "$T/sum.ours.u" &&
grep -q '^chain bridge box forward rules 2$' "$T/sum.ours.u"
[ $? = 0 ] && ok "(a) the host input chain holds the 5 rules of checklist 3.2" ||
	bad "(a) the host input chain holds the 5 rules of checklist 3.2" "$T/sum.ours.u"
ns "$NLT" list-detail inet box >"$T/detail"
grep -q '^chain input type filter hook 1 prio -5 policy 1 rules 5$' "$T/detail" &&
grep -q '^chain expose-snat type nat hook 4 prio 110 policy 1 rules 2$' "$T/detail"
[ $? = 0 ] && ok "(a) base chains read back with hook, priority, policy" ||
	bad "(a) base chains read back with hook, priority, policy" "$T/detail"
ns "$NLT" list inet no-such-table >"$T/absent"
grep -q 'absent' "$T/absent" && ok "(a) a missing table reads as absent" ||
	bad "(a) a missing table reads as absent" "$T/absent"

# --- (b) idempotence, and others' tables untouched ---------------------
check "(b) re-apply the same batch" ns "$NLT" fw
ns nft list ruleset >"$T/rs.2"
same "(b) re-applying changes nothing (no duplicate rules)" "$T/rs.1" "$T/rs.2"
check "(b) and a third time" ns "$NLT" fw
ns nft list ruleset >"$T/rs.3"
same "(b) still nothing changed" "$T/rs.1" "$T/rs.3"
ns nft list table ip other >"$T/other.after"
same "(b) the unrelated table survives byte for byte" "$T/other.before" \
	"$T/other.after"

# --- (c) atomicity and probing -----------------------------------------
ns nft list ruleset >"$T/before"
ns "$NLT" probe-brname >"$T/probe" 2>&1
probe_rc=$?
if [ $probe_rc = 0 ]; then ok "(c) probe meta ibrname/obrname: $(cat "$T/probe")"
else bad "(c) probe meta ibrname/obrname" "$T/probe"; fi
ns nft list ruleset >"$T/after"
same "(c) the probe leaves nothing behind" "$T/before" "$T/after"
# nft's own verdict on the same rule, in a throwaway table of the ref netns
printf 'table bridge p {\n chain f {\n  type filter hook forward priority -200; policy accept;\n  meta ibrname "x" meta obrname "x" drop\n }\n}\n' >"$T/br.nft"
if ref nft -f "$T/br.nft" >/dev/null 2>&1; then nft_says=supported; ref nft delete table bridge p
else nft_says=refused; fi
grep -q "^brname $nft_says" "$T/probe" &&
	ok "(c) the probe agrees with nft ($nft_says)" ||
	bad "(c) the probe agrees with nft ($nft_says)" "$T/probe"

ns "$NLT" probe-ifname >"$T/probe2" 2>&1
ns nft list ruleset >"$T/after"
grep -q '^ifname supported$' "$T/probe2" &&
	ok "(c) probe of an accepted rule (bridge iifname/oifname): supported" ||
	bad "(c) probe of an accepted rule (bridge iifname/oifname): supported" "$T/probe2"
same "(c) ...and that probe leaves nothing behind either" "$T/before" "$T/after"

ns "$NLT" fw bad-jump >"$T/badjump" 2>&1
rc=$?
ns nft list ruleset >"$T/after"
[ $rc != 0 ] && ok "(c) a batch with a jump to a missing chain is refused" ||
	bad "(c) a batch with a jump to a missing chain is refused" "$T/badjump"
grep -q 'message [0-9]* of [0-9]* (add rule inet box/input "nowhere") refused: No such file or directory' "$T/badjump" &&
	ok "(c) the error names the refused message: $(cat "$T/badjump")" ||
	bad "(c) the error names the refused message" "$T/badjump"
same "(c) the refused batch left the ruleset exactly as it was" "$T/before" "$T/after"
if grep -q '^brname refused' "$T/probe"; then
	ns "$NLT" fw bad-brname >"$T/badbr" 2>&1
	rc=$?
	ns nft list ruleset >"$T/after"
	[ $rc != 0 ] && grep -q 'add rule bridge box/forward "brname") refused: Operation not supported' "$T/badbr" &&
		ok "(c) meta ibrname in the bridge family is refused: $(cat "$T/badbr")" ||
		bad "(c) meta ibrname in the bridge family is refused" "$T/badbr"
	same "(c) ...and the ruleset is exactly as it was" "$T/before" "$T/after"
else
	echo "note (c) this kernel accepts meta ibrname: refusal check skipped"
fi

# chain reset: a base chain whose priority must change
ns "$NLT" reset-door -90 >"$T/reset" 2>&1
ns nft list chain inet box door >"$T/door" 2>&1
grep -q 'type nat hook prerouting priority dstnat + 10; policy accept;' "$T/door" &&
[ "$(grep -c 'dnat ip to' "$T/door")" = 1 ] &&
	ok "(c) nft_chain_reset moves a base chain to a new priority, rules kept once" ||
	bad "(c) nft_chain_reset moves a base chain to a new priority, rules kept once" "$T/door"
ns "$NLT" fw >"$T/clash" 2>&1
[ $? != 0 ] && grep -q 'add chain inet box/door) refused: ' "$T/clash" &&
	ok "(c) a plain add over a changed base chain is refused: $(cat "$T/clash")" ||
	bad "(c) a plain add over a changed base chain is refused" "$T/clash"
ns "$NLT" reset-door -100 >/dev/null 2>&1 && ns "$NLT" fw >/dev/null 2>&1
ns nft list ruleset >"$T/after"
same "(c) reset back and re-applied: the ruleset is as first applied" "$T/rs.1" "$T/after"

# --- (d) rtnetlink readers -----------------------------------------------
cat >"$T/setup.sh" <<'EOF'
set -e
ip link add br0 type bridge
ip link add va0 type veth peer name vb0
ip link add va1 type veth peer name vb1
ip link set va0 master br0
ip link set va1 master br0
for i in br0 va0 va1 vb0 vb1; do ip link set "$i" up; done
bridge link set dev va1 isolated on
ip addr add 10.77.0.2/24 dev br0
ip addr add 10.78.0.5/16 dev vb0
ip addr add 10.78.1.5/32 dev vb1
ip route add default via 10.77.0.1 dev br0
ip route add 192.0.2.0/24 via 10.77.0.9 metric 50
ip route add 198.51.100.7 dev vb1
EOF
check "(d) setup: a bridge with two veth ports, one isolated" ns sh "$T/setup.sh"
sleep 0.2	# let operstates settle before two reads compare them
ns ip -j -d link show | python3 $J links >"$T/links.ip"
ns "$NLT" links | sort >"$T/links.ours"
same "(d) links (index, name, kind, master, operstate) agree with ip -j" \
	"$T/links.ip" "$T/links.ours"
ns bridge -j -d link show | python3 $J brports >"$T/br.ip"
ns "$NLT" brports | sort >"$T/br.ours"
same "(d) bridge ports and their isolated flag agree with bridge -j" \
	"$T/br.ip" "$T/br.ours"
grep -q '^va1 br0 on$' "$T/br.ours" && grep -q '^va0 br0 off$' "$T/br.ours" &&
	ok "(d) isolated: va1 on, va0 off" || bad "(d) isolated: va1 on, va0 off" "$T/br.ours"
ns ip -j -4 addr show | python3 $J addrs >"$T/addr.ip"
ns "$NLT" addrs | sort >"$T/addr.ours"
same "(d) IPv4 addresses agree with ip -j" "$T/addr.ip" "$T/addr.ours"
ns ip -j -4 route show table main | python3 $J routes >"$T/rt.ip"
ns "$NLT" routes | sort >"$T/rt.ours"
same "(d) IPv4 main-table routes agree with ip -j" "$T/rt.ip" "$T/rt.ours"
ns "$NLT" defroute >"$T/def"
echo "default via 10.77.0.1 dev br0" >"$T/def.want"
same "(d) the default route: gateway and device" "$T/def.want" "$T/def"
check "(d) sysctl set net/ipv4/conf/br0/route_localnet=1" \
	ns "$NLT" sysctl-set net/ipv4/conf/br0/route_localnet 1
[ "$(ns sysctl -n net.ipv4.conf.br0.route_localnet)" = 1 ] &&
[ "$(ns "$NLT" sysctl-get net/ipv4/conf/br0/route_localnet)" = 1 ] &&
	ok "(d) sysctl reads back 1 (sysctl(8) and ours)" ||
	bad "(d) sysctl reads back 1 (sysctl(8) and ours)"
ns "$NLT" sysctl-set net/ipv4/conf/nope0/route_localnet 1 >"$T/nope" 2>&1
[ $? != 0 ] && grep -q 'No such file' "$T/nope" &&
	ok "(d) sysctl on a missing interface fails with ENOENT" ||
	bad "(d) sysctl on a missing interface fails with ENOENT" "$T/nope"

# --- teardown of our tables ----------------------------------------------
check "delete our tables" sh -c "ip netns exec $NS $NLT del inet box &&
	ip netns exec $NS $NLT del bridge box"
ns "$NLT" list inet box >"$T/gone"
grep -q absent "$T/gone" && ok "our inet table is gone" || bad "our inet table is gone" "$T/gone"
check "deleting an absent table is fine" ns "$NLT" del inet box
ns nft list ruleset >"$T/left"
same "only the unrelated table is left, byte for byte" "$T/other.before" "$T/left"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
