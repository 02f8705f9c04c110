#!/bin/sh
# Egress policies (issue 13), in the drill's hermetic world
# (tests/drill/world.sh: probe.test -> 203.0.113.10, rotated to .11;
# other.test -> 203.0.113.20; a listener on :80 of each), on the real
# stack built with BOX_DNS = the world's resolver, with busybox boxes:
#   1. a box minted with --egress allow:probe.test reaches probe.test by
#      name and nothing else: other.test dropped by name and by address,
#      an unresolved address of the world dropped, DNS to anyone but the
#      gateway dropped; an open box (the control) reaches all of it;
#      and the limit: a name that shares an allowed address is reached;
#   2. probe.test's answer rotates and the box still connects (the set
#      learns the new address from the fresh answer);
#   3. box egress --log names the refused destination (other.test, tcp/80);
#   4. the policy survives down/start, a clone (inherited; the clone's own
#      MAC), export -> rm -> import (re-applied; the import gets its MAC
#      before it starts), snapshot/restore, rename;
#   5. box egress ... open re-opens live; allow closes again;
#   6. the egress chain emptied (what a reboot leaves) lets other.test
#      through (the negative control), and `box firewall apply` (the boot
#      unit) puts it back from the saved state without asking the daemon;
#   7. box egress show --json and box doctor say held, and not held when
#      the chain is emptied;
#   8. measured: policy apply time, connect time allow vs open, addresses
#      held for a busy name (100 A records).
# Changes the shared stack (setup-host, raw.dnsmasq, the firewall): run it
# under the stack lock.  Leaves the stack as BOX_DNS=127.0.0.1 box
# setup-host does.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/drill/world.sh

P=${IT_EGRESS_PREFIX:-he-eg-}
IT_PREFIX=$P
T=/tmp/$P-work
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost

restore_stack()
{
	cleanup_prefix $P >/dev/null 2>&1
	rm -rf "$T"
	world_down
	BOX_DNS=127.0.0.1 $BOX setup-host >/dev/null 2>&1 ||
	    echo "# WARNING: restoring the stack failed: BOX_DNS=127.0.0.1 $BOX setup-host"
}
[ "$(id -u)" = 0 ] || { fail "needs root"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap 'restore_stack' EXIT INT TERM
mkdir -p "$T"
world_up || { fail "the world did not come up"; summary; }
out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { fail "setup-host: $out"; summary; }

# inbox BOX CMD: a shell command in the box; its output
inbox() { $BOX exec "$1" -- sh -c "$2" </dev/null 2>/dev/null; }
# get BOX URL: the body, or "" when nothing came (3 s)
get() { inbox "$1" "timeout 3 wget -q -O- $2 2>/dev/null"; }
reaches() {	# reaches BOX URL DESC
	case $(get "$1" "$2") in
	*"$W_MARK_INET"*) ok "$3" ;;
	*) fail "$3: nothing from $2" ;;
	esac
}
refused() {	# refused BOX URL DESC
	case $(get "$1" "$2") in
	*"$W_MARK_INET"*) fail "$3: $2 answered" ;;
	*) ok "$3" ;;
	esac
}
held() {
	_h=$($BOX egress "$1" show --json 2>&1 | json "j['kernel']['held']")
	[ "$_h" = true ] || $BOX egress "$1" show >&2
	echo "$_h"
}
ms() { echo $(($(date +%s%N) / 1000000)); }
setelems() { nft list set inet box "ea-$1" 2>/dev/null | tr -d '\n\t' |
    sed -n 's/.*elements = { \([^}]*\)}.*/\1/p'; }

# --- refusals -----------------------------------------------------------------
run 2 "only lower-case letters" "--egress refuses an upper-case name" -- \
    new --name ${P}x --image box-test-busybox --egress allow:Probe.test
run 2 "an address, not a name" "--egress refuses an address" -- \
    new --name ${P}x --image box-test-busybox --egress allow:203.0.113.20
run 2 "a policy is open or allow" "--egress refuses another mode" -- \
    new --name ${P}x --image box-test-busybox --egress deny:probe.test

# --- 1. allow:probe.test --------------------------------------------------------
t=$(ms)
run 0 "ready" "mint with --egress allow:probe.test" -- \
    new --name ${P}a --image box-test-busybox --egress allow:$W_PROBE_NAME
echo "# mint with a policy: $(($(ms) - t)) ms"
run 0 "ready" "mint an open box (the control)" -- \
    new --name ${P}b --image box-test-busybox
