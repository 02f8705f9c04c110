#!/bin/sh
# test_verify.sh - `box verify <box>`: the contract probed live from inside
# a box, in the drill's hermetic world (tests/drill/world.sh).
#
# Every target verify would aim outside this machine is overridden to the
# world's namespaces (BOX_VERIFY_*), and each override is checked to be set
# before any verify runs: a probe whose defence is broken really sends.
# The world and BOX_DNS change the shared stack: run it under the stack
# lock (flock /tmp/box-stack.lock ...).  The stack is left as
# `BOX_DNS=127.0.0.1 box setup-host` leaves it.
#
#   healthy      every probe held, exit 0, --json checked probe by probe
#                (the host's addresses enumerated, the sibling found)
#   controls     one defence removed at a time; verify reports exactly that
#                breach and exits 1; the defence put back, it passes again:
#     host       the input chain's "a box never reaches the host" rule
#     forged/arp the box's NIC without mac/ipv4 filtering
#     ipv6       a global IPv6 address and route inside the box
#     egress     an allow policy whose chain was emptied (until the
#                allowlist is put back: then the refused name must not connect);
#                the host's reset is a hold, the box's own reset a breach
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/drill/world.sh

D="python3 tests/drill/dr.py"
A=hv-a
B=hv-b
IMG=${HV_IMAGE:-box-test-busybox}	# HV_IMAGE=box-test-debian: the same on systemd
OUT=$(mktemp -d /tmp/hv-verify.XXXXXX)
t0=$(date +%s)

restore()
{
	trap - EXIT INT TERM
	$D delete $A >/dev/null 2>&1
	$D delete $B >/dev/null 2>&1
	BOX_DNS=127.0.0.1 $BOX setup-host >"$OUT/restore.log" 2>&1 ||
	    { tail -3 "$OUT/restore.log"; fail "restoring the stack (BOX_DNS=127.0.0.1 box setup-host)"; }
	world_down
	[ "${HV_KEEP:-0}" = 1 ] && echo "note: kept $OUT" || rm -rf "$OUT"
	echo "note: test_verify took $(($(date +%s) - t0)) s"
	summary
}
trap restore EXIT
trap 'fail interrupted; exit 1' INT TERM

[ "$(id -u)" = 0 ] || { fail "needs root"; exit 1; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "the egress guard is not installed (sh ci/egress-guard.sh install)"; exit 1; }
ok "egress guard installed"

# --- the world and the stack aimed at it ----------------------------------
$D delete $A >/dev/null 2>&1
$D delete $B >/dev/null 2>&1
world_up || { fail "world: building the namespaces"; exit 1; }
ok "world: internet $W_INET ($W_NAME), LAN $W_LAN, host address $W_SEC"
# once more on a failure: on a shared daemon another test's instance going
# away mid-update ("Failed to delete bridge children interfaces") is a race
out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { sleep 2; out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1); } ||
    { echo "$out" | tail -5; fail "box setup-host"; exit 1; }
ok "box setup-host with BOX_DNS=$W_INET"
$D launch $A $IMG box-net >"$OUT/a.log" 2>&1 &
pa=$!
$D launch $B $IMG box-net >"$OUT/b.log" 2>&1 || { cat "$OUT/b.log"; fail "launching $B"; exit 1; }
wait $pa || { cat "$OUT/a.log"; fail "launching $A"; exit 1; }
AIP=$($D ipv4 $A 10. 90) || { fail "$A got no lease"; exit 1; }
BIP=$($D ipv4 $B 10. 90) || { fail "$B got no lease"; exit 1; }
ok "boxes $A ($AIP) and $B ($BIP) on box-net"

