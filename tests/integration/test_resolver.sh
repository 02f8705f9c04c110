#!/bin/sh
# box's own resolver (issue 23), from inside real boxes, each probe with
# its control.  The upstream is a dnsmasq of the test's own in the
# drill's "internet" namespace ($W_OTHER:53, every query logged), the
# stack is built with BOX_DNS = it; three busybox boxes: a (allow:
# allowed.test), b and c (open).  Probes run in a box's own network
# namespace (nsenter into its init's, so the source address and MAC are
# the box's: what the resolver keys on) with tests/integration/dnsq.py,
# or with the box's own busybox nslookup where a verdict needs no more.
#   0. the controls on Incus's dnsmasq (what the issue saw): c sees the
#      TTL b left in the shared cache and the upstream is asked once;
#      CH version.bind answers;
#   1. dnsmasq's DNS off (raw.dnsmasq port=0), `box resolver run` on the
#      gateway: a resolves allowed.test and nothing else: another name
#      gets NXDOMAIN with an EDE (15, Blocked) whose text names
#      `box egress <a> allow <name>`, and the upstream never sees it; b
#      resolves it; no box's name; no CH class (version.bind,
#      servers.bind); dnsmasq does not answer on :53;
#   2. no cache: c sees the upstream's TTL for b's name, asked twice;
#   3. a budget per box: b's median lookup latency during c's UDP flood
#      of never-answered names and during c's hold of 40 TCP connections
#      stays within 2x its idle median;
#   4. the defences removed (--no-view; --qps 0 --inflight 1024 --tcp
#      256): a's name reaches the upstream, a bare box name too; the flood
#      and a 300-connection hold take b's lookups down.
# Changes the shared stack (setup-host, raw.dnsmasq): run it under the
# stack lock.  Leaves the stack as BOX_DNS=127.0.0.1 box setup-host does.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/drill/world.sh

P=${IT_RESOLVER_PREFIX:-boxit-rs-}
IT_PREFIX=$P
T=/tmp/$P-work
Q=tests/integration/dnsq.py
RSV_PID=
UP_PID=

