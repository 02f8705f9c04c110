#!/bin/sh
# Refused fast, and said so (issue 38), in the drill's hermetic world
# (tests/drill/world.sh: probe.test -> 203.0.113.10, other.test ->
# 203.0.113.20, a listener on :80 of each; the LAN 192.168.77.10), on the
# real stack built with BOX_DNS = the world's resolver, with a busybox box
# whose policy is allow:probe.test:
#   1. a connection its policy refuses fails at once: busybox wget and nc
#      in the box, the host's curl and python3 in the box's network
#      namespace (nsenter -n: the box's own interface, route and firewall)
#      each fail in under 100 ms (curl: "connection refused"; a UDP send
#      and ICMP echo get ICMP admin-prohibited); the control: the two
#      refusing rules turned back into a silent drop (by handle, nothing
#      else touched) and the same calls take their full timeout;
#   2. the contract's own drops stay silent: the LAN, the host at the
#      gateway, an open sibling, each a timeout for the same curl;
#   3. the refusals are counted: the refusing rules' counters move,
#      box egress --log names the destination, and box list marks the box
#      "(2 refused)" (the control: no marker before, none on the open
#      sibling).
# Changes the shared stack: run it under the stack lock.  Leaves the stack
# as BOX_DNS=127.0.0.1 box setup-host does.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/drill/world.sh

P=${IT_REFUSE_PREFIX:-h38-rf-}
IT_PREFIX=$P
TO=3		# the clients' timeout (s)

restore_stack()
{
	cleanup_prefix $P >/dev/null 2>&1
	world_down
	BOX_DNS=127.0.0.1 $BOX setup-host >/dev/null 2>&1 ||
	    echo "# WARNING: restoring the stack failed: BOX_DNS=127.0.0.1 $BOX setup-host"
}
[ "$(id -u)" = 0 ] || { fail "needs root"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
command -v curl >/dev/null || { fail "no curl on the host"; summary; }
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap 'restore_stack' EXIT INT TERM
world_up || { fail "the world did not come up"; summary; }
out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { fail "setup-host: $out"; summary; }

ms() { echo $(($(date +%s%N) / 1000000)); }
inbox() { $BOX exec "$1" -- sh -c "$2" </dev/null 2>/dev/null; }
pid_of() { api GET "/1.0/instances/$1/state" | json "j['metadata']['pid']"; }
# innet BOX CMD...: a host program in the box's network namespace
innet() { _p=$1; shift; nsenter -t "$_p" -n "$@"; }

# curl_ms PID URL: "<ms> <curl's exit>" for one GET with the timeout, by
# curl's own clock (its time_total)
curl_ms()
{
	_s=$(innet "$1" curl -s -o /dev/null -w '%{time_total}' --max-time $TO "$2" 2>/dev/null)
	_rc=$?
	echo "$(echo "$_s" | awk '{printf "%d", $1 * 1000}') $_rc"
}
# py_ms PID KIND ADDR PORT: "<ms> <what python saw>"
py_ms()
{
	innet "$1" python3 - "$2" "$3" "$4" "$TO" <<'PY'
import socket, sys, time
kind, addr, port, to = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
t = time.monotonic()
try:
    if kind == "tcp":
        s = socket.create_connection((addr, port), timeout=to)
        what = "connected"
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(to)
        s.connect((addr, port))
        s.send(b"x")
        s.recv(1)
        what = "answered"
except socket.timeout:
    what = "timeout"
except OSError as e:
    what = e.strerror or str(e)
print("%d %s" % ((time.monotonic() - t) * 1000, what.replace(" ", "_")))
PY
}
# box_ms BOX CMD: the milliseconds CMD took inside the box, by busybox's
# own time (10 ms steps)
box_ms()
{
	$BOX exec "$1" -- sh -c "time sh -c '$2 >/dev/null 2>&1'" </dev/null 2>&1 |
	    sed -n 's/^real[ \t]*\([0-9]*\)m \([0-9]*\)\.\([0-9]*\)s$/\1 \2 \3/p' |
	    awk '{print ($1 * 60 + $2) * 1000 + $3 * 10}'
}
fast() { [ -n "$1" ] && [ "$1" -lt 100 ]; }
slow() { [ -n "$1" ] && [ "$1" -ge $((TO * 1000 - 200)) ]; }

run 0 "ready" "mint ${P}a with --egress allow:$W_PROBE_NAME" -- \
    new --name ${P}a --image box-test-busybox --egress allow:$W_PROBE_NAME
run 0 "ready" "mint ${P}b, open (a sibling)" -- \
    new --name ${P}b --image box-test-busybox
PA=$(pid_of ${P}a)
BIP=$(api GET "/1.0/instances/${P}b/state" |
    json "[a['address'] for a in j['metadata']['network']['eth0']['addresses'] if a['family'] == 'inet'][0]")
[ -n "$PA" ] && [ "$PA" != 0 ] || { fail "no pid for ${P}a"; summary; }
# the setup took: the allowed name connects (through the same namespace)
# (by address: the host's curl reads the host's resolv.conf)
r=$(curl_ms $PA "http://$W_INET/")
case $r in
*" 0") ok "setup: ${P}a reaches $W_PROBE_NAME's $W_INET (curl in its namespace, $r)" ;;
*) fail "setup: ${P}a does not reach $W_INET: $r (pid $PA)"; summary ;;
esac
# box list's marker (issue 38): the row of a box, its EGRESS cell onwards
row() { $BOX list 2>/dev/null | awk -v b="$1" '$1 == b'; }
# the control: nothing refused yet, no marker (the same check as below)
case $(row ${P}a) in
*refused*) fail "box list marks ${P}a before anything was refused: $(row ${P}a)" ;;
"") fail "box list has no row for ${P}a" ;;
*) ok "box list: no marker while nothing is refused ($(row ${P}a | awk '{print $NF}'))" ;;
esac
GW=$(ip -4 -o addr show boxnet | sed -n 's|.* inet \([0-9.]*\)/.*|\1|p' | head -1)
MAC=$(nft list chain inet box egress | grep -m1 "box ${P}a: " |
    sed -n 's/.*ether saddr \([0-9a-f:]*\) .*/\1/p')

