#!/bin/sh
# box migrate-host against the real daemon and kernel.  A legacy (claudebox)
# stack is built by hand (explicit addresses: claudenet 10.87.0.1/24, no
# IPv6), with legacy boxes tagged user.claudebox=1 that hold an auth file;
# then they are re-homed onto the hardened stack and the legacy stack is
# retired:
#   * no terminal, no --force: exit 2, nothing changed; inside a box: refused
#   * retire refuses while legacy boxes exist, naming them
#   * --box: on box-net alone, a boxnet lease, the MAC and the auth file
#     kept, the old profile's limits kept, box doctor's box.nic, box.shape
#     and box.filter pass, the legacy tag gone; a second run does nothing
#   * --all-boxes: a stopped box is re-homed and left stopped; a box that
#     cannot take a lease on boxnet (its DHCP hook binds only 10.87 leases)
#     fails verification and is put back: old profile, running, its 10.87
#     lease, BOTH tags; the summary names it; fixed, a re-run resumes it
#   * retire refuses while the half-done box exists; after, it removes the
#     profile, bridge, ACL, unit, script and nft tables, and says none is left
# Names: instances hg-mig-*, the legacy objects (nobody else uses them), our
# own nft guard table inet hg_migrate_guard.  The shared stack (boxnet,
# box-net) is used, never changed; built only when missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh

[ "$(id -u)" = 0 ] || { echo "needs root"; echo "0 passed, 1 failed"; exit 1; }
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost
# A shared daemon may hold other tenants' legacy boxes: --all-boxes here
# takes ours alone, and retire (host-wide by nature: it refuses while any
# exists) is given time for theirs to go.
export BOX_MIGRATE_ONLY=hg-mig-
P=hg-mig-
A=${P}a		# running, re-homed with --box
B=${P}b		# running, cannot lease on boxnet: rolled back
C=${P}c		# stopped, re-homed with --all-boxes
D=${P}d		# a host directory of its own: refused
IMG=box-test-busybox
UNIT=/etc/systemd/system/claudebox-firewall.service
WANTS=/etc/systemd/system/multi-user.target.wants/claudebox-firewall.service
SCRIPT=/usr/local/sbin/claudebox-firewall
T=$(mktemp -d)

# Deleting a bridge races with any veth on the host vanishing (Incus asks
# `ip link show` about each): a leftover is deleted with a few tries.
del_object()
{
	for _t in 1 2 3 4 5 6 7 8 9 10; do
		exists "$1" || return 0
		api_wait DELETE "$1" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	_it_say "could not delete $1"
}
legacy_down()
{
	cleanup_prefix $P || :
	for o in profiles/claude-dev networks/claudenet network-acls/claude-isolate; do
		del_object /1.0/$o
	done
	nft delete table inet claudebox 2>/dev/null || :
	nft delete table bridge claudebox 2>/dev/null || :
	rm -f "$UNIT" "$WANTS" "$SCRIPT"
}

finish()
{
	legacy_down
	nft delete table inet hg_migrate_guard 2>/dev/null || :
	[ -n "${MADE_WANTS:-}" ] && rmdir /etc/systemd/system/multi-user.target.wants 2>/dev/null
	[ -n "${MADE_SD:-}" ] && rmdir /etc/systemd/system /etc/systemd 2>/dev/null
	rm -rf "$T"
}
trap finish EXIT
trap 'exit 1' INT TERM

