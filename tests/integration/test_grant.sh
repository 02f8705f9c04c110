#!/bin/sh
# The restricted tier (issue 11): real users (useradd bxg1..bxg3), a real
# incus-user on its own socket, box grant / box revoke [--purge].
#
#   - before a grant a user has no tier (the message names box grant)
#   - grant converges (twice: idempotent); checked independently with the
#     incus client: the pre-empted private bridge has NO address (incus-user
#     never auto-addresses), the project is restricted to boxnet with
#     snapshots and backups allowed, its default profile has no NIC, its
#     box-net is the contract's
#   - the user mints a Debian (cloud-init) box that holds the contract:
#     the "internet" by address, host / LAN / sibling dropped — the
#     siblings being another granted user's box and the admin's box
#   - the user cannot see or touch the other user's or the admin's boxes,
#     cannot attach any network but boxnet, cannot expose or set up a host,
#     and cannot mint from a box-net they edited themselves
#   - a failed grant leaves no group membership behind (checked in the
#     group database)
#   - revoke keeps boxes; revoke --purge with a live process of the user
#     ends it and leaves nothing (absence checked here with the incus
#     client, /proc and the group database), and touches nothing of the
#     default project or of the other user; a re-grant after it works
#
# The world's namespaces have fixed names: run under the stack lock
#   flock /tmp/box-stack.lock env IT_ONLY=tests/integration/test_grant.sh make integration
# The stack itself is not changed (no setup-host, no firewall apply).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/drill/world.sh

U1=bxg1 U2=bxg2 U3=bxg3
A=hg-admin1 D1=hg-deb1 S2=hg-sib2 X1=hg-x1
IDEB=box-test-debian IBB=box-test-busybox
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
tmp=$(mktemp -d /tmp/hg-grant.XXXXXX)
chmod 755 "$tmp"
cp "$BOX" "$tmp/box" && chmod 755 "$tmp/box"
cp tests/drill/probe.py "$tmp/probe.py" && chmod 644 "$tmp/probe.py"
UB=$tmp/box
# A template of the test's own: blank's user, no package (blank's tmux would
# send apt after a mirror this hermetic host cannot resolve, for minutes).
mkdir -p "$tmp/tpl/hg-plain"
sed 's/^BOX_DESCRIPTION=.*/BOX_DESCRIPTION="test_grant: a user, no packages"/' \
    templates/blank/box.env >"$tmp/tpl/hg-plain/box.env"
sed '/^packages:/,$d' templates/blank/user-data.yaml >"$tmp/tpl/hg-plain/user-data.yaml"
chmod -R a+rX "$tmp/tpl"
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost
started_iu=

as() { _u=$1; shift; (cd "$tmp" && runuser -u "$_u" -- "$@"); }
uid_of() { id -u "$1"; }
in_group() { getent group incus | cut -d: -f4 | tr ',' '\n' | grep -qx "$1"; }

images_default() { incus image list -f csv -c f | sort | tr '\n' ' '; }
profiles_default() { incus profile list -f csv -c n | sort | tr '\n' ' '; }

purge_user()
{
	id "$1" >/dev/null 2>&1 || return 0
	BOX_YES=1 $BOX revoke "$1" --purge >/dev/null 2>&1
	_p=user-$(uid_of "$1")
	incus project show "$_p" >/dev/null 2>&1 &&
	    incus project delete "$_p" >/dev/null 2>&1
	userdel -r "$1" >/dev/null 2>&1
}

cleanup()
{
	for _u in $U1 $U2 $U3; do purge_user $_u; done
	incus delete -f $A >/dev/null 2>&1
	world_down >/dev/null 2>&1
	[ -n "$started_iu" ] && kill "$started_iu" 2>/dev/null
	rm -rf "$tmp"
}

