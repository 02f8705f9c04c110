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
# The stack is built (setup-host, as test_lifecycle.sh does) only when no
# earlier script left one; it is not changed otherwise.
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
	# the revoke's tombstone outlives the user: the test removes its own
	[ -f /var/lib/incus/users/${_p#user-} ] && rm -f /var/lib/incus/users/${_p#user-}
	return 0
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
# The stack as test_lifecycle.sh builds it when no earlier script left one.
incus network show boxnet >/dev/null 2>&1 ||
    BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 $BOX setup-host >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log"; fail "no boxnet, and setup-host failed"; summary; }
for _u in $U1 $U2 $U3; do purge_user $_u; done
incus delete -f $A >/dev/null 2>&1
trap cleanup EXIT
world_up >/dev/null 2>&1 || { fail "world: could not build the namespaces"; summary; }
ok "world: the internet at $W_INET, the LAN at $W_LAN, a host listener on :$W_HOST_PORT"

# incus-user as this machine runs it (no systemd): by hand, on its socket.
start_incus_user "$tmp/incus-user.log"

for _u in $U1 $U2 $U3; do useradd -m -s /bin/sh "$_u"; done
UID1=$(uid_of $U1) UID2=$(uid_of $U2) UID3=$(uid_of $U3)
P1=user-$UID1 P2=user-$UID2 P3=user-$UID3

# purge_protect_setup (issue 35): the user's security.protection.delete,
# on an instance and on a profile of theirs, once stopped revoke --purge
# halfway.  The control: the daemon refuses to delete either as it stands.
purge_protect_setup()
{
	as $U1 incus init $IBB hg-prot1 -p box-net -c security.protection.delete=true >/dev/null 2>&1
	as $U1 incus profile create hg-protp >/dev/null 2>&1 &&
	    as $U1 incus profile set hg-protp security.protection.delete=true >/dev/null 2>&1 &&
	    as $U1 incus init $IBB hg-prot2 -p box-net -p hg-protp >/dev/null 2>&1
	for _i in hg-prot1 hg-prot2; do
		out=$(incus delete $_i --project $P1 2>&1); rc=$?
		expect_eq "$rc" 1 "  control: $U1's $_i is protected: the daemon refuses its delete ($(printf '%s' "$out" | tail -1 | cut -c1-60))"
	done
}

# gate_refusal (issue 35): on a daemon failing gates, grant's refusal names
# every failing one.  Incus 6.0.4 fails all four.
gate_refusal()
{
	case $(incus version | sed -n 's/^Server version: //p') in
	6.0.4)
		expect_contains "$out" "fails 4 of the tier's gates" "  Incus 6.0.4: grant refuses on all four gates"
		for _g in "symlinked metadata/templates (it served" \
		    "a top-level rootfs link (it unpacked an image whose rootfs links to box's canary" \
		    "cross-project copy (" "copy of a privileged instance ("; do
			expect_contains "$out" "$_g" "  it names: $_g"
		done
		expect_contains "$out" "would get every project's boxes (the admin's and every other user's, copied and read) and root on this host" \
		    "  and says what a granted user would get" ;;
	esac
}

# gate_controls (issue 35): each gate's escape, done by the granted user
# (granted past the gate with --accept-daemon-risk), on this daemon: the
# proof that what the gate refuses is real.
gate_controls()
{
	[ -n "$GF" ] || return 0
	# a top-level rootfs link: the user reads a root-only file
	_sd=/root/hg-rootfs-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	mkdir -m 700 "$_sd" && echo "$_sd" >"$_sd/secret" && chmod 600 "$_sd/secret"
	mkdir -p "$tmp/rfs/a/rootfs" "$tmp/rfs/b"
	printf 'architecture: %s\ncreation_date: 1\nproperties:\n  description: hg-rfs\n' "$(uname -m)" >"$tmp/rfs/a/metadata.yaml"
	ln -s "$_sd" "$tmp/rfs/b/rootfs"
	tar -cf "$tmp/rfs.tar" -C "$tmp/rfs/a" metadata.yaml rootfs && tar -rf "$tmp/rfs.tar" -C "$tmp/rfs/b" rootfs
	chmod 644 "$tmp/rfs.tar"
	as $U1 incus image import "$tmp/rfs.tar" --alias hg-rfs >/dev/null 2>&1 &&
	    as $U1 incus init hg-rfs hg-rfs1 -p box-net >/dev/null 2>&1
	expect_eq "$(as $U1 incus file pull hg-rfs1/secret - 2>&1)" "$_sd" \
	    "  control: $U1 reads root's $_sd/secret through an image whose rootfs links there"
	as $U1 incus delete -f hg-rfs1 >/dev/null 2>&1
	as $U1 incus image delete hg-rfs >/dev/null 2>&1
	rm -rf "$_sd"
	# cross-project copy: the admin's box, into the user's project
	as $U1 incus query -X POST "/1.0/instances?project=$P1" --wait \
	    -d "{\"name\":\"hg-steal\",\"source\":{\"type\":\"copy\",\"source\":\"$A\",\"project\":\"default\"}}" >/dev/null 2>&1
	expect_eq "$(incus list hg-steal --project $P1 -f csv -c n 2>&1)" hg-steal \
	    "  control: $U1 copied the admin's $A (project default) into $P1"
	incus delete -f hg-steal --project $P1 >/dev/null 2>&1
	# a privileged instance of the default project, copied
	incus init $IBB hg-priv -c security.privileged=true >/dev/null 2>&1
	as $U1 incus query -X POST "/1.0/instances?project=$P1" --wait \
	    -d "{\"name\":\"hg-priv\",\"source\":{\"type\":\"copy\",\"source\":\"hg-priv\",\"project\":\"default\"}}" >/dev/null 2>&1
	expect_eq "$(incus config get hg-priv security.privileged --project $P1 2>&1)" true \
	    "  control: $U1 copied a privileged instance into $P1 (restricted to unprivileged), security.privileged kept"
	incus delete -f hg-priv --project $P1 >/dev/null 2>&1
	incus delete -f hg-priv >/dev/null 2>&1
}

echo "=== before the grant"
out=$(as $U1 "$UB" list 2>&1); rc=$?
expect_eq "$rc" 1 "$U1 without a tier: box list fails"
expect_contains "$out" "box grant" "  and the message names box grant"

echo "=== the daemon's symlinks (an image's metadata.yaml and templates as links out)"
rm -f /run/box/daemon-symlink-probe
projects_before=$(incus project list -f csv -c n | sort | tr '\n' ' ')
t=$(date +%s%N)
out=$($BOX grant $U1 2>&1); rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
probe=$(incus project list -f csv -c n | sort | tr '\n' ' ')
expect_eq "$probe" "$projects_before" "  the probe's scratch project is gone (projects as before)"
expect_eq "$(ls -d /run/box-probe.* 2>/dev/null | wc -l)" 0 "  the probe's canary is gone"
case $out in
*"symlinked metadata/templates (it served"*) FOLLOWS=1 ;;
*) FOLLOWS=0 ;;
esac
gate_refusal
case $out in
*"fails "*" of the tier's gates"*)
	expect_eq "$rc" 1 "Incus $(incus version | sed -n 's/^Server version: //p') fails a gate: box grant $U1 refuses (${ms} ms)"
	expect_contains "$out" "upgrade Incus" "  naming the fix"
	in_group $U1 && fail "  $U1 was added to 'incus' anyway" || ok "  $U1 is not in 'incus'"
	incus project show $P1 >/dev/null 2>&1 && fail "  a project $P1 was made" || ok "  no project $P1 was made"
	GF=--accept-daemon-risk ;;
