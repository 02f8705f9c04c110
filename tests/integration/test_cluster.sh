#!/bin/sh
# test_cluster.sh - box on a real 3-member Incus cluster (ci/cluster.sh: three
# incusd in network namespaces, their LAN 172.30.26.0/24, an internet
# namespace per member on 203.0.113.x/30, no default route anywhere).
#
#   setup-host on each member: shared objects once, each member's own
#     kernel layers, then group 'box' (read back)
#   grant on a member: refused before anything changes (incus-user cannot
#     serve a clustered daemon: its STARTTLS pin is cluster.crt, the
#     socket presents server.crt; the fingerprints are compared)
#   placement: new lands only on group members; --target pins one and is
#     refused for a member outside the group; LOCATION / location
#   the contract from inside a box on every member: the internet (its
#     member's namespace) reachable; another member, its own member's LAN
#     address and a sibling on the same member not; a sibling on another
#     member not (separate segments: a fact, not a defence)
#   control: member m2's table inet box removed -> the same probes from
#     m2's box connect; doctor on m2 names it, m2 leaves the group and new
#     boxes avoid it; doctor --fix puts the firewall back and rejoins
#   a member down (its daemon killed): list answers within BOX_IO_TIMEOUT
#     naming the member, exec into its box says so (exit 1), new lands on
#     a live member
#   teardown-host on a member: its kernel layers and membership go
#
# The cluster is this script's own: it takes /run/box-cluster.lock (not
# the host's lock: nothing here touches the host's daemon or stack).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

exec 9>/run/box-cluster.lock
flock -w 600 9 || { echo "test_cluster: /run/box-cluster.lock busy"; exit 1; }

BOXB=$(pwd)/box
CL="sh ci/cluster.sh"
T0=$(date +%s%3N)
export BOX_IO_TIMEOUT=${BOX_IO_TIMEOUT:-10}
# as N ARGS...: box as member N (its namespaces, its socket); the pinned
# upstreams are its internet namespace's address (nothing else exists)
PUB=203.0.113.200
as() { _n=$1; shift; BOX_DNS=$PUB BOX_IMAGE=box-test-busybox \
    BOX_DOCTOR_PROBE_ADDR=$PUB:8080 BOX_DOCTOR_PROBE_NAME=probe.box.test \
    $CL exec "$_n" "$BOXB" "$@"; }
inc() { _n=$1; shift; $CL exec "$_n" timeout 20 incus "$@"; }
# probe N BOX HOST PORT: exit 0 when BOX (on member N) connects
probe() { as "$1" exec "$2" -- nc -w 2 "$3" "$4" </dev/null >/dev/null 2>&1; }
# addr N BOX: BOX's IPv4 address, waited for (20 s)
addr()
{
	_e=$(($(date +%s) + 20))
	while :; do
		_a=$(as "$1" exec "$2" -- ip -4 -o addr show eth0 2>/dev/null |
		    sed -n 's/.*inet \([0-9.]*\).*/\1/p')
		[ -n "$_a" ] && { echo "$_a"; return 0; }
		[ "$(date +%s)" -lt "$_e" ] || return 1
		sleep 0.3
	done
}
inet() { echo "$PUB"; }
lan() { echo "172.30.26.1$1"; }
LISTENERS=""

cleanup()
{
	for p in $LISTENERS; do kill "$p" 2>/dev/null; done
	$CL down >/dev/null 2>&1
	id bxcg1 >/dev/null 2>&1 && userdel -r bxcg1 >/dev/null 2>&1
}
trap cleanup EXIT INT TERM

[ -x "$BOXB" ] || { fail "no ./box (run make)"; summary; }
$CL down >/dev/null 2>&1
if ! out=$($CL up 2>&1); then
	printf '%s\n' "$out"
	fail "cluster bring-up"
	summary
fi
printf '%s\n' "$out" | sed 's/^/  /'
T1=$(date +%s%3N)
ok "cluster up: 3 members ONLINE in $((T1 - T0)) ms"

# each internet namespace: a listener (TCP 8080) and the upstream resolver
# (probe.box.test and nothing else) on the one public address
for i in 1 2 3; do
	ip netns exec h26i$i python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 8080)); s.listen(16)
