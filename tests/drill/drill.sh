#!/bin/sh
# drill.sh - the isolation contract, measured (checklist §11.1 phase C and
# §11.3), hermetically, on one machine with no internet.
#
# It builds a world (tests/drill/world.sh: "the internet" and "the LAN" as
# network namespaces, a listener on the host), builds the real stack on it
# with `box setup-host` (BOX_DNS = the world's resolver), mints two boxes
# with `box new` from the local Debian cloud-init image, and probes every
# clause from inside them:
#   A1/A5  egress to "the internet" by address and by name
#   A2     box -> host (the gateway and every other host address, a real
#          listener on each) and box -> "the LAN": dropped
#   A3     box -> sibling, TCP (a listener in the sibling) and ICMP: dropped
#   A4     a sibling's name through the gateway: not resolvable, while
#          public names are
#   A6     no global IPv6
#   A7     host -> box on a listening port: dropped
#   expose one port reachable from 127.0.0.1, shut again by --remove
#   doctor `box doctor` on the same host agrees: clean
#   X1-X8  a hostile box (tests/drill/hostile.sh): host port 53 on every
#          host address and 127.0.0.1, the host's /etc/hosts, forged ARP,
#          forged sources, its own IPv6, its own MAC/IP; NAT inside a box
#          still works.  Each with its negative control.
#   V1-V5  nothing a box says is evidence (tests/drill/evidence.sh): a
#          swapper in /tmp against box verify, a Ready and a frozen box
#          with a NIC-filter rule cut, a report flood, the ACL's drop
#          removed behind doctor's back.  Each with its control.
# Verdicts come from what the probe saw (tests/drill/probe.py): connected /
# refused (a RST came back: the packet arrived) / dropped (silence).  No
# negative verdict is issued for a box whose baseline (a lease, and "the
# internet" reached) did not pass first.
#
# Negative controls prove the probes can fail: with a box on a scratch
# profile without port isolation, the bridge table removed and br_netfilter
# not handing bridged frames to the ACL, the sibling probe must connect (and
# a closed port be refused); with table inet box removed, box -> host must
# connect; with dns.mode managed, a sibling's name must resolve.  Each layer
# is then put back and shown to hold on its own (on this kernel box-to-box
# traffic meets three: port isolation, table bridge box, and the ACL's 10/8
# drop when bridge-nf-call-iptables hands bridged frames to it).
# Everything is restored; a stack the drill built is torn down again.
#
# Output: one PASS/FAIL line per check (NOTE lines are facts), then
# "N passed, N failed".  Exit 0 when nothing failed.  Root; the egress
# guard must be installed (ci/egress-guard.sh).  Env: BOX (./box),
# DRILL_IMAGE (box-test-debian), DRILL_KEEP=1 keeps boxes and world.
set -u
cd "$(dirname "$0")/../.."
. tests/drill/world.sh
. tests/drill/hostile.sh
. tests/drill/evidence.sh

BOX=${BOX:-./box}
IMAGE=${DRILL_IMAGE:-box-test-debian}
PY=/usr/bin/python3
D="$PY tests/drill/dr.py"
A=drill-a
B=drill-b
C=drill-c
OPEN=drill-open
T=3			# seconds a negative probe listens for an answer
BRNF=/proc/sys/net/bridge/bridge-nf-call-iptables
RUN=$W_STATE/drill
npass=0
nfail=0
t0=$(date +%s)
stack_before=
raw_before=
brnf_before=

pass() { npass=$((npass + 1)); echo "PASS  $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL  $*"; }
note() { echo "NOTE  $*"; }

# --- verdicts ----------------------------------------------------------------

# blocked ID WHAT VERDICT: an isolation probe.  Silence is the pass; an
# answer of any kind means the packet arrived.
blocked()
{
	case $3 in
	dropped*|silent*) pass "$1 $2: ${3%% *} (nothing came back)" ;;
	"none "*) pass "$1 $2: not resolvable (${3#none })" ;;
	refused*) fail "$1 $2: refused — a RST came back, the packet ARRIVED" ;;
	connected*|reply*) fail "$1 $2: $3 — it is REACHABLE" ;;
	"addr "*) fail "$1 $2: resolves ($3) — names LEAK" ;;
	*) fail "$1 $2: no verdict ($3)" ;;
	esac
}