*)
	expect_eq "$rc" 0 "the daemon passes every gate: box grant $U1 (${ms} ms)"
	GF= ;;
esac
echo "=== grant"
out=$($BOX grant $U1 $GF 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U1 $GF"
[ -z "$GF" ] || expect_contains "$out" "WARNING: $U1 can copy and read every project's boxes (the admin's and every other user's) and read and write ANY file of this host as root" \
    "  --accept-daemon-risk is said loudly, saying what the user gets"
[ -z "$GF" ] || expect_contains "$out" "cached for this daemon" "  the verdict came from the cache (same daemon)"
[ $rc = 0 ] || printf '%s\n' "$out"
expect_contains "$out" "incus-user: no systemd: /usr/libexec/incus/incus-user --group incus" \
    "  grant says how incus-user was started"
out=$($BOX grant $U1 $GF 2>"$tmp/err"); rc=$?
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
out=$($BOX grant $U2 $GF 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U2 (a second user)"
[ $rc = 0 ] || printf '%s\n' "$out"

echo "=== GPUs and host disks (a box is one NIC and one root disk)"
expect_eq "$(incus project get $P1 restricted.devices.gpu) $(incus project get $P1 restricted.devices.disk) [$(incus project get $P1 restricted.devices.disk.paths)]" \
    "block managed []" "$P1: GPUs blocked, disks from pools only, no host path (incus-user's allow + its home are gone)"
hostdisk() { as $U1 incus profile device add default hg-home disk source=/home/$U1 path=/mnt/h 2>&1; }
out=$(hostdisk); rc=$?
expect_eq "$rc" 1 "$U1 cannot put their home directory on a profile ($(printf '%s' "$out" | tail -1 | cut -c1-70))"
as $U1 incus profile create hg-gpu >/dev/null 2>&1
out=$(as $U1 incus profile device add hg-gpu g gpu 2>&1); rc=$?
expect_eq "$rc" 1 "$U1 cannot add a GPU device ($(printf '%s' "$out" | tail -1 | cut -c1-70))"
# The control: incus-user's own keys let both through.
incus project set $P1 restricted.devices.disk=allow restricted.devices.disk.paths=/home/$U1 restricted.devices.gpu=allow
out=$(hostdisk); rc=$?
expect_eq "$rc" 0 "  control: with incus-user's keys the home directory goes onto the profile"
out=$(as $U1 incus profile device add hg-gpu g gpu 2>&1); rc=$?
expect_eq "$rc" 0 "  control: with incus-user's keys a GPU device is accepted"
out=$($BOX doctor 2>&1)
expect_contains "$out" "restricted.devices.gpu is not 'block'" "  the host's doctor names the GPU rule"
expect_contains "$out" "restricted.devices.disk.paths is set" "  and the host path"
as $U1 incus profile device remove default hg-home >/dev/null 2>&1
as $U1 incus profile delete hg-gpu >/dev/null 2>&1
out=$($BOX grant $U1 $GF 2>&1); rc=$?
expect_eq "$rc" 0 "  box grant $U1 converges it back"
expect_eq "$(incus project get $P1 restricted.devices.gpu) $(incus project get $P1 restricted.devices.disk)" "block managed" \
    "  GPUs blocked, pool disks only again"
out=$($BOX grant $U2 --gpu $GF 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U2 --gpu"
expect_contains "$out" "GPUs ALLOWED (--gpu" "  and says so"
expect_eq "$(incus project get $P2 restricted.devices.gpu) $(incus project get $P2 user.box.grant.gpu)" "allow true" \
    "  $P2: GPUs allowed, the grant's choice recorded (read back)"

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

echo "=== the daemon's symlinks, as the user would use them"
# A root-only file, and an image of the user's own whose metadata.yaml is a
# regular file first (the import reads it) and then a link to that file.
SECRET=hg-secret-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
printf 'architecture: x86_64\ncreation_date: 1\nproperties:\n  description: %s\n' "$SECRET" >/root/$SECRET
chmod 600 /root/$SECRET
mkdir -p "$tmp/evil/a/rootfs" "$tmp/evil/b"
printf 'architecture: %s\ncreation_date: 1\nproperties:\n  description: hg-evil\n' "$(uname -m)" >"$tmp/evil/a/metadata.yaml"
ln -s /root/$SECRET "$tmp/evil/b/metadata.yaml"
tar -cf "$tmp/evil.tar" -C "$tmp/evil/a" metadata.yaml rootfs && tar -rf "$tmp/evil.tar" -C "$tmp/evil/b" metadata.yaml
chmod 644 "$tmp/evil.tar"
out=$(as $U1 cat /root/$SECRET 2>&1); expect_eq "$?" 1 "$U1 cannot read /root/$SECRET themselves"
# The instance needs a root disk on a pool of the project's: incus-user's
# default profile has one (on "default"), but a project box made itself
# (an incus-user that has run since before a purge remembers the project
# and will not set it up again) has an empty default profile.  The pool is
# read, not assumed: the default profile's root, else box-net's.
epool=$(incus profile device get default root pool --project $P1 2>/dev/null)
[ -n "$epool" ] || epool=$(incus profile device get box-net root pool --project $P1 2>/dev/null)
if [ -z "$epool" ]; then
	out="neither the default profile nor box-net of $P1 names a root pool"
else
	out=$(as $U1 incus image import "$tmp/evil.tar" --alias hg-evil 2>&1) &&
	    out=$(as $U1 incus init hg-evil hg-evil1 --storage "$epool" 2>&1)
fi
incus info hg-evil1 --project $P1 >/dev/null 2>&1 &&
    ok "  $U1's instance hg-evil1 of the linked image is made (root on $P1's pool $epool)" ||
    fail "  $U1's instance hg-evil1 of the linked image (pool '$epool') was not made: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-200)"
out=$(as $U1 incus config metadata show hg-evil1 2>&1)
if [ $FOLLOWS = 1 ]; then
	expect_contains "$out" "$SECRET" "  control: granted past the gate (--accept-daemon-risk), $U1 reads it through the daemon (incus config metadata show)"
else
	case $out in *"$SECRET"*) fail "  the daemon served /root/$SECRET through the link" ;;
	*) ok "  the daemon does not serve /root/$SECRET through the link" ;; esac
fi
as $U1 incus delete -f hg-evil1 >/dev/null 2>&1
as $U1 incus image delete hg-evil >/dev/null 2>&1
rm -f /root/$SECRET
# A box of the user's own made with incus itself, its NIC's filters off:
# the host's doctor judges every project's instances on boxnet.
as $U1 incus init $IBB hg-x2 -p box-net -d eth0,security.port_isolation=false -d eth0,security.mac_filtering=false >/dev/null 2>&1 ||
    fail "  $U1 could not make hg-x2 (filters off) with incus"
out=$($BOX doctor 2>&1)
expect_contains "$out" "FAIL  box $P1/hg-x2:" "  the host's doctor FAILs the shape of $U1's hg-x2 (filters off, project $P1)"
expect_contains "$out" "PASS  box $P1/$D1: exactly box's shape" "  and passes $U1's $D1 (the same judgement)"
expect_contains "$out" "INFO  box $P1/$D1: probed by this host in its network namespace" "  and probes $U1's $D1 from the host, in its network namespace (nothing pushed in)"
expect_contains "$out" "PASS  box $P1/$D1: the kernel filters port" "  and reads $D1's NIC filter back by content (the daemon's ${P1}_ chains)"
as $U1 incus delete -f hg-x2 >/dev/null 2>&1
if [ -n "$GF" ]; then
	expect_contains "$out" "FAIL  daemon escapes: Incus" "  the host's doctor FAILs on the daemon while a user holds the tier"
	expect_contains "$out" "every granted user gets every project's boxes" "  saying what every granted user gets"
else
	expect_contains "$out" "PASS  daemon escapes" "  the host's doctor passes the daemon"
fi
gate_controls

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
expect_contains "$out" "WARN  box $D1: its network NOT probed from here" "  saying it cannot probe $D1's network (only root enters a namespace), not claiming it"
case $out in *"/tmp/.box-"*|*"in-box"*) fail "  the restricted doctor ran something in $D1: $out" ;; *) ok "  nothing was run inside $D1" ;; esac
as $U1 incus profile device set box-net eth0 security.port_isolation false >/dev/null 2>&1
out=$(as $U1 "$UB" new --name $X1 --image $IBB 2>&1); rc=$?
expect_eq "$rc" 1 "$U1 edited their box-net (port isolation off): box new refuses"
expect_contains "$out" "not the contract's" "  saying why"
out=$(as $U1 "$UB" doctor 2>&1); expect_eq "$?" 1 "  doctor (restricted) fails on it"
out=$($BOX doctor 2>&1)
expect_contains "$out" "FAIL  granted $P1: ($U1): box-net is not the contract's" "  the host's doctor names it"
$BOX grant $U1 $GF >/dev/null 2>&1
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
out=$($BOX grant $U3 $GF 2>&1); rc=$?
expect_eq "$rc" 1 "box grant $U3 fails (a project with no profiles of its own)"
expect_contains "$out" "removed $U3 from 'incus' again (verified against the group database)" \
    "  and says it backed the group out"