cfg() { api GET "/1.0/instances/$1" | json "j['metadata']['config'].get(sys.argv[2], '-')" "$2"; }
field() { api GET "/1.0/instances/$1" | json "j['metadata'][sys.argv[2]]" "$2"; }
addr_in() {
	api GET "/1.0/instances/$1/state" | json "' '.join(a['address']
	    for n, d in ((j['metadata'] or {}).get('network') or {}).items()
	    for a in d['addresses'] if a['family'] == 'inet' and a['address'].startswith(sys.argv[2]))" "$2"
}
wait_addr_in()
{
	_end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$_end" ]; do
		_a=$(addr_in "$1" "$2")
		[ -n "$_a" ] && { echo "$_a"; return 0; }
		sleep 0.3
	done
	return 1
}
pushf()	# instance, local file, path, mode
{
	curl -sS --unix-socket "$INCUS_SOCK" -X POST -H "X-Incus-uid: 0" \
	    -H "X-Incus-gid: 0" -H "X-Incus-mode: $4" -H "X-Incus-type: file" \
	    -H 'Content-Type: application/octet-stream' --data-binary "@$2" \
	    "http://incus/1.0/instances/$1/files?path=$3" | grep -q '"status_code":200'
}
mkdirf() {
	curl -sS --unix-socket "$INCUS_SOCK" -X POST -H "X-Incus-type: directory" \
	    -H "X-Incus-mode: 0700" "http://incus/1.0/instances/$1/files?path=$2" >/dev/null
}
getf() { curl -sS --unix-socket "$INCUS_SOCK" "http://incus/1.0/instances/$1/files?path=$2"; }
exists() { api GET "$1" | grep -q '"status_code":200'; }

# --- preconditions: the guards, the shared stack --------------------------
nft list table inet box_test_guard >/dev/null 2>&1 || sh ci/egress-guard.sh install
nft list table inet box_test_guard >/dev/null 2>&1 && ok "the egress guard holds" ||
    fail "the egress guard holds"
# claudenet is not box*: our own guard keeps anything on it off the uplink
nft -f - <<'EOF'
table inet hg_migrate_guard
delete table inet hg_migrate_guard
table inet hg_migrate_guard {
	chain forward {
		type filter hook forward priority filter - 20; policy accept;
		iifname "claudenet" counter drop
		oifname "claudenet" counter drop
	}
}
EOF
if ! exists /1.0/networks/boxnet || ! exists /1.0/profiles/box-net; then
	echo "note: no box stack here: building it (BOX_DNS=127.0.0.1)"
	BOX_DNS=127.0.0.1 $BOX setup-host >/dev/null 2>&1
fi
NET=$(api GET /1.0/networks/boxnet | json "j['metadata']['config']['ipv4.address'].rsplit('.', 1)[0] + '.'")
expect_contains "$NET" "." "the shared stack's bridge has an IPv4 /24 ($NET*)"

# --- the legacy stack, by hand ------------------------------------------------
# Creating a bridge races the same way (Incus sweeps the host's veths first).
make_claudenet()
{
	for _t in 1 2 3 4 5 6 7 8 9 10; do
		api_wait POST /1.0/networks '{"name":"claudenet","type":"bridge","config":{"ipv4.address":"10.87.0.1/24","ipv6.address":"none","ipv4.nat":"false","ipv4.dhcp":"true","raw.dnsmasq":"no-resolv","security.acls":"claude-isolate"}}' >/dev/null 2>"$T/net.err" && return 0
		grep -q "does not exist" "$T/net.err" || { cat "$T/net.err" >&2; return 1; }
		sleep 0.5
	done
	return 1
}
legacy_down
api_wait POST /1.0/network-acls '{"name":"claude-isolate","egress":[{"action":"drop","destination":"192.168.0.0/16","state":"enabled"}]}' >/dev/null &&
make_claudenet &&
api_wait POST /1.0/profiles '{"name":"claude-dev","config":{"limits.cpu":"2","limits.memory":"512MiB"},"devices":{"eth0":{"type":"nic","network":"claudenet","name":"eth0"},"root":{"type":"disk","pool":"default","path":"/"}}}' >/dev/null &&
    ok "legacy claude-isolate, claudenet (10.87.0.1/24, no IPv6), claude-dev" ||
    fail "building the legacy Incus objects"
nft -f - <<'EOF' && ok "legacy nft tables inet/bridge claudebox, a rule each" || fail "legacy nft tables"
table inet claudebox {
	chain input {
		type filter hook input priority 0; policy accept;
		iifname "claudenet" udp dport 53 accept
	}
}
table bridge claudebox {
	chain forward {
		type filter hook forward priority 0; policy accept;
		iifname "hg-nomatch" drop
	}
}
EOF
[ -d /etc/systemd/system ] || { mkdir -p /etc/systemd/system; MADE_SD=1; }
[ -d /etc/systemd/system/multi-user.target.wants ] ||
    { mkdir -p /etc/systemd/system/multi-user.target.wants; MADE_WANTS=1; }