# --- 1. refused at once --------------------------------------------------
r=$(curl_ms $PA "http://$W_OTHER/"); set -- $r
echo "# curl to a refused address: $1 ms (exit $2)"
fast "$1" && [ "$2" = 7 ] && ok "curl: refused in $1 ms, exit 7 (could not connect)" ||
    fail "curl to $W_OTHER: $r (wanted < 100 ms, exit 7)"
cf=$1
r=$(py_ms $PA tcp $W_OTHER 80); set -- $r
fast "$1" && [ "$2" = Connection_refused ] && ok "python3 connect: $2 in $1 ms" ||
    fail "python3 connect to $W_OTHER:80: $r"
r=$(py_ms $PA udp $W_OTHER 9); set -- $r
fast "$1" && [ "$2" = No_route_to_host ] &&
    ok "python3 UDP: ICMP admin-prohibited (No route to host) in $1 ms" ||
    fail "python3 UDP to $W_OTHER:9: $r"
WGET="timeout $TO wget -q -O /dev/null http://$W_OTHER/"
NC="nc -w $TO $W_OTHER 80 </dev/null"
t=$(box_ms ${P}a "$WGET"); m=$(inbox ${P}a "$WGET 2>&1")
fast "$t" && expect_contains "$m" "refused" "busybox wget in the box: refused in about $t ms ($m)" ||
    fail "busybox wget in the box took $t ms: $m"
t=$(box_ms ${P}a "$NC"); m=$(inbox ${P}a "$NC 2>&1")
fast "$t" && expect_contains "$m" "refused" "busybox nc in the box: refused in about $t ms ($m)" ||
    fail "busybox nc in the box took $t ms: $m"