# reached ID WHAT VERDICT WANT...: a probe whose pass is an answer.
reached()
{
	_id=$1 _what=$2 _v=$3
	shift 3
	for _w in "$@"; do
		case $_v in "$_w"*) pass "$_id $_what: $_v"; return ;; esac
	done
	fail "$_id $_what: $_v (wanted: $*)"
}

# inbox NAME SECS CMD: run a shell command in a box; output on stdout.
inbox()
{
	$D exec "$1" "$2" -- sh -c "$3" 2>>"$RUN/exec.err"
}

# probes NAME LINES: run probe lines ("<id> <probe> <args>") at once in NAME;
# the verdicts land in $RUN/<id>.
probes()
{
	_out=$(inbox "$1" 60 "drill-probe batch <<'EOF'
$2
EOF")
	printf '%s\n' "$2" | while read -r _id _rest; do
		_v=$(printf '%s\n' "$_out" | sed -n "s/^$_id //p")
		printf '%s\n' "${_v:-error no output}" >"$RUN/$_id"
	done
}
v() { cat "$RUN/$1" 2>/dev/null || echo "error no probe"; }

# host_probe ARGS: a probe run on the host itself.
host_probe() { $PY $W_PROBE "$@"; }

# --- setup and restore ----------------------------------------------------------

restore()
{
	adv_restore
	[ -n "$brnf_before" ] && [ -w "$BRNF" ] && echo "$brnf_before" >"$BRNF"
	if [ "${DRILL_KEEP:-0}" != 1 ]; then
		for _b in $A $B $C; do $D delete $_b >/dev/null 2>&1; done
		$D call DELETE /1.0/profiles/$OPEN >/dev/null 2>&1
	fi
	if $D get /1.0/networks/boxnet "m['name']" >/dev/null 2>&1; then
		$D call PATCH /1.0/networks/boxnet \
		    '{"config":{"dns.mode":"none"}}' >/dev/null 2>&1
		$BOX firewall apply >/dev/null 2>&1
	fi
	if [ "${DRILL_KEEP:-0}" != 1 ]; then
		if [ "$stack_before" = no ]; then
			$BOX teardown-host --yes >/dev/null 2>&1
		elif [ "$stack_before" = yes ]; then
			# box's resolver, or dnsmasq's DNS, as before
			if printf '%s\n' "$raw_before" | grep -qx 'port=0'; then
				BOX_DNS=$W_INET $BOX setup-host >/dev/null 2>&1
			else
				BOX_RESOLVER=dnsmasq BOX_DNS=$W_INET $BOX setup-host >/dev/null 2>&1
			fi
			$D call PATCH /1.0/networks/boxnet "$($PY -c '
import json, sys; print(json.dumps({"config": {"raw.dnsmasq": sys.argv[1]}}))' "$raw_before")" \
			    >/dev/null 2>&1
		fi
		world_down
	fi
}

finish()
{
	trap - EXIT INT TERM
	restore
	note "adversarial: $nadv probes, $nctl controls"
	note "the drill took $(($(date +%s) - t0)) s"
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

abort()
{
	fail "$*"
	note "stopped here: nothing after this point can be judged"
	finish
}

[ "$(id -u)" = 0 ] || { echo "drill: needs root"; echo "0 passed, 1 failed"; exit 1; }
trap finish EXIT
trap 'abort "interrupted"' INT TERM

export BOX_DOCTOR_PROBE_ADDR=$W_INET:80 BOX_DOCTOR_PROBE_NAME=$W_NAME
echo "=== the world"
nft list table inet box_test_guard >/dev/null 2>&1 ||
    abort "the egress guard is not installed (sh ci/egress-guard.sh install): no box may run without it"
pass "egress guard: table inet box_test_guard is live"
for _b in $A $B $C $N; do $D delete $_b >/dev/null 2>&1; done
$D call DELETE /1.0/profiles/$OPEN >/dev/null 2>&1
world_up || abort "world: could not build the namespaces and listeners"
mkdir -p "$RUN" && rm -f "$RUN"/*
pass "world: the internet at $W_INET (http :80, dns for *.drill.test), the LAN at $W_LAN (:80, :22), a host listener on :$W_HOST_PORT, all routed through our own veths"

echo "=== the stack (box setup-host, BOX_DNS=$W_INET)"
if $D get /1.0/networks/boxnet "m['name']" >/dev/null 2>&1; then
	stack_before=yes
	raw_before=$($D get /1.0/networks/boxnet "m['config'].get('raw.dnsmasq', '')")
else
	stack_before=no
fi
out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { echo "$out"; abort "box setup-host failed"; }
pass "box setup-host built/converged the stack"
gwcidr=$($D get /1.0/networks/boxnet "m['config']['ipv4.address']")
GW=${gwcidr%/*}
PFX=${GW%.*}.
note "boxnet gateway $GW; $($BOX firewall show | sed -n 's/^bridge box *//p')"
adv_setup || abort "setting up the adversarial probes (/etc/hosts, the profile $NOF) failed"

echo "=== the boxes"
$D get /1.0/images/aliases/$IMAGE "m['name']" >/dev/null 2>&1 ||
    abort "the local image $IMAGE is missing (BOX_CI_DEBIAN=1 sh ci/setup.sh, or sh ci/build-images.sh --debian)"
if $BOX help new >/dev/null 2>&1; then
	for _b in $A $B; do
		_t=$(date +%s)
		out=$($BOX new --name $_b --image "$IMAGE" </dev/null 2>&1) ||
		    { printf '%s\n' "$out" | tail -5; abort "box new --name $_b failed"; }
		pass "box new --name $_b --image $IMAGE ($(($(date +%s) - _t)) s)"
	done
else
	note "box new is not available in $BOX: launching on box-net through the API, with the tag"
	for _b in $A $B; do
		$D launch $_b "$IMAGE" box-net || abort "launching $_b failed"
	done
fi
for _b in $A $B; do
	$D push $_b $W_PROBE /usr/local/bin/drill-probe 0755 ||
	    abort "pushing the probe into $_b failed"
	inbox $_b 20 "for p in 8088 8089; do setsid drill-probe serve \$p $_b-\$p \
	    </dev/null >/dev/null 2>&1 & done; sleep 1" >/dev/null
	reached "listen" "$_b serves :8088 (seen from inside it)" \
	    "$(inbox $_b 10 "drill-probe http http://127.0.0.1:8088/ 2")" "body $_b-8088"
done
AIP=$($D ipv4 $A "$PFX" 60) || AIP=
BIP=$($D ipv4 $B "$PFX" 60) || BIP=

echo "=== baseline (no negative verdict without it)"
base_ok()	# NAME IP: a lease, and the internet by address
{
	[ -n "$2" ] || { fail "baseline $1: no lease on boxnet ($PFX*)"; return 1; }
	pass "baseline $1: leased $2"
	probes $1 "base http http://$W_INET/ 5"
	reached "A1" "$1 -> the internet by address (http://$W_INET/)" "$(v base)" "body $W_MARK_INET"
	[ "$(v base)" = "body $W_MARK_INET" ]
}
a_ok=0 b_ok=0
base_ok $A "$AIP" && a_ok=1
base_ok $B "$BIP" && b_ok=1
[ -n "$AIP" ] && [ "$AIP" != "$BIP" ] && pass "identity: $A ($AIP) and $B (${BIP:-none}) hold different addresses" ||
    fail "identity: $A and $B hold the same address (${AIP:-none})"

# judged ID WHAT PROBER RESULT: a negative verdict only after a baseline.
judged()
{
	case $3 in
	$A) _ok=$a_ok ;;
	$N) _ok=$n_ok ;;
	*) _ok=$b_ok ;;
	esac
	if [ "$_ok" = 1 ]; then
		blocked "$1" "$2" "$4"
	else
		fail "$1 $2: not judged — $3's baseline did not pass"
	fi
}