printf '[Unit]\nDescription=claudebox firewall\n[Service]\nType=oneshot\nExecStart=%s\n[Install]\nWantedBy=multi-user.target\n' "$SCRIPT" >"$UNIT"
ln -sf "$UNIT" "$WANTS"
printf '#!/bin/sh\nexit 0\n' >"$SCRIPT"
chmod 755 "$SCRIPT"

printf '{"token":"legacy-%s"}\n' "$$" >"$T/auth.json"
# B's DHCP hook binds only 10.87 leases: on boxnet it never holds one
only87_script() {
	cat <<'EOF'
#!/bin/sh
case $1 in
deconfig) ip -4 addr flush dev "$interface"; ip link set "$interface" up ;;
bound | renew)
	case $ip in 10.87.0.*) ;; *) exit 0 ;; esac
	[ "$1" = bound ] && ip -4 addr flush dev "$interface"
	ip addr replace "$ip/24" dev "$interface"
	for r in $router; do ip route replace default via "$r" dev "$interface"; break; done
	: >/etc/resolv.conf
	for s in $dns; do echo "nameserver $s" >>/etc/resolv.conf; done
	;;
esac
exit 0
EOF
}
only87_script >"$T/udhcpc.only87"
legacy_box()	# name, start (true/false)
{
	api_wait POST /1.0/instances "{\"name\":\"$1\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"$IMG\"},\"profiles\":[\"claude-dev\"],\"config\":{\"user.claudebox\":\"1\"}}" >/dev/null || return 1
	mkdirf "$1" /root/.claude
	pushf "$1" "$T/auth.json" /root/.claude/auth.json 0600 || return 1
	[ "$1" = "$B" ] && { pushf "$1" "$T/udhcpc.only87" /etc/udhcpc.script 0755 || return 1; }
	# C has the legacy user (read through the daemon's files API, the
	# probe itself running in the box's network namespace)
	if [ "$1" = "$C" ]; then
		{ getf "$1" /etc/passwd; echo "claude:x:1000:1000::/root:/bin/sh"; } >"$T/passwd.c"
		pushf "$1" "$T/passwd.c" /etc/passwd 0644 || return 1
	fi
	[ "$2" = true ] || return 0
	api_wait PUT "/1.0/instances/$1/state" '{"action":"start"}' >/dev/null &&
	    wait_addr_in "$1" 10.87.0. 60 >/dev/null
}
legacy_box $A true && legacy_box $B true && legacy_box $C false &&
    ok "legacy boxes $A, $B (running, 10.87 leases) and $C (stopped), each with /root/.claude/auth.json" ||
    fail "making the legacy boxes"
MAC_A=$(cfg $A volatile.eth0.hwaddr)