# --- 3. counted and logged -------------------------------------------------
cnt() { nft -a list chain inet box egress | grep "box ${P}a: refused" |
    sed -n 's/.*packets \([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}'; }
[ "$(cnt)" -gt 0 ] && ok "the refusing rules counted $(cnt) packets" ||
    fail "the refusing rules counted nothing: $(nft -a list chain inet box egress)"
expect_contains "$($BOX egress ${P}a --log 2>&1)" "$W_OTHER" "box egress --log names $W_OTHER"
# two destinations were refused above: $W_OTHER tcp/80 and udp/9
case $(row ${P}a) in
*"allow:$W_PROBE_NAME (2 refused)"*) ok "box list marks ${P}a: 2 refused destinations ($W_OTHER tcp/80, udp/9)" ;;
*) fail "box list's row for ${P}a has no '(2 refused)': $(row ${P}a); the log: $($BOX egress ${P}a --log 2>&1)" ;;
esac
case $(row ${P}b) in
*refused*) fail "box list marks the open sibling: $(row ${P}b)" ;;
?*) ok "box list: the open sibling unmarked" ;;
*) fail "box list has no row for ${P}b" ;;
esac

# --- 2. the contract's own drops stay silent ------------------------------
r=$(curl_ms $PA "http://$W_LAN/"); set -- $r
slow "$1" && ok "the LAN ($W_LAN): silent, curl waited $1 ms" ||
    fail "the LAN answered: $r"
r=$(curl_ms $PA "http://$GW:$W_HOST_PORT/"); set -- $r
slow "$1" && ok "the host at the gateway: silent, curl waited $1 ms" ||
    fail "the host answered: $r"
if [ -n "$BIP" ]; then
	r=$(curl_ms $PA "http://$BIP:80/"); set -- $r
	slow "$1" && ok "the sibling $BIP: silent, curl waited $1 ms" ||
	    fail "the sibling answered: $r"
else
	fail "no address for ${P}b"
fi

# --- 1'. the control: the refusing rules made a silent drop ---------------
# Each refusing rule of ${P}a replaced in place by the same match with a
# drop (nft by handle): the chain otherwise as box made it.
nft -a list chain inet box egress | grep "box ${P}a: refused" |
    sed -n 's/.*# handle \([0-9]*\)$/\1/p' >/tmp/${P}h
n=0
while read -r h; do
	nft replace rule inet box egress handle "$h" ether saddr "$MAC" \
	    counter drop comment "\"control\"" && n=$((n + 1))
done </tmp/${P}h
rm -f /tmp/${P}h
[ $n = 2 ] && ok "control: the two refusing rules made drops" ||
    fail "control: replaced $n rules, not 2"
r=$(curl_ms $PA "http://$W_OTHER/"); set -- $r
echo "# curl to a refused address, silent drop: $1 ms (before: $cf ms)"
slow "$1" && [ "$2" = 28 ] && ok "control: curl waits its full timeout ($1 ms, exit 28)" ||
    fail "control: curl without the reject rules: $r"
r=$(py_ms $PA tcp $W_OTHER 80); set -- $r
slow "$1" && [ "$2" = timeout ] && ok "control: python3 connect times out ($1 ms)" ||
    fail "control: python3 connect: $r"
t=$(box_ms ${P}a "$WGET")
slow "$t" && ok "control: busybox wget waits for its timeout ($t ms)" ||
    fail "control: busybox wget took $t ms"
t=$(box_ms ${P}a "$NC")
slow "$t" && ok "control: busybox nc waits for its timeout ($t ms)" ||
    fail "control: busybox nc took $t ms"
$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring)"
r=$(curl_ms $PA "http://$W_OTHER/"); set -- $r
fast "$1" && ok "firewall apply puts the reject back: refused in $1 ms" ||
    fail "after firewall apply: $r"
summary