while True:
	c, _ = s.accept(); c.close()' "$PUB" &
	LISTENERS="$LISTENERS $!"
	# and one on the member's public face (192.0.2.1N:8080)
	ip netns exec h26m$i python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 8080)); s.listen(16)
while True:
	c, _ = s.accept(); c.close()' "192.0.2.1$i" &
	LISTENERS="$LISTENERS $!"
	ip netns exec h26i$i dnsmasq --keep-in-foreground --conf-file=/dev/null \
	    --no-resolv --no-hosts --bind-interfaces --listen-address=$PUB \
	    --pid-file= --address=/probe.box.test/$PUB --address=/#/ 2>/dev/null &
	LISTENERS="$LISTENERS $!"
done

# --- setup-host on each member ----------------------------------------------
for i in 1 2 3; do
	out=$(as $i setup-host --pool default 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "member m$i is in group box (read back)"; then
		ok "setup-host on m$i: kernel layers read back, joined group box"
	else
		printf '%s\n' "$out" | sed 's/^/  | /'
		fail "setup-host on m$i (exit $rc)"
	fi
done
for i in 1 2 3; do
	n=$($CL exec $i nft list table inet box 2>/dev/null | grep -c "box: ")
	[ "$n" -gt 0 ] && ok "m$i's own kernel holds table inet box ($n box rules)" ||
	    fail "m$i's kernel has no table inet box"
done
expect_eq "$(inc 1 cluster group show box | sed -n 's/^- //p' | tr '\n' ' ')" "m1 m2 m3 " \
    "group box holds the three members"
for i in 1 2 3; do
	dm=0
	for p in $(ip netns pids h26m$i); do
		tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -q "^dnsmasq .*--interface=boxnet" && dm=$p
	done
	[ "$dm" != 0 ] && ok "m$i's own dnsmasq serves its boxnet (pid $dm)" ||
	    { fail "no dnsmasq for boxnet in m$i"; tail -5 /var/lib/incus-m$i/incusd.log | sed 's/^/  | /'; }
done
expect_eq "$(inc 2 network list -f csv | grep -c '^boxnet,bridge,YES,10.88.0.1/24')" 1 \
    "one boxnet, defined once for the cluster"
nft list table inet box 2>/dev/null | grep -q "172.30.26" &&
    fail "the host's own firewall names the cluster's LAN" ||
    ok "the host's own stack is not touched (no cluster address in its table inet box)"

# --- grant on a cluster: refused, nothing changed, and why ----------------------
# incus-user (Incus 6.0.4) reaches the daemon's unix socket by STARTTLS and
# pins cluster.crt when the member has one; the socket presents the
# member's own server.crt, so no request of a user it serves gets through.
# box grant says so before it changes anything (standalone, test_grant.sh
# grants the same way: there the socket presents server.crt, the pin).
id bxcg1 >/dev/null 2>&1 && userdel -r bxcg1 >/dev/null 2>&1
useradd -m -s /bin/sh bxcg1 || fail "useradd bxcg1"
GU=$(id -u bxcg1)
out=$(as 1 grant bxcg1 --accept-daemon-risk 2>&1); rc=$?
expect_eq "$rc" 1 "grant bxcg1 on cluster member m1: refused"
expect_contains "$out" "incus-user cannot serve a user of a cluster" "  naming incus-user's limit"
getent group incus | cut -d: -f4 | tr ',' '\n' | grep -qx bxcg1 &&
    fail "  bxcg1 was put into 'incus'" || ok "  bxcg1 is not in 'incus' (group database)"
# the lists are live (default and boxnet in them), and hold neither
pl=$(inc 1 project list -f csv -c n) nl=$(inc 1 network list -f csv)
expect_eq "$(echo "$pl" | grep -c '^default')$(echo "$pl" | grep -c "^user-$GU\$")/$(echo "$nl" | grep -c '^boxnet,')$(echo "$nl" | grep -c "^incusbr-$GU,")" \
    "10/10" "  no project user-$GU, no bridge incusbr-$GU (beside default and boxnet)"
fp() { python3 -c 'import hashlib, ssl, sys
print(hashlib.sha256(ssl.PEM_cert_to_DER_cert(open(sys.argv[1]).read())).hexdigest())' "/var/lib/incus-m1/$1"; }
got=$($CL exec 1 timeout 10 python3 -c '
import socket, ssl, hashlib
s = socket.socket(socket.AF_UNIX); s.settimeout(5)
s.connect("/var/lib/incus-m1/unix.socket"); s.sendall(b"STARTTLS\n")
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
print(hashlib.sha256(ctx.wrap_socket(s).getpeercert(binary_form=True)).hexdigest())' 2>&1)
expect_eq "$got" "$(fp server.crt)" "  the why: m1's socket presents its server.crt on STARTTLS"
[ -n "$got" ] && [ "$got" != "$(fp cluster.crt)" ] &&
    ok "  which is not cluster.crt, the certificate incus-user pins on a member" ||
    fail "  the socket presents cluster.crt ($got): incus-user could serve users here, the refusal is stale"
userdel -r bxcg1 >/dev/null 2>&1

# --- placement ----------------------------------------------------------------
for i in 1 2 3; do
	out=$(as 1 new --name bxc-p$i --target m$i 2>&1) ||
	    { printf '%s\n' "$out" | sed 's/^/  | /'; fail "new --target m$i"; }
done
out=$(as 1 new --name bxc-s1 --target m1 2>&1) || fail "new bxc-s1 --target m1: $out"
for i in 1 2 3; do
	loc=$(as 2 list --json | python3 -c "import json,sys; print([b.get('location') for b in json.load(sys.stdin) if b['name']=='bxc-p$i'])")
	expect_eq "$loc" "['m$i']" "bxc-p$i is on m$i (list --json location, asked from m2)"
done
as 3 list | grep -q "^NAME .*LOCATION" && ok "list shows a LOCATION column on a cluster" ||
    fail "no LOCATION column"
out=$(as 1 new --name bxc-x --target m9 2>&1); rc=$?
expect_eq "$rc" 2 "new --target of no member is a usage error"

# --- the contract from inside each member's box ------------------------------
for i in 1 2 3; do
	other=$((i % 3 + 1))
	addr $i bxc-p$i >/dev/null || fail "bxc-p$i has no address after 20 s"
	probe $i bxc-p$i "$(inet $i)" 8080 && ok "m$i box -> its internet $(inet $i):8080 connects" ||
	    fail "m$i box cannot reach its internet"
	probe $i bxc-p$i "$(lan $other)" 8443 && fail "m$i box -> member m$other $(lan $other):8443 connects" ||
	    ok "m$i box -> another member (m$other $(lan $other):8443) refused"
	probe $i bxc-p$i "$(lan $i)" 8443 && fail "m$i box -> its own member's LAN address connects" ||
	    ok "m$i box -> its own member (m$i $(lan $i):8443) refused"
	probe $i bxc-p$i 192.0.2.1$i 8080 && fail "m$i box -> its own member's public face connects" ||
	    ok "m$i box -> its own member's public face (192.0.2.1$i:8080, listening) refused"
done
s1=$(addr 1 bxc-s1)
as 1 exec bxc-s1 -- sh -c 'nc -ll -p 7000 -e true </dev/null >/dev/null 2>&1 &' >/dev/null 2>&1
if [ -n "$s1" ] && probe 1 bxc-s1 127.0.0.1 7000; then
	probe 1 bxc-p1 "$s1" 7000 && fail "sibling on the same member ($s1:7000) reachable" ||
	    ok "m1 box -> a sibling on the same member ($s1:7000, listening) refused"
else
	fail "the sibling's listener (bxc-s1 $s1:7000) is not up"
fi
p2=$(addr 2 bxc-p2)
as 2 exec bxc-p2 -- sh -c 'nc -ll -p 7000 -e true </dev/null >/dev/null 2>&1 &' >/dev/null 2>&1
probe 1 bxc-p1 "$p2" 7000 && fail "m1 box reached m2's box" ||
    ok "m1 box -> a box on m2 ($p2:7000) does not connect (separate segments per member; no overlay: a fact, not a defence)"

# --- control: m2's firewall removed -------------------------------------------
$CL exec 2 nft delete table inet box
probe 2 bxc-p2 192.0.2.12 8080 && ok "control: without m2's table inet box, m2 box -> its member's public face 192.0.2.12:8080 connects" ||
    fail "control: m2 box still cannot reach its member with the firewall gone (the probe cannot fail)"
out=$(as 2 doctor 2>&1); rc=$?
printf '%s\n' "$out" | grep -q "FAIL.*m2 left cluster group box" &&
    ok "doctor on m2 names its firewall and m2 leaves group box (exit $rc)" ||
    { printf '%s\n' "$out" | grep -E "FAIL|cluster" | sed 's/^/  | /'; fail "doctor on m2 did not take it out of the group"; }
expect_eq "$(inc 1 cluster group show box | sed -n 's/^- //p' | tr '\n' ' ')" "m1 m3 " \
    "group box: m2 gone"
landed=""
for k in 1 2 3; do
	as 1 new --name bxc-n$k >/dev/null 2>&1 || fail "new bxc-n$k"
	landed="$landed $(inc 1 list bxc-n$k -f csv -c L)"
done
case $landed in
*m2*) fail "a new box landed on m2 without its firewall:$landed" ;;
*) ok "3 new boxes avoid m2:$landed" ;;
esac
out=$(as 1 new --name bxc-x --target m2 2>&1); rc=$?
expect_eq "$rc" 1 "new --target m2 (not in the group) is refused"
expect_contains "$out" "does not hold box's host contract" "the refusal says why"
out=$(as 2 doctor --fix 2>&1); rc=$?
expect_eq "$rc" 0 "doctor --fix on m2 (exit)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -E "^(FAIL|WARN)" | sed 's/^/  | /'
expect_eq "$(inc 1 cluster group show box | sed -n 's/^- //p' | sort | tr '\n' ' ')" "m1 m2 m3 " \
    "doctor --fix put m2 back into group box"
probe 2 bxc-p2 192.0.2.12 8080 && fail "after doctor --fix, m2 box -> its member still connects" ||
    ok "after doctor --fix, m2 box -> its member's public face 192.0.2.12:8080 refused again"
# another member's private LAN address is held twice: by the ACL (shared;
# Incus puts its rules into each member's kernel, chain acl.boxnet) and by
# the firewall: the control takes both out of m2's kernel
$CL exec 2 nft delete table inet box
$CL exec 2 nft flush chain inet incus acl.boxnet
probe 2 bxc-p2 "$(lan 1)" 8443 && ok "control: without m2's firewall and ACL rules, m2 box -> m1 $(lan 1):8443 connects" ||
    fail "control: m2 box cannot reach m1 even with its firewall and ACL rules gone (the probe cannot fail)"
as 2 firewall apply >/dev/null 2>&1
probe 2 bxc-p2 "$(lan 1)" 8443 && fail "firewall back (ACL rules still out): m2 box -> m1 connects" ||
    ok "the firewall alone holds: m2 box -> m1 $(lan 1):8443 refused with m2's ACL rules still out"

# --- move between members --------------------------------------------------------
mac0=$(inc 1 config get bxc-s1 volatile.eth0.hwaddr)
out=$(as 1 move bxc-s1 --target m3 2>&1); rc=$?
expect_eq "$rc" 1 "move of a running box is refused"
as 1 down bxc-s1 >/dev/null 2>&1
out=$(as 1 move bxc-s1 --target m3 2>&1); rc=$?
expect_eq "$rc" 0 "move bxc-s1 --target m3 (stopped)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -3 | sed 's/^/  | /'
expect_eq "$(inc 1 list bxc-s1 -f csv -c L)" m3 "bxc-s1 is on m3 now"
expect_eq "$(inc 1 config get bxc-s1 volatile.eth0.hwaddr)" "$mac0" "its MAC (its identity) is kept"
expect_eq "$(inc 1 config get bxc-s1 user.box)" 1 "its box tag is kept"

# --- doctor --members: a probe box on every member ------------------------------
t=$(date +%s%3N)
out=$(as 1 doctor --members 2>&1); rc=$?
dt=$(( $(date +%s%3N) - t ))
expect_eq "$rc" 0 "doctor --members on m1 (exit; $dt ms)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -E "^(FAIL|WARN)" | sed 's/^/  | /'
expect_contains "$out" "member m1: probe box doctor-m1-" "m1 (this host) probed from its namespace"
for i in 2 3; do
	expect_contains "$out" "member m$i: probe box doctor-m$i-" "m$i probed by a box placed there"
done
expect_eq "$(printf '%s\n' "$out" | grep -c "the guest's word (another member")" 2 \
    "the two other members' findings are labelled the guest's word"
np=$(printf '%s\n' "$out" | grep -c "^PASS  box doctor-m")
[ "$np" -gt 0 ] && ok "doctor --members: $np PASS findings from the probe boxes" || fail "no PASS from the probe boxes"
expect_eq "$(inc 1 list -f csv -c n | grep -c '^doctor-')" 0 "the probe boxes are gone"

# --- a member down ---------------------------------------------------------------
$CL kill 3
t=$(date +%s%3N)
out=$(as 1 list 2>&1); rc=$?
dt=$(( $(date +%s%3N) - t ))
[ $rc -eq 0 ] && [ $dt -le $((BOX_IO_TIMEOUT * 1000)) ] && ok "list with m3 down answers in $dt ms" ||
    fail "list with m3 down: exit $rc in $dt ms"
printf '%s\n' "$out" | grep -q "^bxc-p3 .*UNREACHABLE.*m3" &&
    ok "bxc-p3 listed UNREACHABLE on m3" || { printf '%s\n' "$out" | sed 's/^/  | /'; fail "bxc-p3 not shown unreachable"; }
t=$(date +%s%3N)
out=$(as 1 exec bxc-p3 -- true 2>&1); rc=$?
dt=$(( $(date +%s%3N) - t ))
expect_eq "$rc" 1 "exec into a box on the dead member: exit 1 ($dt ms)"
[ $dt -le $((BOX_IO_TIMEOUT * 1000 + 2000)) ] && ok "the exec cost one BOX_IO_TIMEOUT at most (+2 s slack): $dt ms" ||
    fail "exec into a box on the dead member took $dt ms (BOX_IO_TIMEOUT ${BOX_IO_TIMEOUT} s)"
expect_contains "$out" "cluster member m3" "exec names the member that is down"
t=$(date +%s%3N)
out=$(as 1 new --name bxc-d1 2>&1); rc=$?
dt=$(( $(date +%s%3N) - t ))
loc=$(inc 1 list bxc-d1 -f csv -c L)
[ $rc -eq 0 ] && [ "$loc" != m3 ] && ok "new with m3 down lands on $loc ($dt ms)" ||
    fail "new with m3 down: exit $rc, on '$loc'"

# --- teardown-host on a member -------------------------------------------------
out=$(as 2 teardown-host --yes 2>&1); rc=$?
expect_eq "$rc" 0 "teardown-host on m2 (exit)"
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/  | /'
expect_contains "$out" "member m2 left group box (read back)" "m2 left group box first"
$CL exec 2 nft list table inet box >/dev/null 2>&1 && fail "m2's table inet box survived" ||
    ok "m2's kernel layers are gone (no table inet box)"
$CL exec 1 nft list table inet box >/dev/null 2>&1 && ok "m1's firewall untouched" ||
    fail "m1's firewall went with m2's teardown"
expect_eq "$(inc 1 list -f csv -c n,L | grep -c ',m2$')" 0 "no instance left on m2"
inc 1 network show boxnet >/dev/null 2>&1 && ok "the shared boxnet stays for m1 and m3" ||
    fail "boxnet went with one member's teardown"
out=$(as 1 teardown-host --yes --cluster 2>&1); rc=$?
expect_eq "$rc" 1 "teardown-host --cluster on m1 while m3 is still in the group: refused"
expect_contains "$out" "members still hold the contract: m3" "the refusal names m3"

T2=$(date +%s%3N)
echo "figures: bring-up $((T1 - T0)) ms, whole test $((T2 - T0)) ms"
summary