# --- consent and refusals ------------------------------------------------------
out=$($BOX migrate-host --box $A </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "no terminal, no --force: exit 2 ($out)"
expect_eq "$(field $A profiles)" '["claude-dev"]' "... and $A was not touched"
out=$($BOX migrate-host --retire-legacy --force 2>&1); rc=$?
expect_eq "$rc" 1 "retire refuses while legacy boxes exist"
expect_contains "$out" "$A" "... naming $A"
expect_contains "$out" "$C" "... and $C"
exists /1.0/networks/claudenet && ok "... and claudenet is still there" || fail "retire removed claudenet while refusing"

# --- --box -------------------------------------------------------------------------
t0=$(date +%s)
out=$($BOX migrate-host --box $A --force 2>&1); rc=$?
expect_eq "$rc" 0 "migrate-host --box $A ($(($(date +%s) - t0)) s)"
printf '%s\n' "$out" | sed 's/^/    /'
expect_contains "$out" "re-homed $A: on boxnet ($NET" "it says where it landed"
expect_eq "$(field $A profiles)" '["box-net"]' "$A: profiles = [box-net] only"
expect_eq "$(cfg $A user.box)" 1 "$A: user.box=1"
expect_eq "$(cfg $A user.claudebox)" - "$A: the legacy tag is gone"
expect_eq "$(cfg $A user.box.origin)" migrate "$A: stamped origin=migrate"
expect_eq "$(cfg $A user.box.template)" claude-box "$A: stamped template claude-box"
expect_eq "$(cfg $A user.box.user)" root "$A: no user claude in it: its user is root"
expect_eq "$(cfg $A volatile.eth0.hwaddr)" "$MAC_A" "$A: its MAC kept"
expect_eq "$(cfg $A limits.cpu)/$(cfg $A limits.memory)" 2/512MiB "$A: the old profile's limits kept as its own"
expect_eq "$(field $A status)" Running "$A: running, as it was"
a=$(wait_addr_in $A "$NET" 10)
expect_contains "$a" "$NET" "$A: a lease on boxnet ($a)"
expect_eq "$(getf $A /root/.claude/auth.json)" "$(cat "$T/auth.json")" "$A: its auth file kept"
dj=$($BOX doctor --json $A 2>/dev/null)
for id in box.nic box.shape box.filter; do
	st=$(printf '%s' "$dj" | json "','.join(c['status'] for c in j['checks'] if c['id'] == sys.argv[2] and c['subject'] == 'box ' + sys.argv[3]) or 'none'" $id $A)
	expect_eq "$st" pass "box doctor $A: $id"
done
out=$($BOX migrate-host --box $A --force 2>&1); rc=$?
expect_eq "$rc" 0 "a second --box $A exits 0"
expect_contains "$out" "already on the hardened stack" "... and does nothing"
# inside a box, the verb refuses like every host verb
if pushf $A ./box /tmp/box 0755; then
	out=$($BOX exec $A -- /tmp/box migrate-host --all-boxes --force 2>&1); rc=$?
	expect_eq "$rc" 1 "inside a box: migrate-host refused"
	expect_contains "$out" "inside a box" "... saying why"
else
	fail "pushing box into $A"
fi

# a box with a device box never gives a box is refused, nothing changed
api_wait POST /1.0/instances "{\"name\":\"$D\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"$IMG\"},\"profiles\":[\"claude-dev\"],\"config\":{\"user.claudebox\":\"1\"},\"devices\":{\"data\":{\"type\":\"disk\",\"path\":\"/data\",\"source\":\"$T\"}}}" >/dev/null ||
    fail "making $D"
out=$($BOX migrate-host --box $D --force 2>&1); rc=$?
expect_eq "$rc" 1 "a legacy box with a host directory of its own is refused"
expect_contains "$out" "devices of its own that box never gives a box (data)" "... naming the device"
expect_eq "$(cfg $D user.box)/$(field $D profiles)" '-/["claude-dev"]' "... and nothing of $D changed"
api_wait DELETE /1.0/instances/$D >/dev/null || fail "deleting $D"

# --- --all-boxes: C re-homed (and left stopped), B rolled back ----------------------
t0=$(date +%s)
out=$(BOX_MIGRATE_TIMEOUT=15 $BOX migrate-host --all-boxes --force 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
expect_eq "$rc" 1 "--all-boxes with one failure exits 1 ($(($(date +%s) - t0)) s)"
expect_contains "$out" "1 re-homed, 1 failed ($B)" "the summary names the failure"
expect_contains "$out" "no lease in" "... and why it failed"
expect_eq "$(field $C profiles)" '["box-net"]' "$C: on box-net"
expect_eq "$(cfg $C user.claudebox)/$(cfg $C user.box)" -/1 "$C: legacy tag gone, user.box=1"
expect_eq "$(field $C status)" Stopped "$C: stopped again, as it was"
expect_eq "$(getf $C /root/.claude/auth.json)" "$(cat "$T/auth.json")" "$C: its auth file kept"
expect_eq "$(cfg $C user.box.user)" claude "$C: its user claude (in its /etc/passwd) is kept"
expect_eq "$(field $B profiles)" '["claude-dev"]' "$B: back on its old profile"
expect_eq "$(cfg $B user.claudebox)/$(cfg $B user.box)" 1/1 "$B: carries both tags"
expect_eq "$(cfg $B limits.cpu)" - "$B: no carried key left behind"
expect_eq "$(field $B status)" Running "$B: running again"
b=$(wait_addr_in $B 10.87.0. 30)
expect_contains "$b" 10.87.0. "$B: its 10.87 lease again ($b)"
expect_eq "$(getf $B /root/.claude/auth.json)" "$(cat "$T/auth.json")" "$B: its auth file kept"

out=$($BOX migrate-host --retire-legacy --force 2>&1); rc=$?
expect_eq "$rc" 1 "retire refuses while $B is half-done"
expect_contains "$out" "$B (both tags" "... naming it, and why"
expect_contains "$out" "$B" "... and only the unfinished one"
case $out in *"$A"* | *"$C"*) fail "retire counted a re-homed box as legacy: $out" ;;
*) ok "retire does not count the re-homed boxes" ;; esac