in_group $U3 && fail "$U3 is still in 'incus'" || ok "$U3 is not in 'incus' (group database)"
incus project delete $P3 >/dev/null 2>&1

echo "=== revoke keeps boxes, and nothing of the user's reaches the daemon after it"
# The attack: a setgid-'incus' copy of curl, made while granted, keeps the
# socket after the group is gone (incus-user looks only at the uid).
for _u in $U1 $U2; do
	as $_u sh -c 'cp /usr/bin/curl "$HOME/hc" && chgrp incus "$HOME/hc" && chmod 2755 "$HOME/hc"'
done
hc() { _u=$1 _p=$2; shift 2; as $_u /home/$_u/hc -sS -m 10 --unix-socket /var/lib/incus/unix.socket.user "$@" "http://l/1.0/instances$_p" 2>&1; }
hc_mark() { hc $U2 "/$S2?project=$P2" -X PATCH -H 'Content-Type: application/json' -d "{\"config\":{\"user.hg-mark\":\"$1\"}}" >/dev/null; }
[ "$(stat -c %G:%a /home/$U2/hc)" = incus:2755 ] && ok "$U2 made /home/$U2/hc (curl, setgid incus) while granted" ||
    fail "no setgid copy of curl for $U2"
expect_contains "$(hc $U2 "?project=$P2")" "/1.0/instances/$S2" "  granted: it lists $S2"
# A connection opened while granted, asked again later (keep-alive).
cat >"$tmp/ka.py" <<'PY'
import os, re, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
def req(path):
    s.sendall(("GET %s HTTP/1.1\r\nHost: l\r\n\r\n" % path).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(4096)
        if not d:
            return "closed"
        buf += d
    head, _, body = buf.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    while (m and len(body) < int(m.group(1))) or (not m and not body.endswith(b"0\r\n\r\n")):
        d = s.recv(4096)
        if not d:
            break
        body += d
    return head.split(b"\r\n")[0].decode() + " " + body.decode(errors="replace")
print("1", req(sys.argv[2]), flush=True)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.1)
try:
    print("2", req(sys.argv[2]), flush=True)