expect_eq "$(held ${P}a)" "true" "the kernel holds ${P}a's policy"
expect_contains "$($BOX list)" "allow:$W_PROBE_NAME" "box list shows the policy"
expect_contains "$($BOX info ${P}a)" "EGRESS     allow:$W_PROBE_NAME" "box info shows the policy"
expect_eq "$($BOX list --json | json "[b['egress'] for b in j if b['name'] == '${P}b'][0]")" \
    "open" "box list --json: the open box says open"

reaches ${P}b "http://$W_OTHER_NAME/" "control: the open box reaches other.test"
reaches ${P}b "http://$W_OTHER/" "control: the open box reaches $W_OTHER by address"
reaches ${P}a "http://$W_PROBE_NAME/" "allow box reaches probe.test by name"
refused ${P}a "http://$W_OTHER_NAME/" "allow box: other.test dropped"
refused ${P}a "http://$W_OTHER/" "allow box: $W_OTHER dropped by address"
refused ${P}a "http://$W_ROT/" "allow box: $W_ROT (not answered yet) dropped"
got=$(inbox ${P}a "timeout 3 nslookup $W_PROBE_NAME $W_INET >/dev/null 2>&1 && echo answered")
expect_eq "$got" "" "allow box: DNS to a resolver other than the gateway dropped"
got=$(inbox ${P}b "timeout 3 nslookup $W_PROBE_NAME $W_INET >/dev/null 2>&1 && echo answered")
expect_eq "$got" "answered" "control: the open box may ask that resolver"

# What the policy cannot stop, measured: another name served from an
# allowed name's address (a CDN's) is reached, since the kernel sees only
# the address.
echo "$W_INET cdn-neighbour.test" >"$W_STATE/hosts.d/shared"
sleep 0.3
reaches ${P}a "http://cdn-neighbour.test/" "the limit: a name sharing probe.test's address is reached too"
rm -f "$W_STATE/hosts.d/shared"

# --- 2. rotation ----------------------------------------------------------------
world_rotate $W_ROT
sleep 0.3
reaches ${P}a "http://$W_PROBE_NAME/" "after rotation to $W_ROT probe.test still connects"
case " $(setelems ${P}a) " in
*"$W_INET"*"$W_ROT"* | *"$W_ROT"*"$W_INET"*) ok "the set holds both answers ($(setelems ${P}a))" ;;
*) fail "the set after rotation: $(setelems ${P}a)" ;;
esac
world_rotate $W_INET

# --- 3. the log -----------------------------------------------------------------
j=$($BOX egress ${P}a --log --json 2>&1)
expect_eq "$(echo "$j" | json "sorted(set('%s %s/%s %s' % (d['address'], d['proto'], d['port'], d['name']) for d in j['destinations'] if d['address'] == '$W_OTHER'))")" \
    "[\"$W_OTHER tcp/80 $W_OTHER_NAME\"]" "the log names the refused destination"
expect_eq "$(echo "$j" | json "j['refused_packets'] > 0")" "true" "the log counts refused packets"
expect_contains "$($BOX egress ${P}a --log)" "$W_OTHER_NAME" "the text log names it too"

# --- 4. carried ------------------------------------------------------------------
run 0 "" "down" -- down ${P}a
run 0 "" "start" -- start ${P}a
wait_ipv4 ${P}a 60 >/dev/null
reaches ${P}a "http://$W_PROBE_NAME/" "after down/start: probe.test"
refused ${P}a "http://$W_OTHER_NAME/" "after down/start: other.test dropped"

run 0 "ready" "clone" -- new --name ${P}c --from ${P}a
expect_contains "$($BOX egress ${P}c show)" "allow:$W_PROBE_NAME" "the clone inherits the policy"
expect_eq "$(held ${P}c)" "true" "the kernel holds the clone's policy (its own MAC)"
reaches ${P}c "http://$W_PROBE_NAME/" "clone: probe.test"
refused ${P}c "http://$W_OTHER_NAME/" "clone: other.test dropped"

run 0 "" "down the clone" -- down ${P}c
run 0 "exported" "export" -- export ${P}c "$T/c.tar.gz"
run 0 "removed" "rm" -- rm ${P}c --force
expect_eq "$(nft list set inet box ea-${P}c >/dev/null 2>&1 && echo there)" "" "rm takes the box's set away"
run 0 "imported" "import" -- import "$T/c.tar.gz"
expect_contains "$($BOX egress ${P}c show)" "allow:$W_PROBE_NAME" "the import carries the policy"
expect_eq "$(held ${P}c)" "true" "the import re-applied it"
refused ${P}c "http://$W_OTHER_NAME/" "import: other.test dropped"
reaches ${P}c "http://$W_PROBE_NAME/" "import: probe.test"