# --- every target ours, and checked so ------------------------------------
export BOX_VERIFY_INET_ADDR=$W_INET:80
export BOX_VERIFY_INET_NAME=$W_NAME:80
export BOX_VERIFY_ALLOWED=$W_NAME:80
export BOX_VERIFY_REFUSED=other.drill.test:80
export BOX_VERIFY_LAN_GATEWAY=$W_LAN:80
export BOX_VERIFY_LAN_ADDR=$W_LAN:22
export BOX_VERIFY_FORGE_SRC=$W_FORGE
export BOX_VERIFY_FORGE_PORT=$W_REC_PORT
export BOX_VERIFY_HOST_PORT=$W_HOST_PORT
export BOX_VERIFY_SIBLING_PORT=8088
export BOX_VERIFY_SIBLING=$BIP	# a control's forged ARP moves only our own box's entry
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost
targets_ours()
{
	for _v in BOX_VERIFY_INET_ADDR BOX_VERIFY_INET_NAME BOX_VERIFY_ALLOWED \
	    BOX_VERIFY_REFUSED BOX_VERIFY_LAN_GATEWAY BOX_VERIFY_LAN_ADDR \
	    BOX_VERIFY_FORGE_SRC BOX_VERIFY_FORGE_PORT; do
		eval "_x=\${$_v:-}"
		[ -n "$_x" ] || { fail "$_v is not set: verify would aim at the real world; not run"; exit 1; }
	done
	case $BOX_VERIFY_INET_ADDR$BOX_VERIFY_LAN_GATEWAY$BOX_VERIFY_LAN_ADDR in
	"$W_INET:80$W_LAN:80$W_LAN:22") ;;
	*) fail "a verify target is not the world's"; exit 1 ;;
	esac
	world_routed || { fail "the world is not routed through its own veths"; exit 1; }
}

# verify NAME TAG: box verify --json into $OUT/TAG.json, exit status in $OUT/TAG.rc
verify()
{
	targets_ours
	$BOX verify "$1" --json >"$OUT/$2.json" 2>"$OUT/$2.err"
	echo $? >"$OUT/$2.rc"
}

# judge TAG WANT_RC CLAUSES: the run exited WANT_RC, and exactly the probes
# of CLAUSES (space-separated; "" none) breached, every other probe held.
# Prints one line per finding; "ok" alone when all is well.
judge()
{
	python3 - "$OUT/$1.json" "$(cat "$OUT/$1.rc")" "$2" "$3" <<'PY'
import json, sys
path, rc, want_rc, clauses = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
bad = []
try:
    j = json.load(open(path))
except Exception as x:
    print("no JSON: %s" % x); sys.exit()
if rc != want_rc:
    bad.append("exit %s, wanted %s" % (rc, want_rc))
if not j.get("baseline"):
    bad.append("the baseline failed")
seen = set()
for p in j["probes"]:
    want = "breach" if p["clause"] in clauses else "held"
    if p["clause"] in clauses and p["result"] == "breach":
        seen.add(p["clause"])
    elif p["result"] != "held" and not (p["clause"] in clauses and p["result"] == "held"):
        bad.append("%s %s: %s (%s)" % (p["result"], p["clause"], p["probe"], p["observed"]))
for c in clauses:
    if c not in seen:
        bad.append("clause %s: no breach reported" % c)
if (j["breached"] > 0) != bool(clauses) or j["ok"] != (not clauses):
    bad.append("summary: ok=%s breached=%s" % (j["ok"], j["breached"]))
print("\n".join(bad) if bad else "ok")
PY
}

expect_judge()	# TAG WANT_RC CLAUSES MSG
{
	_r=$(judge "$1" "$2" "$3")
	if [ "$_r" = ok ]; then
		ok "$4"
	else
		fail "$4"
		printf '%s\n' "$_r" | sed 's/^/      /'
		sed 's/^/      stderr: /' "$OUT/$1.err"
	fi
}

# probe TAG ID: that probe's "result observed"
probe()
{
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["probes"]:
    if p["id"] == sys.argv[2]: print(p["result"], p["observed"]); break
else: print("absent")' "$OUT/$1.json" "$2"
}

# probe_at TAG ADDR PORT: the same, by target
probe_at()
{
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["probes"]:
    if p["target"] == sys.argv[2] and str(p["port"]) == sys.argv[3]: print(p["result"], p["observed"]); break
else: print("absent")' "$OUT/$1.json" "$2" "$3"
}