except Exception as e:
    print("2", "error", e, flush=True)
PY
chmod 644 "$tmp/ka.py"
ka_start() { rm -f "$tmp/ka.go" "$tmp/ka.$1"; as $U2 /usr/bin/python3 "$tmp/ka.py" /var/lib/incus/unix.socket.user "/1.0/instances?project=$P2" "$tmp/ka.go" >"$tmp/ka.$1" 2>&1 &
	for _i in $(seq 1 50); do grep -q '^1 ' "$tmp/ka.$1" 2>/dev/null && break; sleep 0.1; done; }
ka_next() { touch "$tmp/ka.go"; for _i in $(seq 1 100); do grep -q '^2 ' "$tmp/ka.$1" 2>/dev/null && break; sleep 0.1; done; }
ka_start ctl
# The control: the group alone (what revoke did before) leaves it in.
gpasswd -d $U2 incus >/dev/null 2>&1
ka_next ctl
expect_contains "$(sed -n 's/^1 //p' "$tmp/ka.ctl")" "/1.0/instances/$S2" "  a connection $U2 opened while granted lists $S2"
expect_contains "$(sed -n 's/^2 //p' "$tmp/ka.ctl")" "/1.0/instances/$S2" "  control: out of 'incus', its next request still lists $S2"
out=$(as $U2 curl -s -m 10 --unix-socket /var/lib/incus/unix.socket.user "http://l/1.0/instances?project=$P2" 2>&1); rc=$?
[ $rc != 0 ] && ok "  control: out of 'incus', plain curl no longer connects (exit $rc)" ||
    fail "  control: plain curl still connects out of 'incus': $out"