echo "=== phase C: the contract"
probes $A "a5a dns $W_NAME
a5b http http://$W_NAME/ 5"
reached "A5" "$A resolves $W_NAME through the gateway" "$(v a5a)" "addr $W_INET"
reached "A5" "$A -> the internet by name" "$(v a5b)" "body $W_MARK_INET"

lines="gw tcp $GW $W_HOST_PORT $T"
i=0
for addr in $(ip -4 -o addr show scope global | awk '{ sub("/.*", "", $4); print $4 }'); do
	[ "$addr" = "$GW" ] && continue
	i=$((i + 1))
	lines="$lines
h$i tcp $addr $W_HOST_PORT $T"
	echo "$addr" >"$RUN/h$i.addr"
done
lines="$lines
lan80 tcp $W_LAN 80 $T
lan22 tcp $W_LAN 22 $T
sib tcp $BIP 8088 $T
sibi icmp $BIP $T
n1 dns $B
n2 dns $B.incus
v6 v6"
probes $A "$lines"
judged "A2" "$A -> host, the gateway $GW:$W_HOST_PORT (a listener there)" $A "$(v gw)"
j=1
while [ $j -le $i ]; do
	judged "A2" "$A -> host, its address $(cat "$RUN/h$j.addr"):$W_HOST_PORT" $A "$(v h$j)"
	j=$((j + 1))