# fixed (its DHCP hook back to the image's), a re-run resumes
api_wait PUT "/1.0/instances/$B/state" '{"action":"stop","force":true}' >/dev/null
cat >"$T/udhcpc.any" <<'EOF'
#!/bin/sh
case $1 in
deconfig) ip -4 addr flush dev "$interface"; ip link set "$interface" up ;;
bound | renew)
	[ "$1" = bound ] && ip -4 addr flush dev "$interface"
	ip addr replace "$ip/24" dev "$interface"
	for r in $router; do ip route replace default via "$r" dev "$interface"; break; done
	;;
esac
exit 0
EOF
pushf $B "$T/udhcpc.any" /etc/udhcpc.script 0755 || fail "fixing $B's DHCP hook"
api_wait PUT "/1.0/instances/$B/state" '{"action":"start"}' >/dev/null
out=$($BOX migrate-host --box $B --force 2>&1); rc=$?
expect_eq "$rc" 0 "fixed, --box $B resumes and finishes"
expect_eq "$(cfg $B user.claudebox)/$(field $B profiles)" '-/["box-net"]' "$B: on box-net, legacy tag gone"

# --- retire ----------------------------------------------------------------------------
out=$($BOX migrate-host --retire-legacy </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "retire without a terminal or --force: exit 2"
# Retire while the only blockers are another tenant's (never ours): wait.
retire_when_ours_are_done()
{
	_end=$(($(date +%s) + 90))
	while :; do
		out=$($BOX migrate-host --retire-legacy --force 2>&1); rc=$?
		[ "$rc" -ne 0 ] && [ "$(date +%s)" -lt "$_end" ] || return 0
		_who=$(printf '%s\n' "$out" | sed -n 's/.*still needs\{0,1\} it: //p')
		case $_who in "" | *"$P"*) return 0 ;; esac
		echo "note: waiting for another tenant's legacy instances to go: $_who"
		sleep 3
	done
}
retire_when_ours_are_done
printf '%s\n' "$out" | sed 's/^/    /'
expect_eq "$rc" 0 "retire-legacy"
expect_contains "$out" "legacy stack retired" "... says so"
for o in profiles/claude-dev networks/claudenet network-acls/claude-isolate; do
	exists /1.0/$o && fail "$o survived retire" || ok "$o is gone"
done
for f in "$UNIT" "$WANTS" "$SCRIPT"; do
	[ -e "$f" ] || [ -L "$f" ] && fail "$f survived retire" || ok "$f is gone"
done
nft list table inet claudebox >/dev/null 2>&1 && fail "table inet claudebox survived" || ok "table inet claudebox is gone"
nft list table bridge claudebox >/dev/null 2>&1 && fail "table bridge claudebox survived" || ok "table bridge claudebox is gone"
nft list table inet box >/dev/null 2>&1 && nft list table bridge box >/dev/null 2>&1 &&
    ok "the hardened stack's tables are untouched" || fail "retire touched inet/bridge box"
exists /1.0/networks/boxnet && exists /1.0/profiles/box-net && ok "boxnet and box-net untouched" ||
    fail "retire touched the hardened stack"
n=0
for x in $A $B $C; do [ "$(cfg $x user.box)" = 1 ] && n=$((n + 1)); done
expect_eq "$n" 3 "the three boxes live on, tagged user.box=1"
out=$($BOX migrate-host --all-boxes --force 2>&1); rc=$?
expect_eq "$rc/$out" "0/box: no legacy boxes named $P* to re-home" "--all-boxes with none left"
summary