expect_contains "$(hc $U2 "?project=$P2")" "/1.0/instances/$S2" "  control: out of 'incus', the setgid copy still lists $S2"
hc_mark ctl
expect_eq "$(incus config get $S2 user.hg-mark --project $P2)" ctl "  control: ... and changes it (user.hg-mark=ctl)"
gpasswd -a $U2 incus >/dev/null 2>&1
ka_start cut
out=$($BOX revoke $U2 2>&1); rc=$?
ka_next cut
expect_contains "$(sed -n 's/^1 //p' "$tmp/ka.cut")" "/1.0/instances/$S2" "  a connection $U2 opened before the revoke listed $S2"
case $(sed -n 's/^2 //p' "$tmp/ka.cut") in
*"/1.0/instances/$S2"*) fail "  after revoke its next request still lists $S2" ;;
"") fail "  after revoke its next request got no answer at all (the probe did not run)" ;;
*) ok "  after revoke its next request is refused ($(sed -n 's/^2 //p' "$tmp/ka.cut" | cut -c1-60))" ;; esac
expect_eq "$rc" 0 "box revoke $U2"
[ $rc = 0 ] || printf '%s\n' "$out"
in_group $U2 && fail "$U2 is still in 'incus'" || ok "$U2 left 'incus'"
expect_eq "$(incus list $S2 --project $P2 -f csv -c s)" RUNNING "$U2's $S2 is kept, still running"
pgrep -x incus-user >/dev/null && [ -S /var/lib/incus/unix.socket.user ] &&
    ok "  incus-user still serves its socket" || fail "  incus-user is not serving: the probe below would prove nothing"