run 0 "" "snapshot" -- snapshot ${P}c before-open
run 0 "" "open the clone" -- egress ${P}c open
run 0 "" "down the clone" -- down ${P}c
run 0 "restored" "restore the snapshot (taken under allow)" -- restore ${P}c before-open --force
expect_contains "$($BOX egress ${P}c show)" "allow:$W_PROBE_NAME" "restore brings the snapshot's policy back"
expect_eq "$(held ${P}c)" "true" "...and the kernel holds it"


run 0 "renamed" "rename the (stopped) clone" -- rename ${P}c ${P}d
expect_eq "$(held ${P}d)" "true" "after rename the kernel holds it under the new name"
expect_eq "$(nft list set inet box ea-${P}c >/dev/null 2>&1 && echo there)" "" "...and the old name's set is gone"

# --- 5. open live, and closed again ------------------------------------------------
t=$(ms)
run 0 "is now open" "egress open" -- egress ${P}a open
echo "# policy apply (open): $(($(ms) - t)) ms"
reaches ${P}a "http://$W_OTHER_NAME/" "open re-opens live: other.test"
t=$(ms)
run 0 "is now allow:$W_PROBE_NAME" "egress allow" -- egress ${P}a allow $W_PROBE_NAME
echo "# policy apply (allow): $(($(ms) - t)) ms"
refused ${P}a "http://$W_OTHER/" "allow closes live: $W_OTHER dropped"
reaches ${P}a "http://$W_PROBE_NAME/" "...and probe.test resolves again"
run 2 "the last name" "deny refuses to empty the list" -- egress ${P}a deny $W_PROBE_NAME

# --- 6. what a reboot leaves, and the boot unit ---------------------------------------
doc() {	# doc BOX: doctor's verdicts on BOX's policy
	$BOX doctor --json 2>/dev/null | json "' '.join(c['status'] for c in j['checks'] if c['id'] == 'egress.box' and c['text'].startswith('$1:'))"
}
expect_eq "$(doc ${P}a)" "pass" "doctor: ${P}a's policy is held"
nft flush chain inet box egress
reaches ${P}a "http://$W_OTHER/" "negative control: without the egress chain $W_OTHER answers"
expect_eq "$(doc ${P}a)" "fail" "doctor: ${P}a's policy is NOT held"
t=$(ms)
run 0 "" "firewall apply (the boot unit's command)" -- firewall apply
echo "# firewall apply with the saved egress part (kernel only, no daemon): $(($(ms) - t)) ms"
expect_eq "$(held ${P}a)" "true" "firewall apply restored the policy from the saved state"
refused ${P}a "http://$W_OTHER/" "...and $W_OTHER is dropped again"

# --- 8. measured ---------------------------------------------------------------------
# 3 rounds of 50 fetches by address (no DNS in the way), alternating
loop='i=0; while [ $i -lt 50 ]; do timeout 3 wget -q -O /dev/null http://'$W_INET'/ || echo miss; i=$((i+1)); done'
inbox ${P}a "wget -q -O /dev/null http://$W_PROBE_NAME/"
m=; da=999999; db=999999
for r in 1 2 3; do
	t=$(ms); m=$m$(inbox ${P}a "$loop"); d=$(($(ms) - t)); [ $d -lt $da ] && da=$d
	t=$(ms); m=$m$(inbox ${P}b "$loop"); d=$(($(ms) - t)); [ $d -lt $db ] && db=$d
done
expect_eq "$m" "" "3 x 50 fetches each from the allow and the open box"
echo "# 50 fetches (best of 3): allow box $da ms, open box $db ms"
i=100; : >"$T/busy"
while [ $i -lt 125 ]; do echo "203.0.113.$i busy.test" >>"$T/busy"; i=$((i + 1)); done
mv "$T/busy" "$W_STATE/hosts.d/busy"
run 0 "" "allow busy.test too" -- egress ${P}a allow busy.test
i=0 n=0
while [ $i -lt 20 ] && [ "$n" -lt 25 ]; do
	inbox ${P}a "nslookup busy.test >/dev/null 2>&1"
	n=$(setelems ${P}a | tr ',' '\n' | grep -c '203.0.113.1[0-9][0-9]')
	i=$((i + 1))
	[ "$n" -ge 25 ] || sleep 0.25
done
expect_eq "$n" "25" "a busy name's 25 answers are all held"
echo "# addresses held for a busy name (25 A records, one answer): $n"
rm -f "$W_STATE/hosts.d/busy"

summary