# --- healthy ----------------------------------------------------------------
_t=$(date +%s%N)
verify $A ok
echo "note: one box verify --json took $((($(date +%s%N) - _t) / 1000000)) ms ($(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["probes"]))' "$OUT/ok.json") probes)"
expect_judge ok 0 "" "healthy: every probe held, exit 0"
tgt=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(" ".join(sorted(set(p["target"] for p in j["probes"] if p["clause"] in ("host", "sibling")))))' "$OUT/ok.json")
for x in $W_SEC $W_LINK_HOST $W_LAN_HOST "$BIP"; do
	expect_contains " $tgt " " $x " "healthy: the probes reached for $x (the host's addresses over rtnetlink, the sibling from the leases)"
done
expect_contains "$(probe ok inet)" "held connected" "healthy: the internet by address connected"
expect_contains "$(probe ok inetname)" "held connected" "healthy: the internet by name connected"
expect_contains "$(probe ok forge)" "held did not arrive" "healthy: the forged source did not reach the bridge"
expect_eq "$(python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); print(sorted(set(p["observed_by"] for p in j["probes"])))' "$OUT/ok.json")" "['host bridge', 'host port', 'the box says']" "healthy: every verdict is the host's (its port, its bridge) but the one labelled the box's word"
expect_contains "$(probe ok arpsib)" "held did not arrive" "healthy: the forged ARP for the sibling did not reach the bridge"
$BOX verify $A >"$OUT/ok.txt" 2>&1
expect_eq "$?" 0 "healthy: the table form exits 0 too"
expect_contains "$(tail -1 "$OUT/ok.txt")" "probes held" "healthy: the table ends in its summary"

# --- control: the host ----------------------------------------------------
h=$(nft -a list chain inet box input 2>/dev/null | sed -n 's/.*"box: a box never reaches the host".*# handle \([0-9]*\).*/\1/p')
if [ -n "$h" ] && nft delete rule inet box input handle "$h"; then
	verify $A host
	expect_judge host 1 "host" "no input drop rule: verify reports the host breach, exit 1"
	expect_contains "$(probe_at host $W_LINK_HOST $W_HOST_PORT)" "breach connected" "no input drop rule: the host's listener at $W_LINK_HOST:$W_HOST_PORT connected (outside the ACL's ranges, only the input chain stands there)"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply"
	verify $A host2
	expect_judge host2 0 "" "box firewall apply: verify passes again"
else
	fail "finding/deleting the input chain's drop rule"
fi