out=$(hc $U2 "?project=$P2"); rc=$?
case $out in *"$S2"*) fail "after revoke the setgid copy still lists $S2: $out" ;;
*) ok "after revoke the setgid copy lists nothing (curl exit $rc: $(printf '%s' "$out" | tail -1 | cut -c1-70))" ;; esac
[ -n "$started_iu" ] && expect_contains "$(cat "$tmp/incus-user.log")" "users/$UID2/client.crt: not a directory" \
    "  incus-user refused it (its log: the certificate path is not a directory)"
hc_mark after
expect_eq "$(incus config get $S2 user.hg-mark --project $P2)" ctl "  and changes nothing (user.hg-mark still ctl)"
incus config trust list -f csv | grep -q "incus-user-$UID2" && fail "trust entry incus-user-$UID2 survives the revoke" ||
    ok "  the trust entry incus-user-$UID2 is gone"
[ -f /var/lib/incus/users/$UID2 ] && [ "$(stat -c %U:%a /var/lib/incus/users/$UID2)" = root:600 ] &&
    ok "  /var/lib/incus/users/$UID2 is a root-only file (incus-user refuses the uid)" ||
    fail "  /var/lib/incus/users/$UID2 is not box's tombstone"

echo "=== revoke --purge with a live session"
img_before=$(images_default) prof_before=$(profiles_default)
# A custom volume of the tier with a snapshot: the volume list names the
# snapshot too, and the purge must delete the volume (its snapshot goes
# with it) rather than stop at the snapshot.
vols() { incus storage volume list default --all-projects -f csv -c en 2>/dev/null | grep -c "^$P1,hg-vol"; }
incus storage volume create default hg-vol size=8MiB --project $P1 >/dev/null 2>&1 &&
    incus storage volume snapshot create default hg-vol hg-s1 --project $P1 >/dev/null 2>&1
expect_eq "$(vols)" 2 "$P1 holds the custom volume hg-vol and its snapshot"
# The user's trap: a volume with an ESC sequence in its name on the
# project's default profile (the old purge stopped at "still in use").
EV=$(printf 'rtbv\033[2J')
as $U1 incus storage volume create default "$EV" size=8MiB >/dev/null 2>&1 &&
    as $U1 incus profile device add default hg-ev disk pool=default source="$EV" path=/mnt/ev >/dev/null 2>&1