stop_pid() { [ -n "$1" ] && kill "$1" 2>/dev/null && sleep 0.2; :; }
restore_stack()
{
	stop_pid "$RSV_PID"
	stop_pid "$UP_PID"
	cleanup_prefix $P >/dev/null 2>&1
	world_down
	BOX_DNS=127.0.0.1 $BOX setup-host >/dev/null 2>&1 ||
	    echo "# WARNING: restoring the stack failed: BOX_DNS=127.0.0.1 $BOX setup-host"
	rm -rf "$T"
}
[ "$(id -u)" = 0 ] || { fail "needs root"; summary; }
command -v nsenter >/dev/null || { fail "nsenter missing"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap 'restore_stack' EXIT INT TERM
rm -rf "$T"; mkdir -p "$T"
world_up || { fail "the world did not come up"; summary; }

# The upstream: every query logged; names under test answered with TTL 300.
UPLOG=$T/up.log
setsid ip netns exec $W_NS_INET dnsmasq --keep-in-foreground \
    --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
    --listen-address=$W_OTHER --pid-file= --log-queries \
    --log-facility="$UPLOG" --local-ttl=300 --cache-size=0 \
    --address=/allowed.test/$W_INET --address=/outside.test/$W_ROT \
    --address=/fast.test/$W_INET --address=/ttl.test/$W_INET \
    --server=/slow.test/203.0.113.99 --local=/test/ </dev/null \
    >"$T/up.out" 2>&1 &
UP_PID=$!
ip -n $W_NS_INET route add unreachable 203.0.113.99/32 2>/dev/null
i=0
until [ "$(python3 $Q q $W_OTHER allowed.test)" = "rcode 0 ttl 300 addrs $W_INET ede -" ]; do
	i=$((i + 1)); [ $i -lt 50 ] || { fail "the upstream does not answer"; summary; }
	sleep 0.1
done
seen() { grep -c "query\[[A-Z]*\] $1 from" "$UPLOG"; }

out=$(BOX_DNS=$W_OTHER $BOX setup-host 2>&1) || { fail "setup-host: $out"; summary; }
GW=$(api GET /1.0/networks/boxnet | json "j['metadata']['config']['ipv4.address'].split('/')[0]")
run 0 "ready" "mint ${P}a with --egress allow:allowed.test" -- \
    new --name ${P}a --image box-test-busybox --egress allow:allowed.test
run 0 "ready" "mint ${P}b (open)" -- new --name ${P}b --image box-test-busybox
run 0 "ready" "mint ${P}c (open)" -- new --name ${P}c --image box-test-busybox
for b in a b c; do wait_ipv4 $P$b 60 >/dev/null || fail "$P$b has no address"; done

pid_of() { api GET "/1.0/instances/$1/state" | json "j['metadata']['pid']"; }
PA=$(pid_of ${P}a) PB=$(pid_of ${P}b) PC=$(pid_of ${P}c)
# in PID CMD...: CMD in the box's network namespace
inns() { _p=$1; shift; nsenter -t "$_p" -n "$@"; }
q() { _p=$1; shift; inns "$_p" python3 $Q q "$GW" "$@"; }
field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# --- 0. the controls: Incus's dnsmasq serves DNS ------------------------------
r=$(q $PB ttl1.ttl.test)
sleep 2
r2=$(q $PC ttl1.ttl.test)
t=$(field "$r2" ttl)
[ -n "$t" ] && [ "$t" != - ] && [ "$t" -lt 300 ] && [ "$(seen ttl1.ttl.test)" = 1 ] &&
    ok "control: through dnsmasq c sees the TTL b left ($t) and the upstream was asked once" ||
    fail "control: through dnsmasq: b '$r', c '$r2', upstream asked $(seen ttl1.ttl.test)"
expect_eq "$(field "$(q $PB version.bind TXT CH)" rcode)" 0 "control: dnsmasq answers CH version.bind"

# --- 1. the switch ---------------------------------------------------------------
raw=$(api GET /1.0/networks/boxnet | json "j['metadata']['config']['raw.dnsmasq']")
body=$(python3 -c 'import json,sys; print(json.dumps({"config": {"raw.dnsmasq": sys.argv[1] + "\nport=0"}}))' "$raw")
api_wait PATCH /1.0/networks/boxnet "$body" >/dev/null || fail "raw.dnsmasq port=0"
i=0
while [ "$(field "$(q $PB fast.test)" rcode)" = 0 ]; do
	i=$((i + 1)); [ $i -lt 50 ] || break; sleep 0.2
done
expect_contains "$(q $PB fast.test)" "none" "with port=0 nothing answers DNS on the gateway"

start_rsv() {
	stop_pid "$RSV_PID"
	setsid $BOX resolver run --listen "$GW" --upstream "$W_OTHER" "$@" \
	    </dev/null >>"$T/rsv.log" 2>&1 &
	RSV_PID=$!
	_i=0
	until [ "$(field "$(q $PB fast.test)" rcode)" = 0 ]; do
		_i=$((_i + 1)); [ $_i -lt 50 ] || { fail "the resolver does not answer ($*)"; return 1; }
		sleep 0.1
	done
}
start_rsv

r=$(q $PA allowed.test)
expect_eq "$r" "rcode 0 ttl 300 addrs $W_INET ede -" "a resolves allowed.test"
r=$(q $PA ok1.allowed.test)
expect_eq "$(field "$r" rcode)" 0 "a resolves a name under allowed.test"
r=$(q $PA 726f6f74.exfil.outside.test TXT)
expect_eq "$(field "$r" rcode)" 3 "a: a name off its list gets NXDOMAIN"
expect_contains "$r" "ede 15 box ${P}a may resolve only its egress allowlist; 726f6f74.exfil.outside.test is not on it: ask for \`box egress ${P}a allow 726f6f74.exfil.outside.test\`" \
    "a: ...with an EDE (15, Blocked) saying what to ask for"
expect_eq "$(seen 726f6f74.exfil.outside.test)" 0 "a: the upstream never saw that name"
r=$(q $PA outside.test A IN tcp)
expect_eq "$(field "$r" rcode) $(seen outside.test)" "3 0" "a: over TCP too (the upstream never saw outside.test)"
r=$($BOX exec ${P}a -- sh -c "timeout 5 nslookup outside.test $GW" 2>&1)
case $r in *"$W_ROT"*) fail "a's own nslookup resolved outside.test: $r" ;;
*) ok "a's own nslookup gets no address for outside.test" ;; esac
expect_contains "$(grep "name=outside.test" "$T/rsv.log")" "refused box=${P}a" "the refusal is logged with the name asked"
r=$(q $PB outside.test)
expect_eq "$r" "rcode 0 ttl 300 addrs $W_ROT ede -" "b (open) resolves outside.test"
expect_eq "$(field "$(q $PB ${P}a)" rcode) $(seen ${P}a)" "3 0" "b: a sibling's name: NXDOMAIN, never asked upstream"
for n in version.bind servers.bind; do
	expect_eq "$(field "$(q $PB $n TXT CH)" rcode) $(field "$(q $PA $n TXT CH)" rcode)" "5 5" "no CH answers: $n refused (b, a)"