[ "$(id -u)" = 0 ] || { echo "needs root"; echo "0 passed, 1 failed"; exit 1; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "the egress guard is not installed (sh ci/egress-guard.sh install)"; summary; }
ok "egress guard: table inet box_test_guard is live"
incus network show boxnet >/dev/null 2>&1 ||
    { fail "no boxnet: BOX_DNS=127.0.0.1 ./box setup-host first"; summary; }
for _u in $U1 $U2 $U3; do purge_user $_u; done
incus delete -f $A >/dev/null 2>&1
trap cleanup EXIT
world_up >/dev/null 2>&1 || { fail "world: could not build the namespaces"; summary; }
ok "world: the internet at $W_INET, the LAN at $W_LAN, a host listener on :$W_HOST_PORT"

# incus-user as this machine runs it (no systemd): by hand, on its socket.
if ! pgrep -x incus-user >/dev/null 2>&1; then
	setsid /usr/libexec/incus/incus-user --group incus \
	    >"$tmp/incus-user.log" 2>&1 </dev/null &
	started_iu=$!
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		[ -S /var/lib/incus/unix.socket.user ] && break
		sleep 0.5
	done
fi

for _u in $U1 $U2 $U3; do useradd -m -s /bin/sh "$_u"; done
UID1=$(uid_of $U1) UID2=$(uid_of $U2) UID3=$(uid_of $U3)
P1=user-$UID1 P2=user-$UID2 P3=user-$UID3

echo "=== before the grant"
out=$(as $U1 "$UB" list 2>&1); rc=$?
expect_eq "$rc" 1 "$U1 without a tier: box list fails"
expect_contains "$out" "box grant" "  and the message names box grant"