done
judged "A2" "$A -> the LAN $W_LAN:80" $A "$(v lan80)"
judged "A2" "$A -> the LAN $W_LAN:22" $A "$(v lan22)"
judged "A3" "$A -> sibling $B ($BIP:8088, listening), TCP" $A "$(v sib)"
judged "A3" "$A -> sibling $B ($BIP), ICMP" $A "$(v sibi)"
probes $B "sib tcp $AIP 8088 $T
sibi icmp $AIP $T"
judged "A3" "$B -> sibling $A ($AIP:8088, listening), TCP" $B "$(v sib)"
judged "A3" "$B -> sibling $A ($AIP), ICMP" $B "$(v sibi)"
judged "A4" "$A looks up its sibling's name '$B' through the gateway" $A "$(v n1)"
judged "A4" "$A looks up '$B.incus' through the gateway" $A "$(v n2)"
reached "A4" "...while public names resolve ($W_NAME)" "$(v a5a)" "addr $W_INET"
reached "A6" "$A has no global IPv6 address" "$(v v6)" "none"
reached "A6" "boxnet ipv6.address" "$($D get /1.0/networks/boxnet "m['config'].get('ipv6.address', 'unset')")" "none"
r1=$(host_probe tcp "$AIP" 8088 $T)
r2=$(host_probe tcp "$BIP" 8088 $T)
judged "A7" "host -> $A:8088 (listening)" $A "$r1"
judged "A7" "host -> $B:8088 (listening)" $B "$r2"

echo "=== expose"
if $BOX help expose >/dev/null 2>&1; then
	out=$($BOX expose $A 8088 18088 2>&1) || note "box expose: $out"
	reached "E1" "127.0.0.1:18088 reaches $A:8088" "$(host_probe http http://127.0.0.1:18088/ 3)" "body $A-8088"
	n=$($BOX expose $A --list 2>/dev/null | grep -c 18088)
	reached "E2" "box expose --list shows the one door" "$n" 1
	blocked "E3" "the door does not widen: host -> $A:8089 directly" "$(host_probe tcp "$AIP" 8089 $T)"
	$BOX expose $A --remove 8088 >/dev/null 2>&1 || note "box expose --remove failed"
	reached "E4" "after --remove, 127.0.0.1:18088 is shut" "$(host_probe tcp 127.0.0.1 18088 2)" refused
else
	note "box expose is not available in $BOX: the door was not probed"
fi

echo "=== box doctor agrees"
out=$($BOX doctor $A $B 2>&1); rc=$?
if [ $rc = 0 ]; then
	pass "box doctor: $(printf '%s\n' "$out" | tail -1)"
else
	printf '%s\n' "$out" | grep -E '^(FAIL|WARN)' | sed 's/^/      /'
	fail "box doctor exit $rc: $(printf '%s\n' "$out" | tail -1)"
fi

adv_run

echo "=== negative controls: the probes can fail"
# (1) box -> host with table inet box removed.  198.51.100.1 (drinet0) is
# outside every range the ACL drops, so only the host firewall stands there.
nft delete table inet box
probes $A "fw1 tcp 198.51.100.1 $W_HOST_PORT $T"
reached "ctl-fw" "table inet box removed: $A -> host 198.51.100.1:$W_HOST_PORT connects" "$(v fw1)" connected
$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
probes $A "fw2 tcp 198.51.100.1 $W_HOST_PORT $T"
judged "layer" "table inet box back: $A -> host 198.51.100.1:$W_HOST_PORT" $A "$(v fw2)"

# (2) siblings: a box on a scratch profile without port isolation (its
# address pinned: dnsmasq answers only pinned clients)
$D call POST /1.0/profiles "{\"name\":\"$OPEN\",\"description\":\"box drill: negative control, NO port isolation\",\"config\":{},\"devices\":{\"eth0\":{\"type\":\"nic\",\"network\":\"boxnet\",\"name\":\"eth0\",\"security.port_isolation\":\"false\",\"ipv4.address\":\"${PFX}239\"},\"root\":{\"type\":\"disk\",\"pool\":\"default\",\"path\":\"/\"}}}" >/dev/null ||
    abort "creating the scratch profile $OPEN failed"