# --- a hostile agent: a swapper in the box's /tmp ---------------------------
# tests/drill/agent.c watches /tmp (inotify) and renames a script of its
# own over every file named .box-* the host pushes there; the script
# reports every probe held.  With a real hole open (the input chain's drop
# deleted, the host's listener at $W_LINK_HOST:$W_HOST_PORT), the push-run
# path box verify used before (push the binary into /tmp, run it, read its
# report) is fooled: shown here as the control, by hand.  verify's own run
# (this host's process in the box's network namespace) sees the breach.
AG=$OUT/agent
if musl-gcc -static -Os -o "$AG" tests/drill/agent.c >"$OUT/agent.cc" 2>&1 &&
    $D push $A "$AG" /root/agent 0755 >/dev/null 2>&1 &&
    $D exec $A 10 -- sh -c 'setsid /root/agent swap /tmp >/root/agent.log 2>&1 </dev/null &' >/dev/null 2>&1; then
	ok "hostile: the swapper runs in $A (watching /tmp)"
	h=$(nft -a list chain inet box input 2>/dev/null | sed -n 's/.*"box: a box never reaches the host".*# handle \([0-9]*\).*/\1/p')
	if [ -n "$h" ] && nft delete rule inet box input handle "$h"; then
		# the control: the old path, by hand, with the same binary
		cp=/tmp/.box-verify.ctl$$
		plan=$(printf 'verify-plan 1\nt 2000\np h1\nk tcp\na %s\nport %s\n' "$W_LINK_HOST" "$W_HOST_PORT")
		$D push $A "$BOX" $cp 0755 >/dev/null 2>&1
		sleep 1
		$D exec $A 30 -- env "BOX_VERIFY_PLAN=$plan" BOX_INBOX_REPORT=$cp.json $cp verify --inside >"$OUT/ctl.out" 2>&1
		ctl=$($D exec $A 10 -- cat $cp.json 2>/dev/null)
		$D exec $A 10 -- rm -f $cp $cp.json >/dev/null 2>&1
		expect_contains "$($D exec $A 10 -- cat /root/agent.log)" "swapped $cp" "control: the swapper replaced the pushed binary"
		expect_contains "$ctl" "v dropped (the swapper)" "control: the push-run path is fooled (the box's report says $W_LINK_HOST:$W_HOST_PORT was dropped while it is open)"
		# (the swapper's own scratch file and the control's pushed
		# name come and go as it swaps: they are not verify's)
		tmpls() { $D exec $A 10 -- ls -a /tmp | grep -v -e '^\.agent\.tmp$' -e '^\.box-verify\.ctl'; }
		before=$(tmpls)
		verify $A swap
		expect_eq "$(tmpls)" "$before" "hostile swapper: verify put no file into the box's /tmp"
		expect_judge swap 1 "host" "hostile swapper, hole open: verify reports the host breach, exit 1"
		expect_contains "$(probe_at swap $W_LINK_HOST $W_HOST_PORT)" "breach connected" "hostile swapper: the host's listener connected, seen on the box's port"
		expect_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probes_run_by"])' "$OUT/swap.json")" host "hostile swapper: the probes ran in this host's process"
		$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply"
		verify $A swap2
		expect_judge swap2 0 "" "hostile swapper, hole closed: every probe held"
	else
		fail "finding/deleting the input chain's drop rule"
	fi
	$D exec $A 10 -- sh -c 'kill $(pidof agent) 2>/dev/null' >/dev/null 2>&1
else
	cat "$OUT/agent.cc"
	fail "hostile: starting the swapper in $A (musl-gcc, push, exec)"
fi

# --- control: forged source and ARP (the NIC's filtering off) ------------
nic=$($D get /1.0/profiles/box-net "json.dumps(dict(m['devices']['eth0'], **{'security.mac_filtering': 'false', 'security.ipv4_filtering': 'false'}))")
if $D call PATCH /1.0/instances/$A "{\"devices\":{\"eth0\":$nic}}" >"$OUT/nic.log" 2>&1; then
	# box's own port bindings (table bridge box prerouting) hold the
	# forged source and ARP alone, whatever the NIC's keys say: a bound
	# port's IPv4 carries its pinned MAC and address whatever the source,
	# 198.18.0.99 (outside boxnet's subnet) included ...
	verify $A nicb
	expect_judge nicb 0 "" "no NIC filtering, port bindings in place: every probe held"
	expect_contains "$(probe nicb forge)" "did not arrive" "no NIC filtering, port bindings in place: the forged source outside the subnet never reached the bridge"
	expect_contains "$(probe nicb arpsib)" "held" "no NIC filtering, port bindings in place: the forged ARP is held"
	# ... and it is the bound-port rule that holds the out-of-subnet
	# source: without it alone (the subnet-scoped pair kept) it arrives
	h=$(nft -a list chain bridge box prerouting 2>/dev/null | sed -n "s/.*\"box: a bound port's IPv4 only with its pinned MAC and address, from any source\".*# handle \([0-9]*\).*/\1/p")
	if [ -n "$h" ] && nft delete rule bridge box prerouting handle "$h"; then
		verify $A nicr
		expect_contains "$(probe nicr forge)" "arrived (the host" "control: without the bound-port IPv4 rule the forged source outside the subnet reaches the bridge"
		expect_contains "$(probe nicr arpsib)" "held" "control: the forged ARP is still held (the bound-port ARP rule)"
		$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (the bound-port rule back)"
	else
		fail "finding/deleting the bound-port IPv4 rule"
	fi
	# ... so the control takes them all off too
	nft flush chain bridge box prerouting || fail "flushing the port bindings"
	verify $A nic
	expect_judge nic 1 "forged arp" "no NIC filtering: verify reports forged source and ARP, exit 1"
	expect_contains "$(probe nic arpsib)" "entry for $BIP forgotten" "no NIC filtering: verify forgot the host's neighbour entry its forged ARP may have moved"
	amac=$($D get /1.0/instances/$A "m['config']['volatile.eth0.hwaddr']")
	case $(ip neigh show "$BIP" dev boxnet) in
	*"$amac"*) fail "the host's entry for $BIP still holds $A's MAC $amac" ;;
	*) ok "the host's entry for $BIP does not hold $A's MAC" ;;
	esac
	$D get /1.0/instances/$A "json.dumps({k: v for k, v in m.items() if k in ('architecture', 'config', 'devices', 'ephemeral', 'profiles', 'stateful', 'description')} | {'devices': {k: v for k, v in m['devices'].items() if k != 'eth0'}})" >"$OUT/put.json" &&
	    $D call PUT /1.0/instances/$A "$(cat "$OUT/put.json")" >>"$OUT/nic.log" 2>&1 || fail "putting $A's NIC back"
	ip neigh del "$BIP" dev boxnet 2>/dev/null
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (the port bindings back)"
	verify $A nic2
	expect_judge nic2 0 "" "the profile's NIC back: verify passes again"