done
expect_eq "$(field "$(q $PB ptr.1.0.168.192.in-addr.arpa PTR)" rcode)" 3 "no private reverse names"

# --- 2. no cache --------------------------------------------------------------------
q $PB ttl2.ttl.test >/dev/null
sleep 2
r=$(q $PC ttl2.ttl.test)
expect_eq "$(field "$r" ttl) $(seen ttl2.ttl.test)" "300 2" "no cache: c sees the upstream's TTL for b's name, asked again"

# --- 3. budgets ---------------------------------------------------------------------
lat() { inns "$PB" python3 $Q lat "$GW" "$1" 40 | awk '{ print $2 }'; }
# x2 M BASE: 1 when M <= 2 * BASE (milliseconds, fractional)
x2() { awk -v m="$1" -v b="$2" 'BEGIN { print (m <= 2 * b) ? 1 : 0 }'; }
idle=$(lat "i%d.fast.test")
echo "# b's idle median: $idle ms"
inns "$PC" python3 $Q flood "$GW" "f%d.slow.test" 8 >"$T/flood.out" 2>&1 &
fp=$!
sleep 1
during=$(lat "u%d.fast.test")
wait $fp
echo "# b's median during c's UDP flood ($(cat "$T/flood.out") queries in 8 s): $during ms"
expect_eq "$(x2 "$during" "$idle")" 1 "b's lookups during c's UDP flood: median $during ms within 2x idle $idle ms"
tcp_lat() { inns "$PB" python3 $Q lat "$GW" "$1" 20 tcp | awk '{ print $2 }'; }
tidle=$(tcp_lat "t%d.idle.fast.test")
inns "$PC" python3 $Q hold "$GW" 40 8 >"$T/hold.out" 2>&1 &
hp=$!
sleep 1
r=$(q $PB held.fast.test A IN tcp)
thold=$(tcp_lat "t%d.hold.fast.test")
wait $hp
echo "# b's TCP lookups (a connection each): idle median $tidle ms, during c's hold of 40 ($(cat "$T/hold.out")): $thold ms"
expect_eq "$(field "$r" rcode)" 0 "b resolves over TCP while c holds 40 connections"
expect_eq "$(x2 "$thold" "$tidle")" 1 "b's TCP lookups during the hold within 2x idle"

# --- 4. the defences removed ----------------------------------------------------------
start_rsv --no-view
r=$(q $PA 6b6579.exfil.outside.test TXT)
expect_eq "$(seen 6b6579.exfil.outside.test)" 1 "negative control (--no-view): a's name reaches the upstream"
q $PB ${P}a >/dev/null
expect_eq "$(seen ${P}a)" 1 "negative control (--no-view): a bare box name reaches the upstream"
start_rsv --qps 0 --inflight 1024 --tcp 256
inns "$PC" python3 $Q flood "$GW" "g%d.slow.test" 6 >"$T/flood2.out" 2>&1 &
fp=$!
sleep 1.5
during=$(lat "v%d.fast.test")
wait $fp
echo "# without the budget, b's median during c's flood: $during ms"
expect_eq "$(x2 "$during" "$idle")" 0 "negative control (no budget): c's flood takes b's lookups down ($during ms)"
sleep 2.5
inns "$PC" python3 $Q hold "$GW" 300 6 >"$T/hold2.out" 2>&1 &
hp=$!
sleep 2
r=$(q $PB held2.fast.test A IN tcp)
wait $hp
expect_contains "$r" "none" "negative control (no budget): c's 300 connections take b's TCP down"

summary