expect_eq "$(incus profile device get default hg-ev source --project $P1 2>/dev/null)" "$EV" \
    "$U1 attached the volume 'rtbv\\e[2J' to $P1's default profile"
out=$(incus storage volume delete default "$EV" --project $P1 2>&1); rc=$?
expect_eq "$rc" 1 "  control: deleting it while attached fails ($(printf '%s' "$out" | tr -d '\033' | tail -1 | cut -c1-60))"
purge_protect_setup
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
expect_contains "$(cat "$tmp/err")" "  detached 1 disk device(s) from the default profile" "  it detached the ESC-named volume first"
expect_eq "$(printf '%s' "$out$(cat "$tmp/err")" | tr -cd '\033' | wc -c)" 0 "  no raw ESC reached the admin's terminal"
wait $sess 2>/dev/null
expect_eq "$(pgrep -u $U1 | wc -l)" 0 "no process of $U1 is left"
in_group $U1 && fail "$U1 is still in 'incus'" || ok "$U1 is not in 'incus'"
incus project show $P1 >/dev/null 2>&1 && fail "project $P1 survives" || ok "project $P1 is gone (incus)"
expect_eq "$(vols)" 0 "the volume hg-vol and its snapshot are gone (incus)"
expect_eq "$(incus storage volume list default --project $P1 -f csv -c n 2>/dev/null | grep -c rtbv)" 0 "the volume 'rtbv\\e[2J' is gone (incus)"
out=$(hc $U1 "?project=$P1"); rc=$?
case $out in *'"metadata"'*) fail "after the purge the setgid copy gets answers: $out" ;;
*) ok "after the purge $U1's setgid copy gets nothing (curl exit $rc)" ;; esac
incus network show incusbr-$UID1 >/dev/null 2>&1 && fail "incusbr-$UID1 survives" || ok "incusbr-$UID1 is gone (incus)"
incus config trust list -f csv | grep -q "incus-user-$UID1" && fail "trust entry incus-user-$UID1 survives" ||
    ok "trust entry incus-user-$UID1 is gone (incus)"
[ -d /var/lib/incus/users/$UID1 ] && fail "incus-user's directory /var/lib/incus/users/$UID1 survives" ||
    ok "incus-user's directory /var/lib/incus/users/$UID1 is gone"
[ "$(stat -c %F:%U:%a /var/lib/incus/users/$UID1 2>&1)" = "regular file:root:600" ] &&
    ok "  a root-only file holds its place (incus-user refuses uid $UID1)" || fail "  no tombstone at /var/lib/incus/users/$UID1"
expect_eq "$(images_default)" "$img_before" "the default project's images are untouched"
expect_eq "$(profiles_default)" "$prof_before" "the default project's profiles are untouched"
expect_eq "$(incus list $S2 --project $P2 -f csv -c s)" RUNNING "$U2's $S2 still runs"
expect_eq "$(incus list $A -f csv -c s)" RUNNING "the admin's $A still runs"
out=$(as $U1 "$UB" list 2>&1); expect_eq "$?" 1 "$U1 has no tier any more"

echo "=== re-grant after the purge"
out=$($BOX grant $U1 $GF 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U1 again"
[ $rc = 0 ] || printf '%s\n' "$out"
expect_contains "$out" "verified from $U1's side" "  verified from the user's side"
out=$(as $U1 "$UB" list 2>&1); rc=$?
expect_eq "$rc" 0 "$U1: box list works again (no boxes)"
expect_eq "$(incus project get $P1 restricted.networks.access)" boxnet "$P1 is restricted to boxnet again"
out=$($BOX grant $U2 $GF 2>&1); rc=$?
expect_eq "$rc" 0 "box grant $U2 again after a bare revoke (the tombstone goes, incus-user trusts a new certificate)"
[ $rc = 0 ] || printf '%s\n' "$out"
expect_contains "$(hc $U2 "?project=$P2")" "/1.0/instances/$S2" "  and $U2 reaches $S2 again"

summary