else
	cat "$OUT/nic.log"
	fail "turning $A's NIC filtering off"
fi

# --- control: IPv6 ----------------------------------------------------------
if $D exec $A 10 -- sh -c "ip -6 addr add 2001:db8:88::a/64 dev eth0" >"$OUT/v6.log" 2>&1; then
	verify $A v6
	expect_judge v6 1 "ipv6" "a global IPv6 address in the box: verify reports it, exit 1"
	$D exec $A 10 -- sh -c "ip -6 addr del 2001:db8:88::a/64 dev eth0" >/dev/null 2>&1
	verify $A v62
	expect_judge v62 0 "" "the address gone: verify passes again"
else
	cat "$OUT/v6.log"
	fail "adding an IPv6 address in $A"
fi

# --- the policy, enforced -------------------------------------------------
# box egress puts the allowlist into the kernel; the world answers
# probe.test and other.test with two different addresses, so the refused
# name's verdict is about the policy, not about a shared address.
eg=$($BOX egress $A allow $W_PROBE_NAME 2>&1) || fail "box egress $A allow $W_PROBE_NAME: $eg"
export BOX_VERIFY_ALLOWED=$W_PROBE_NAME:80 BOX_VERIFY_REFUSED=$W_OTHER_NAME:80
verify $A allow
expect_judge allow 0 "" "policy allow:$W_PROBE_NAME enforced: every clause held, exit 0"
expect_contains "$(probe allow allowed)" "held connected" "policy allow: the allowed name connected (the baseline)"
case $(probe allow refused) in
"held "*) ok "policy allow: the refused name ($W_OTHER_NAME, $W_OTHER) got nowhere: $(probe allow refused)" ;;
*) fail "policy allow: the refused name: $(probe allow refused)" ;;
esac
# box's resolver does not name it to the box: the kernel's layer is
# probed by the address the host's name server gives for it
case $(probe allow refusedaddr) in
"held "*) ok "policy allow: the refused name's address, by address, got nowhere: $(probe allow refusedaddr)" ;;
*) fail "policy allow: the refused name's address: $(probe allow refusedaddr)" ;;
esac
case $(probe allow refusedaddr) in
"held refused by the host's egress rule"*) ok "...refused at once by the host's rule, its counter moved: a hold" ;;
*) fail "policy allow: the refused address was not refused by the host's rule: $(probe allow refusedaddr)" ;;
esac
# control (issue 38): the host's rules gone and the box itself resetting
# its own connections to that address: a reset from anywhere but the
# host's rule is still a breach
APID=$(api GET "/1.0/instances/$A/state" | json "j['metadata']['pid']")
nft flush chain inet box egress >/dev/null 2>&1 || fail "flushing inet box egress"
if nsenter -t "$APID" -n nft -f - <<EOF
table ip hv_selfreset {
	chain out {
		type filter hook output priority 0;
		ip daddr $W_OTHER tcp dport 80 reject with tcp reset
	}
}
EOF
then
	verify $A selfreset
	nsenter -t "$APID" -n nft delete table ip hv_selfreset
	expect_eq "$(cat "$OUT/selfreset.rc")" 1 "the host's rules gone, the box resetting itself: verify exits 1"
	# the box's word alone: its SYN never left its port, so the reset is
	# nobody's hold (verify says the probe failed, never held)
	case $(probe selfreset refusedaddr) in
	"held"*|"") fail "the box's own reset: $(probe selfreset refusedaddr)" ;;
	*"nothing left the box's port"*) ok "...the box's own reset is not a hold: $(probe selfreset refusedaddr)" ;;
	*) fail "the box's own reset: $(probe selfreset refusedaddr)" ;;
	esac