echo "=== grant"
out=$($BOX grant $U1 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U1"
[ $rc = 0 ] || printf '%s\n' "$out"
expect_contains "$out" "incus-user: no systemd: /usr/libexec/incus/incus-user --group incus" \
    "  grant says how incus-user was started"
out=$($BOX grant $U1 2>"$tmp/err"); rc=$?
expect_eq "$rc" 0 "box grant $U1 again (idempotent)"
expect_eq "$out" "granted: $U1 has the restricted tier — their 'box new' lands on the hardened boxnet." \
    "  stdout carries the verdict line alone"
err=$(cat "$tmp/err")
expect_contains "$err" "already in 'incus'" "  the second run finds the group already there (stderr)"
expect_contains "$err" "  profile: box-net in $P1 already right" "  progress goes to stderr"
in_group $U1 && ok "$U1 is in 'incus' (group database)" || fail "$U1 is not in 'incus'"
expect_eq "$(incus network get incusbr-$UID1 ipv4.address) $(incus network get incusbr-$UID1 ipv6.address)" \
    "none none" "incusbr-$UID1: no IPv4, no IPv6 address (nothing auto-addressed)"
expect_eq "$(incus project get $P1 restricted.networks.access)" boxnet "$P1: restricted.networks.access=boxnet"
expect_eq "$(incus project get $P1 restricted.snapshots) $(incus project get $P1 restricted.backups)" \
    "allow allow" "$P1: snapshots and backups allowed"
expect_eq "$(incus project get $P1 features.profiles) $(incus project get $P1 features.images)" \
    "true true" "$P1: profiles and images of its own"
expect_eq "$(incus profile show default --project $P1 | grep -c 'type: nic')" 0 \
    "$P1: the default profile has no NIC (incus-user's eth0 is gone)"
expect_eq "$(incus profile device get box-net eth0 security.port_isolation --project $P1) $(incus profile device get box-net eth0 network --project $P1)" \
    "true boxnet" "$P1: box-net has eth0 on boxnet with port isolation"
incus config trust list -f csv | grep -q "incus-user-$UID1" &&
    ok "trust entry incus-user-$UID1 exists" || fail "no trust entry incus-user-$UID1"
out=$($BOX grant $U2 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U2 (a second user)"
[ $rc = 0 ] || printf '%s\n' "$out"

echo "=== boxes: $U1 (Debian, cloud-init), $U2 (busybox), the admin (busybox)"
incus image import /var/cache/box-tests/$IDEB-*.tar.gz --project $P1 --alias $IDEB >/dev/null 2>&1 ||
    incus image copy $IDEB local: --target-project $P1 --alias $IDEB >/dev/null 2>&1
incus image import /var/cache/box-tests/$IBB-*.tar.gz --project $P1 --alias $IBB >/dev/null 2>&1
incus image import /var/cache/box-tests/$IBB-*.tar.gz --project $P2 --alias $IBB >/dev/null 2>&1
t=$(date +%s)
out=$(as $U1 env BOX_TEMPLATES="$tmp/tpl" "$UB" new --name $D1 --template hg-plain \
    --image $IDEB </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "$U1: box new --name $D1 --image $IDEB ($(($(date +%s) - t)) s)"
[ $rc = 0 ] || printf '%s\n' "$out" | tail -5
expect_eq "$(as $U1 "$UB" exec $D1 -- cloud-init status 2>/dev/null | tail -1)" "status: done" \
    "  cloud-init finished in it"
expect_eq "$(as $U1 "$UB" exec $D1 -- id -un 2>/dev/null)" dev "  box exec runs as the template's user (cloud-init made it)"
out=$(as $U2 "$UB" new --name $S2 --image $IBB </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "$U2: box new --name $S2"
out=$($BOX new --name $A --image $IBB </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "admin: box new --name $A"
ip_of() { incus list "$1" --project "$2" -f csv -c 4 | sed -n 's/^\([0-9.]*\) .*/\1/p' | head -1; }
for _i in $(seq 1 30); do
	IS2=$(ip_of $S2 $P2) IA=$(ip_of $A default)
	[ -n "$IS2" ] && [ -n "$IA" ] && break
	sleep 1
done
GW=$(incus network get boxnet ipv4.address); GW=${GW%/*}
expect_contains "$(as $U1 "$UB" list)" "$D1" "$U1: box list shows $D1"

echo "=== the contract, from inside $U1's box"
as $U1 "$UB" exec $D1 -- sh -c 'cat >/tmp/probe.py' <"$tmp/probe.py"
verdicts=$(as $U1 "$UB" exec $D1 -- python3 /tmp/probe.py batch <<EOF 2>&1
inet http http://$W_INET/ 5
host tcp $GW $W_HOST_PORT 3
uplink tcp ${W_UPLINK:-$GW} $W_HOST_PORT 3
lan tcp $W_LAN 80 3
sib tcp ${IS2:-0.0.0.0} 22 3
adm tcp ${IA:-0.0.0.0} 22 3
EOF
)
v() { printf '%s\n' "$verdicts" | sed -n "s/^$1 //p"; }
expect_eq "$(v inet)" "body $W_MARK_INET" "egress: $D1 reaches the internet by address"
for _p in "host:the host (gateway :$W_HOST_PORT)" "uplink:the host's uplink address" \
    "lan:the LAN ($W_LAN:80)" "sib:$U2's box $S2 (${IS2:-no address}:22)" \
    "adm:the admin's box $A (${IA:-no address}:22)"; do
	_id=${_p%%:*} _what=${_p#*:}
	case $(v $_id) in
	dropped*) ok "dropped: $D1 -> $_what" ;;
	*) fail "$D1 -> $_what: '$(v $_id)' (wanted: dropped)" ;;
	esac
done

echo "=== what $U1 cannot see or do"
out=$(as $U1 "$UB" list 2>&1)
case $out in *"$S2"*|*"$A"*) fail "$U1 sees other boxes: $out" ;; *) ok "$U1's list holds neither $S2 nor $A" ;; esac
out=$(as $U1 "$UB" info $S2 2>&1); expect_eq "$?" 1 "$U1: box info $S2 (another user's) fails"
out=$(as $U1 "$UB" rm $A --force 2>&1); expect_eq "$?" 1 "$U1: box rm $A (the admin's) fails"
out=$(as $U1 env BOX_PROJECT=$P2 "$UB" list 2>&1); rc=$?
expect_eq "$rc" 1 "$U1: BOX_PROJECT=$P2 box list is refused"
out=$(as $U1 env BOX_PROJECT=default "$UB" list 2>&1); rc=$?
expect_eq "$rc" 1 "$U1: BOX_PROJECT=default box list is refused"
for _n in boxtest0 incusbr-$UID1; do
	out=$(as $U1 incus init $IBB $X1 --network $_n 2>&1); rc=$?
	if [ $rc != 0 ]; then ok "$U1 cannot attach $_n ($(printf '%s' "$out" | tail -1 | cut -c1-80))"
	else fail "$U1 created an instance on $_n"; as $U1 incus delete -f $X1 >/dev/null 2>&1; fi
done
out=$(as $U1 "$UB" expose $D1 8080 2>&1); rc=$?
expect_eq "$rc" 1 "$U1: box expose is refused"
expect_contains "$out" "admin" "  naming who can"
out=$(as $U1 "$UB" setup-host 2>&1); expect_eq "$?" 1 "$U1: box setup-host is refused"
out=$(as $U1 "$UB" grant $U2 2>&1); expect_eq "$?" 1 "$U1: box grant is refused"
out=$(as $U1 "$UB" doctor 2>&1); rc=$?
expect_contains "$out" "restricted: /var/lib/incus/unix.socket.user, project $P1" "$U1: doctor runs the restricted check set"
expect_eq "$rc" 0 "  and finds it clean"
expect_contains "$out" "clean — your tier is granted" "  with the restricted verdict"
as $U1 incus profile device set box-net eth0 security.port_isolation false >/dev/null 2>&1
out=$(as $U1 "$UB" new --name $X1 --image $IBB 2>&1); rc=$?
expect_eq "$rc" 1 "$U1 edited their box-net (port isolation off): box new refuses"
expect_contains "$out" "not the contract's" "  saying why"
out=$(as $U1 "$UB" doctor 2>&1); expect_eq "$?" 1 "  doctor (restricted) fails on it"
out=$($BOX doctor 2>&1)
expect_contains "$out" "FAIL  granted $P1: ($U1): box-net is not the contract's" "  the host's doctor names it"
$BOX grant $U1 >/dev/null 2>&1
expect_eq "$(incus profile device get box-net eth0 security.port_isolation --project $P1)" true \
    "  box grant converges it back"

echo "=== a failed grant"
# The injected fault: a project user-<uid> made behind incus-user's back
# whose profiles are the default project's (features.profiles=false).  A
# fresh incus-user refuses to set the user up beside it; one that already
# remembers the name sets the user up, and then grant refuses to write
# box-net into what would be the default project's profiles.  Either way
# the grant fails after adding the group.
incus project create $P3 -c features.profiles=false >/dev/null 2>&1
out=$($BOX grant $U3 2>&1); rc=$?
expect_eq "$rc" 1 "box grant $U3 fails (a project with no profiles of its own)"
expect_contains "$out" "removed $U3 from 'incus' again (verified against the group database)" \
    "  and says it backed the group out"
in_group $U3 && fail "$U3 is still in 'incus'" || ok "$U3 is not in 'incus' (group database)"
incus project delete $P3 >/dev/null 2>&1

echo "=== revoke keeps boxes"
out=$($BOX revoke $U2 2>&1); rc=$?
expect_eq "$rc" 0 "box revoke $U2"
in_group $U2 && fail "$U2 is still in 'incus'" || ok "$U2 left 'incus'"
expect_eq "$(incus list $S2 --project $P2 -f csv -c s)" RUNNING "$U2's $S2 is kept, still running"

echo "=== revoke --purge with a live session"
img_before=$(images_default) prof_before=$(profiles_default)
# A custom volume of the tier with a snapshot: the volume list names the
# snapshot too, and the purge must delete the volume (its snapshot goes
# with it) rather than stop at the snapshot.
vols() { incus storage volume list default --all-projects -f csv -c en 2>/dev/null | grep -c "^$P1,hg-vol"; }
incus storage volume create default hg-vol size=8MiB --project $P1 >/dev/null 2>&1 &&
    incus storage volume snapshot create default hg-vol hg-s1 --project $P1 >/dev/null 2>&1
expect_eq "$(vols)" 2 "$P1 holds the custom volume hg-vol and its snapshot"
as $U1 sh -c 'exec sleep 600' </dev/null >/dev/null 2>&1 &
sess=$!
for _i in 1 2 3 4 5 6 7 8 9 10; do pgrep -u $U1 -x sleep >/dev/null && break; sleep 0.2; done
pgrep -u $U1 -x sleep >/dev/null && ok "$U1 holds a session (sleep)" || fail "no session of $U1 to end"
out=$(as $U1 "$UB" revoke $U1 --purge --force 2>&1); expect_eq "$?" 1 "$U1: box revoke is refused"
out=$($BOX revoke $U1 --purge </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "revoke --purge with no terminal and no --force/BOX_YES refuses (exit 2)"
t=$(date +%s)
out=$($BOX revoke $U1 --purge --force 2>"$tmp/err"); rc=$?
expect_eq "$rc" 0 "box revoke $U1 --purge --force ($(($(date +%s) - t)) s)"
[ $rc = 0 ] || cat "$tmp/err"
expect_eq "$out" "revoked: $U1 is out, and everything the tier created is gone." \
    "  stdout carries the verdict line alone"
expect_contains "$(cat "$tmp/err")" "  deleted the project $P1" "  progress (what it deleted) goes to stderr"
wait $sess 2>/dev/null
expect_eq "$(pgrep -u $U1 | wc -l)" 0 "no process of $U1 is left"
in_group $U1 && fail "$U1 is still in 'incus'" || ok "$U1 is not in 'incus'"
incus project show $P1 >/dev/null 2>&1 && fail "project $P1 survives" || ok "project $P1 is gone (incus)"
expect_eq "$(vols)" 0 "the volume hg-vol and its snapshot are gone (incus)"
incus network show incusbr-$UID1 >/dev/null 2>&1 && fail "incusbr-$UID1 survives" || ok "incusbr-$UID1 is gone (incus)"
incus config trust list -f csv | grep -q "incus-user-$UID1" && fail "trust entry incus-user-$UID1 survives" ||
    ok "trust entry incus-user-$UID1 is gone (incus)"
[ -e /var/lib/incus/users/$UID1 ] && fail "/var/lib/incus/users/$UID1 survives" || ok "/var/lib/incus/users/$UID1 is gone"
expect_eq "$(images_default)" "$img_before" "the default project's images are untouched"
expect_eq "$(profiles_default)" "$prof_before" "the default project's profiles are untouched"
expect_eq "$(incus list $S2 --project $P2 -f csv -c s)" RUNNING "$U2's $S2 still runs"
expect_eq "$(incus list $A -f csv -c s)" RUNNING "the admin's $A still runs"
out=$(as $U1 "$UB" list 2>&1); expect_eq "$?" 1 "$U1 has no tier any more"

echo "=== re-grant after the purge"
out=$($BOX grant $U1 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U1 again"
[ $rc = 0 ] || printf '%s\n' "$out"
expect_contains "$out" "verified from $U1's side" "  verified from the user's side"
out=$(as $U1 "$UB" list 2>&1); rc=$?
expect_eq "$rc" 0 "$U1: box list works again (no boxes)"
expect_eq "$(incus project get $P1 restricted.networks.access)" boxnet "$P1 is restricted to boxnet again"

summary