$D launch $C "$IMAGE" $OPEN || abort "launching the control box $C failed"
CIP=$($D ipv4 $C "$PFX" 60) || abort "$C got no lease"
$D push $C $W_PROBE /usr/local/bin/drill-probe 0755 || abort "pushing the probe into $C failed"
inbox $C 20 "setsid drill-probe serve 8088 $C-8088 </dev/null >/dev/null 2>&1 & sleep 1" >/dev/null
reached "listen" "$C serves :8088 (seen from inside it)" "$(inbox $C 10 "drill-probe http http://127.0.0.1:8088/ 2")" "body $C-8088"
note "$C ($CIP) is on $OPEN: its port is NOT isolated ($(bridge -d link show dev "$($D veth $C)" | grep -o 'isolated o[nf]*'))"
ctl()	# ID: probe C from A
{
	probes $A "$1t tcp $CIP 8088 $T
$1c tcp $CIP 8089 $T
$1i icmp $CIP $T
$1b tcp $BIP 8088 $T"
}
ctl s0
judged "A3" "all layers: $A -> $C:8088 (a port without isolation)" $A "$(v s0t)"
[ -f "$BRNF" ] && brnf_before=$(cat "$BRNF")
nft delete table bridge box
[ -n "$brnf_before" ] && echo 0 >"$BRNF"
note "removed: table bridge box${brnf_before:+; bridge-nf-call-iptables 0 (it was $brnf_before: with 1, the ACL's 10/8 drop sees bridged frames too)}"
ctl s1
if [ "$(v s1t)" != connected ]; then	# a neighbour entry may still be failed
	sleep 3
	ctl s1
fi
reached "ctl-sib" "no sibling layer: $A -> $C:8088 connects" "$(v s1t)" connected
reached "ctl-sib" "no sibling layer: $A -> $C:8089 (closed) is refused" "$(v s1c)" refused
reached "ctl-sib" "no sibling layer: $A -> $C ICMP answers" "$(v s1i)" reply
judged "layer" "port isolation alone: $A -> $B:8088 (both isolated)" $A "$(v s1b)"
adv_open_arp ctl
adv_open_v6
$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
ctl s2
judged "layer" "table bridge box alone: $A -> $C:8088" $A "$(v s2t)"
judged "layer" "table bridge box alone: $A -> $C ICMP" $A "$(v s2i)"
adv_open_arp layer
if [ -n "$brnf_before" ]; then
	echo "$brnf_before" >"$BRNF"
	brnf_before=
fi
$D delete $C >/dev/null 2>&1 || fail "deleting the control box $C failed"
$D call DELETE /1.0/profiles/$OPEN >/dev/null 2>&1

# (3) names: dns.mode managed registers every box (dnsmasq restarts: allow
# it a while, checklist §12.13).  Box's own resolver (the default) knows
# no box's name whatever dnsmasq registers, so the control lets it go and
# dnsmasq serve DNS (the fallback, BOX_RESOLVER=dnsmasq); setup-host puts
# it back before the verdict.
out=$(BOX_RESOLVER=dnsmasq BOX_DNS=$W_INET $BOX setup-host 2>&1) || { echo "$out"; fail "BOX_RESOLVER=dnsmasq box setup-host (the control) failed"; }
$D call PATCH /1.0/networks/boxnet '{"config":{"dns.mode":"managed"}}' >/dev/null
k=0
while :; do
	probes $A "m1 dns $B.incus"
	case $(v m1) in "addr "*) break ;; esac
	k=$((k + 1)); [ $k -lt 15 ] || break; sleep 1
done
reached "ctl-dns" "dns.mode managed: $A resolves '$B.incus'" "$(v m1)" "addr $BIP"
$D call PATCH /1.0/networks/boxnet '{"config":{"dns.mode":"none"}}' >/dev/null
out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { echo "$out"; fail "box setup-host (box's resolver back) failed"; }
k=0
while :; do
	probes $A "m2 dns $W_NAME
m3 dns $B.incus"
	[ "$(v m2)" = "addr $W_INET" ] && break
	k=$((k + 1)); [ $k -lt 30 ] || break; sleep 1
done
judged "A4" "dns.mode none, box's resolver again: '$B.incus'" $A "$(v m3)"
adv_hosts
ev_run

finish