else
	fail "adding the box's own reset rule"
fi
# and a reset from the far end (its closed port 81), the host's rules
# still gone: the SYN left, a reset came back, no counter of the host's
# moved: a breach
export BOX_VERIFY_REFUSED=$W_OTHER_NAME:81
verify $A farreset
export BOX_VERIFY_REFUSED=$W_OTHER_NAME:80
expect_judge farreset 1 "egress" "the host's rules gone, the far end resetting: verify reports the breach, exit 1"
case $(probe farreset refusedaddr) in
"breach refused"*) ok "...the far end's reset is a breach: $(probe farreset refusedaddr)" ;;
*) fail "the far end's reset: $(probe farreset refusedaddr)" ;;
esac
$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring)"
# control: the allowlist's chain emptied -> the refused name connects
nft flush chain inet box egress >/dev/null 2>&1 || fail "flushing inet box egress"
verify $A allow_gone
expect_judge allow_gone 1 "egress" "the egress chain emptied: verify reports the refused name connecting, exit 1"
case $(probe allow_gone refusedaddr) in
"breach connected"*) ok "...by its address: $(probe allow_gone refusedaddr)" ;;
*) fail "the egress chain emptied: the refused name's address: $(probe allow_gone refusedaddr)" ;;
esac
$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring)"
verify $A allow_back
expect_judge allow_back 0 "" "firewall apply put the allowlist back: verify passes"
eg=$($BOX egress $A open 2>&1) || fail "box egress $A open: $eg"
export BOX_VERIFY_ALLOWED=$W_NAME:80 BOX_VERIFY_REFUSED=other.drill.test:80
verify $A final
expect_judge final 0 "" "policy open again: verify passes"

# --- no baseline, no verdict ---------------------------------------------
# the internet's closed port as the baseline: it is refused, so every
# "dropped" proves nothing and must be reported unjudged
targets_ours
BOX_VERIFY_INET_ADDR=$W_INET:81 $BOX verify $A --json >"$OUT/nobase.json" 2>"$OUT/nobase.err"
rc=$?
expect_eq "$rc" 1 "baseline refused: exit 1"
r=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
bad = [p["id"] for p in j["probes"] if not p["want"] == "reached" and p["result"] != "unjudged"]
print("baseline=%s unjudged=%d other=%s" % (j["baseline"], j["unjudged"], ",".join(bad) or "none"))' "$OUT/nobase.json")
expect_contains "$r" "baseline=False" "baseline refused: reported"
expect_contains "$r" "other=none" "baseline refused: every isolation probe is unjudged, none held"

# --- usage and a stopped box -------------------------------------------------
$BOX verify >/dev/null 2>&1
expect_eq "$?" 2 "box verify without a box: usage, exit 2"
$BOX verify --inside >/dev/null 2>&1
expect_eq "$?" 2 "verify --inside on the host: usage, exit 2"
$D call PUT /1.0/instances/$B/state '{"action":"stop","force":true}' >/dev/null 2>&1
targets_ours
out=$($BOX verify $B 2>&1)
rc=$?
expect_eq "$rc" 1 "a stopped box: exit 1"
expect_contains "$out" "box start $B" "a stopped box: the message names the fix"
