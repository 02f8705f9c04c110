#!/bin/sh
# The box lifecycle against the real daemon, in container mode: mint (a
# local image end to end, stamps read back through the API; the template
# path on the Debian cloud-init image with resource precedence), the failure
# paths (a refused template key, a failing cloud-init, a launch timeout:
# stage named, box gone, exit 1), clone of a box and of a snapshot (own
# MAC, machine-id and address; origin re-stamped), snapshot/restore of a
# file, the consent matrix through a real pty and without one,
# rename/down/start/rm, export → rm → import twice (atomic file, checksum,
# import stamps, distinct MACs and addresses), expose (loopback only;
# --list; --remove shuts it), the escape hatch, and every verb refusing an
# instance box did not mint.
#
# Needs box-test-busybox and box-test-debian (BOX_CI_DEBIAN=1 sh ci/setup.sh);
# without the Debian image the template tests are skipped, loudly.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=boxit-lc-
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac	# the test changes directory
T0=$(date +%s)
tmp=$(mktemp -d /tmp/boxit-lc.XXXXXX)
cleanup()
{
	cleanup_prefix $P >/dev/null 2>&1
	rm -rf "$tmp"
}
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap cleanup EXIT INT TERM

# The box-net profile every box needs: the real host stack when this box
# has setup-host, else a stand-in on the test bridge.
ensure_box_net()
{
	if "$BOX" help setup-host >/dev/null 2>&1; then
		# twice: a converge can trip over another test's vanishing veth
		for _try in 1 2; do
			BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 "$BOX" setup-host \
			    >"$tmp/setup.log" 2>&1 && return 0
			sleep 2
		done
		cat "$tmp/setup.log"
		return 1
	fi
	api GET /1.0/profiles/box-net | grep -q '"type":"sync"' && return 0
	api_wait POST /1.0/profiles '{"name":"box-net","description":"box test stand-in",
	 "config":{},"devices":{
	  "eth0":{"type":"nic","name":"eth0","network":"boxtest0","security.port_isolation":"true"},
	  "root":{"type":"disk","path":"/","pool":"default"}}}' >/dev/null
}



cfg()	# cfg NAME KEY: a config key of an instance, "" when unset
{
	api GET "/1.0/instances/$1" | json "j['metadata']['config'].get('$2', '')"
}

sh_in()	# sh_in NAME SCRIPT: run a script in an instance, print its stdout
{
	api_wait POST "/1.0/instances/$1/exec" "$(python3 -c '
import json, sys
print(json.dumps({"command": ["sh", "-c", sys.argv[1]], "record-output": True,
                  "wait-for-websocket": False, "interactive": False}))' "$2")" |
	    json "j['metadata']['output']['1']" | while read -r u; do
		api GET "$u"
		api DELETE "$u" >/dev/null
	done
}

addr_of() { api GET "/1.0/instances/$1/state" | json "' '.join(a['address']
    for n, d in (j['metadata']['network'] or {}).items() if n != 'lo'
    for a in d['addresses'] if a['family'] == 'inet' and a['scope'] == 'global')"; }

exists() { api GET "/1.0/instances/$1" | grep -q '"type":"sync"'; }

nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
ensure_box_net || { fail "no box-net profile"; summary; }
ok "box-net profile in place"

# --- new from a local image, end to end ---------------------------------------
t=$(date +%s%N)
rm -f /var/lib/box/note-mode	# the VM note is said once per host: this first
run 0 "ready — 'box shell ${P}a'" "new --image (local alias, busybox)" -- \
    new --name ${P}a --image box-test-busybox
echo "# mint from busybox: $((($(date +%s%N) - t) / 1000000)) ms"
expect_contains "$_out" "weaker isolation" "container mode announced as weaker isolation"
expect_contains "$_out" "no cloud-init" "an image without cloud-init is said so"
expect_contains "$_out" "skipping the 'pristine' snapshot" "pristine skipped loudly on a dir pool"
got=$(api GET /1.0/instances/${P}a | json "' '.join('%s=%s' % (k, v) for k, v in sorted(
    j['metadata']['config'].items()) if k.startswith('user.box') and k not in
    ('user.box.created', 'user.box.image.fingerprint', 'user.box.version'))")
expect_eq "$got" "user.box=1 user.box.image=box-test-busybox user.box.mode=container user.box.mode.asked=auto user.box.origin=mint user.box.owner=0 user.box.schema=1 user.box.template=blank user.box.user=dev" "mint stamps"
expect_eq "$(cfg ${P}a user.box.version)" "$(cat VERSION)" "version stamp"
case $(cfg ${P}a user.box.created) in
[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z) ok "created stamp is UTC ISO-8601" ;;
*) fail "created stamp: $(cfg ${P}a user.box.created)" ;;
esac
expect_eq "$(cfg ${P}a user.box.image.fingerprint)" "$(cfg ${P}a volatile.base_image)" "image fingerprint stamped"
expect_eq "$(api GET /1.0/instances/${P}a | json "j['metadata']['profiles']")" '["box-net"]' "box-net profile only"
expect_eq "$(cfg ${P}a security.nesting)/$(cfg ${P}a limits.cpu)/$(cfg ${P}a limits.memory)" "true/2/2GiB" "container extras and the template's resources"
BOX_IMAGE=box-test-busybox run 0 "ready" "BOX_IMAGE names the image" -- new --name ${P}env --container
expect_eq "$(cfg ${P}env user.box.image)/$(cfg ${P}env user.box.mode.asked)" "box-test-busybox/container" "BOX_IMAGE and the asked mode stamped"
run 0 "removed" "rm --force" -- rm ${P}env --force
run 1 "already exists" "new refuses a taken name" -- new --name ${P}a --image box-test-busybox
run 1 "no local image 'box-test-nope'" "new refuses a missing local image" -- new --name ${P}x --image box-test-nope
run 2 "knows the public 'images:' server" "new refuses an unknown remote" -- new --name ${P}x --image other:debian
run 2 "two names for one box" "new with a name and a different --name" -- new ${P}x --name ${P}y
run 2 "contradict" "new --vm --container" -- new --name ${P}x --vm --container
run 1 "this host cannot run VMs" "new --vm refused where VMs cannot run" -- new --name ${P}x --vm --image box-test-busybox
exists ${P}x && fail "a refused mint left ${P}x" || ok "refused mints leave nothing"

# --- templates on the Debian cloud-init image ---------------------------------
mkdir -p "$tmp/tpl/lc-ok" "$tmp/tpl/lc-fail" "$tmp/tpl/lc-bad"
cat >"$tmp/tpl/lc-ok/box.env" <<'EOF'
BOX_DESCRIPTION="lifecycle test: a user and a command"
BOX_IMAGE="box-test-debian"
BOX_USER="tester"
BOX_CPU="1"
BOX_MEMORY="512MiB"
EOF
echo 'BOX_BOOTSTRAP_ROLE="lc-role"' >>"$tmp/tpl/lc-ok/box.env"
# A stand-in for rig (the real one is fetched from the network): it
# converges role lc-role and fails any other.
cat >"$tmp/tpl/lc-ok/user-data.yaml" <<'EOF'
#cloud-config
users:
  - name: tester
    shell: /bin/bash
    sudo: ALL=(ALL) NOPASSWD:ALL
    lock_passwd: true
write_files:
  - path: /usr/local/bin/rig
    permissions: '0755'
    content: |
      #!/bin/sh
      echo "stand-in rig: $*"
      [ "$2" = lc-role ] || { echo "role $2 did not converge" >&2; exit 4; }
      touch /root/converged
runcmd:
  - [sh, -c, "echo minted-by-box > /home/tester/proof"]
EOF
mkdir -p "$tmp/tpl/lc-rigfail"
sed 's/lc-role/lc-other/' "$tmp/tpl/lc-ok/box.env" >"$tmp/tpl/lc-rigfail/box.env"
cp "$tmp/tpl/lc-ok/user-data.yaml" "$tmp/tpl/lc-rigfail/"
sed -e 's/a user and a command/a failing runcmd/' -e '/ROLE/d' "$tmp/tpl/lc-ok/box.env" >"$tmp/tpl/lc-fail/box.env"
cat >"$tmp/tpl/lc-fail/user-data.yaml" <<'EOF'
#cloud-config
runcmd:
  - |
    printf '\033]0;pwned\007\033[31mbox-test-failure\033[0m\n' >&2; exit 3
EOF
cp "$tmp/tpl/lc-ok/box.env" "$tmp/tpl/lc-bad/box.env"
echo 'BOX_NETWORK="lanbridge"' >>"$tmp/tpl/lc-bad/box.env"
cp "$tmp/tpl/lc-ok/user-data.yaml" "$tmp/tpl/lc-bad/"

BOX_TEMPLATES=$tmp/tpl run 1 "unknown key 'BOX_NETWORK'" "a template key for a network is refused by name" -- \
    new --name ${P}x --template lc-bad
exists ${P}x && fail "bad template left ${P}x" || ok "bad template: nothing created"

if api GET /1.0/images/aliases/box-test-debian | grep -q '"type":"sync"'; then
	t=$(date +%s%N)
	BOX_TEMPLATES=$tmp/tpl BOX_CPU=3 BOX_MEMORY=768MiB run 0 "ready — 'box shell ${P}deb'" \
	    "template mint on Debian (cloud-init)" -- new --name ${P}deb --template lc-ok --cpu 2
	echo "# mint from the Debian cloud-init image: $((($(date +%s%N) - t) / 1000000)) ms"
	expect_eq "$(cfg ${P}deb limits.cpu)/$(cfg ${P}deb limits.memory)" "2/768MiB" \
	    "resources: flag > environment > template"
	expect_eq "$(cfg ${P}deb user.box.template)/$(cfg ${P}deb user.box.user)/$(cfg ${P}deb user.box.image)" \
	    "lc-ok/tester/box-test-debian" "template, user and image stamped"
	expect_eq "$(sh_in ${P}deb 'cat /home/tester/proof; id -un tester')" "minted-by-box
tester" "cloud-init made the user and ran the command"
	expect_eq "$(sh_in ${P}deb 'cloud-init status' | tr -d '\n')" "status: done" "cloud-init's own verdict is done"
	expect_contains "$_out" "stand-in rig: bootstrap lc-role" "the bootstrap hook ran, its output shown"
	expect_eq "$(sh_in ${P}deb 'ls /root/converged')" "/root/converged" "the role converged"
	expect_contains "$_out" "skipping the 'bootstrapped' snapshot" "bootstrapped follows the snapshot rules"
	expect_eq "$(cfg ${P}deb user.box.role)" "lc-role" "role stamped"

	BOX_TEMPLATES=$tmp/tpl run 1 "stage 'bootstrap' failed" "a failing bootstrap: stage named, exit 1" -- \
	    new --name ${P}rig --template lc-rigfail
	expect_contains "$_out" "did not converge" "the role's own words shown"
	exists ${P}rig && fail "${P}rig left behind" || ok "no leftover box after a failed bootstrap"

	BOX_TEMPLATES=$tmp/tpl run 1 "stage 'cloud-init' failed" "failing user-data: stage named, exit 1" -- \
	    new --name ${P}fail --template lc-fail
	expect_contains "$_out" "status error" "cloud-init's verdict reported"
	expect_contains "$_out" "box-test-failure" "the log's tail shown"
	case $_out in
	*"$(printf '\033')"*) fail "escape sequences from the guest reached the terminal" ;;
	*) ok "the guest's log is sanitised of escape sequences" ;;
	esac
	expect_contains "$_out" "removing the half-made box" "the failed box is removed (said)"
	exists ${P}fail && fail "${P}fail left behind" || ok "no leftover box after a failed cloud-init"

	t=$(date +%s)
	BOX_TEMPLATES=$tmp/tpl BOX_LAUNCH_TIMEOUT=2 run 1 "failed" "a launch timeout" -- \
	    new --name ${P}slow --template lc-ok
	expect_contains "$_out" "BOX_LAUNCH_TIMEOUT=2" "the timeout names its budget"
	[ $(($(date +%s) - t)) -le 30 ] && ok "the timeout fired in time" || fail "the 2 s budget took $(($(date +%s) - t)) s"
	exists ${P}slow && fail "${P}slow left behind" || ok "no leftover box after a timeout"
else
	fail "box-test-debian is not imported: template tests skipped (BOX_CI_DEBIAN=1 sh ci/setup.sh)"
fi

# --- snapshot / restore, consent ------------------------------------------------
sh_in ${P}a 'echo before > /root/state' >/dev/null
run 0 "" "snapshot with a label" -- snapshot ${P}a s1
expect_eq "$_out" "s1" "snapshot prints its label"
run 1 "already has a snapshot 's1'" "a taken label is refused" -- snapshot ${P}a s1
run 0 "manual-" "snapshot with the default label" -- snapshot ${P}a
sh_in ${P}a 'echo after > /root/state' >/dev/null
run 2 "not without --force" "restore without a terminal or --force: exit 2" -- restore ${P}a s1
run 1 "no snapshot 'nope'" "restore of a missing snapshot" -- restore ${P}a nope --force
out=$(pty EOF "$BOX" restore ${P}a s1 2>&1); rc=$?
expect_eq "$rc" 1 "restore: Ctrl-D at the prompt aborts, exit 1"
expect_contains "$out" "aborted" "restore: EOF says aborted"
out=$(pty n "$BOX" restore ${P}a s1 2>&1); rc=$?
expect_eq "$rc" 1 "restore: 'n' at the prompt aborts, exit 1"
expect_eq "$(sh_in ${P}a 'cat /root/state')" "after" "nothing restored when declined"
out=$(BOX_YES=1 "$BOX" restore ${P}a s1 </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "BOX_YES is not consent for restore"
out=$(pty y "$BOX" restore ${P}a s1 2>&1); rc=$?
expect_eq "$rc" 0 "restore: 'y' on a terminal proceeds"
expect_contains "$out" "cannot be undone. [y/N]" "the prompt was shown"
expect_eq "$(sh_in ${P}a 'cat /root/state')" "before" "restore rolled the file back"
sh_in ${P}a 'echo after > /root/state' >/dev/null
run 0 "restored ${P}a to s1" "restore --force" -- restore ${P}a s1 --force
expect_eq "$(sh_in ${P}a 'cat /root/state')" "before" "restore --force rolled the file back"

# --- clone: of a box and of a snapshot --------------------------------------------
sh_in ${P}a 'echo 0123456789abcdef0123456789abcdef > /etc/machine-id' >/dev/null
api_wait PATCH /1.0/instances/${P}a '{"devices":{"expose-9":{"type":"proxy",
 "listen":"tcp:127.0.0.1:38109","connect":"tcp:127.0.0.1:9","bind":"host"}},"description":""}' >/dev/null
addr_a=$(wait_ipv4 ${P}a 30)
run 2 "drop --template" "clone refuses --template" -- new --name ${P}x --from ${P}a --template blank
run 2 "shape a fresh mint" "clone refuses resource flags" -- new --name ${P}x --from ${P}a --cpu 1
run 2 "same kind of instance" "clone refuses --vm/--container" -- new --name ${P}x --from ${P}a --container
run 1 "no snapshot 'nope'" "clone of a missing snapshot" -- new --name ${P}x --from ${P}a/nope
t=$(date +%s%N)
run 0 "ready — 'box shell ${P}b'" "clone of a box" -- new --name ${P}b --from ${P}a
echo "# clone: $((($(date +%s%N) - t) / 1000000)) ms"
expect_contains "$_out" "snapshots along" "the clone says its snapshots came along"
expect_contains "$_out" "left behind 1 device" "the source's door stays with the source"
expect_eq "$(cfg ${P}b user.box.origin)/$(cfg ${P}b user.box.origin.from)/$(cfg ${P}b user.box.mode.asked)" \
    "clone/${P}a/" "origin re-stamped, mode.asked removed"
[ "$(cfg ${P}b user.box.created)" != "$(cfg ${P}a user.box.created)" ] &&
    ok "the clone has its own created stamp" || fail "created stamp copied"
expect_eq "$(cfg ${P}b user.box.template)/$(cfg ${P}b user.box.image)" "blank/box-test-busybox" "lineage inherited"
[ "$(cfg ${P}b volatile.eth0.hwaddr)" != "$(cfg ${P}a volatile.eth0.hwaddr)" ] &&
    ok "the clone has its own MAC" || fail "the clone shares its source's MAC"
mid_b=$(sh_in ${P}b 'cat /etc/machine-id')
[ -n "$mid_b" ] && [ "$mid_b" != 0123456789abcdef0123456789abcdef ] &&
    ok "the clone has its own machine-id" || fail "machine-id: '$mid_b'"
# the clone returns with the address Incus pinned for it; its lease follows
expect_contains "$_out" "(pinned: its DHCP lease follows" "the clone says its pinned address at once"
said_b=$(echo "$_out" | sed -n 's/.* at \([0-9.]*\) (pinned.*/\1/p')
addr_b=$(wait_ipv4 ${P}b 30)
[ -n "$addr_b" ] && [ "$addr_b" != "$addr_a" ] && ok "the clone holds its own address ($addr_b vs $addr_a)" ||
    fail "addresses: clone '$addr_b', source '$addr_a'"
expect_eq "$said_b" "$addr_b" "the address the clone said is the lease it got"
run 0 "ready — 'box shell ${P}c'" "clone of a snapshot" -- new --name ${P}c --from ${P}a/s1
expect_contains "$_out" "starts with no snapshots" "a snapshot's copy has none"
expect_eq "$(cfg ${P}c user.box.origin.from)" "${P}a/s1" "origin.from names the snapshot"
expect_eq "$(sh_in ${P}c 'cat /root/state')" "before" "the snapshot's disk came along"
addr_c=$(wait_ipv4 ${P}c 30)
[ -n "$addr_c" ] && [ "$addr_c" != "$addr_a" ] && [ "$addr_c" != "$addr_b" ] &&
    ok "the snapshot clone holds its own address" || fail "addresses: $addr_a $addr_b $addr_c"

# --- rename / down / start / rm ---------------------------------------------------
run 1 "not stopped" "rename refuses a running box" -- rename ${P}c ${P}c2
run 0 "stopped ${P}c" "down" -- down ${P}c
expect_eq "$(api GET /1.0/instances/${P}c | json "j['metadata']['status']")" "Stopped" "down stopped it"
run 0 "already stopped" "down of a stopped box is fine" -- down ${P}c
run 0 "renamed ${P}c to ${P}c2" "rename a stopped box" -- rename ${P}c ${P}c2
exists ${P}c2 && ! exists ${P}c && ok "rename moved it" || fail "rename"
run 0 "started ${P}c2" "start" -- start ${P}c2
run 0 "stopped ${P}c2" "down --force" -- down ${P}c2 --force
run 2 "not without --force" "rm without a terminal or --force: exit 2" -- rm ${P}c2
out=$(pty EOF "$BOX" rm ${P}c2 2>&1); rc=$?
expect_eq "$rc" 1 "rm: Ctrl-D at the prompt aborts, exit 1"
out=$(BOX_YES=1 "$BOX" rm ${P}c2 </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "BOX_YES is not consent for rm"
exists ${P}c2 && ok "nothing removed without consent" || fail "rm removed without consent"
out=$(pty y "$BOX" rm ${P}c2 2>&1); rc=$?
expect_eq "$rc" 0 "rm: 'y' on a terminal removes"
exists ${P}c2 && fail "${P}c2 still there" || ok "rm removed it"

# --- export / import ---------------------------------------------------------------
cd "$tmp"
run 1 "not stopped" "export refuses a running box" -- export ${P}b
"$BOX" down ${P}b --force >/dev/null 2>&1
"$BOX" snapshot ${P}b keep >/dev/null 2>&1
t=$(date +%s%N)
run 0 "exported ${P}b" "export" -- export ${P}b lc.tar.gz
echo "# export: $((($(date +%s%N) - t) / 1000000)) ms, $(stat -c %s lc.tar.gz) bytes"
expect_contains "$_out" "Treat it like a credential" "export warns the file is a credential"
expect_eq "$(cut -d' ' -f1 lc.tar.gz.sha256)" "$(sha256sum lc.tar.gz | cut -d' ' -f1)" "the recorded SHA-256 matches"
expect_eq "$(stat -c %a lc.tar.gz)" "600" "the export is private (0600)"
expect_eq "$(ls -A | grep -c '^\.')" "0" "no temporary files left"
cp lc.tar.gz before.tar.gz
run 1 "already exists" "export refuses to overwrite" -- export ${P}b lc.tar.gz
cmp -s lc.tar.gz before.tar.gz && ok "the existing file is untouched" || fail "export changed an existing file"
head -c 100000 lc.tar.gz >cut.tar.gz && cp lc.tar.gz.sha256 cut.tar.gz.sha256
run 1 "does not match its recorded SHA-256" "a truncated export is refused" -- import cut.tar.gz --name ${P}cut
exists ${P}cut && fail "a truncated import created ${P}cut" || ok "nothing created from a truncated file"
run 1 "already exists" "import refuses a taken name" -- import lc.tar.gz
run 0 "removed ${P}b" "rm --force" -- rm ${P}b --force
t=$(date +%s%N)
run 0 "imported ${P}b" "import under the recorded name" -- import lc.tar.gz
echo "# import: $((($(date +%s%N) - t) / 1000000)) ms"
expect_eq "$(api GET /1.0/instances/${P}b/snapshots | json "' '.join(sorted(s.split('/')[-1]
    for s in j['metadata'] if not s.split('/')[-1].startswith('manual-')))")" "keep s1" "snapshots came back"
expect_eq "$(cfg ${P}b user.box.imported.count)/$(cfg ${P}b user.box.origin)/$(cfg ${P}b user.box.claimed.origin)/$(cfg ${P}b user.box.claimed.origin.from)" \
    "1/import/clone/${P}a" "import stamps are this host's, the file's kept as claims (issue 22)"
[ -n "$(cfg ${P}b user.box.imported)" ] && [ "$(cfg ${P}b user.box.imported)" = "$(cfg ${P}b user.box.imported.last)" ] &&
    ok "first and last trip recorded" || fail "import trip stamps"
run 0 "imported ${P}d" "the same file again, beside the first" -- import lc.tar.gz --name ${P}d
expect_eq "$(api GET /1.0/instances/${P}d | json "j['metadata']['status']")" "Running" "the second import runs"
expect_eq "$(api GET /1.0/instances/${P}b | json "j['metadata']['status']")" "Running" "the first import runs"
[ "$(cfg ${P}b volatile.eth0.hwaddr)" != "$(cfg ${P}d volatile.eth0.hwaddr)" ] &&
    ok "the two imports have distinct MACs" || fail "shared MAC"
addr_b=$(addr_of ${P}b) addr_d=$(addr_of ${P}d)
[ -n "$addr_b" ] && [ -n "$addr_d" ] && [ "$addr_b" != "$addr_d" ] &&
    ok "the two imports hold distinct addresses ($addr_b, $addr_d)" || fail "addresses '$addr_b' '$addr_d'"
[ "$(sh_in ${P}b 'cat /etc/machine-id')" != "$(sh_in ${P}d 'cat /etc/machine-id')" ] &&
    ok "the two imports have distinct machine-ids" || fail "shared machine-id"
cd - >/dev/null

# --- expose ---------------------------------------------------------------------------
sh_in ${P}a 'mkdir -p /tmp/www && echo door-to-a >/tmp/www/index.html && httpd -p 127.0.0.1:8080 -h /tmp/www' >/dev/null
run 0 "127.0.0.1:38180 → ${P}a:8080" "expose a port" -- expose ${P}a 8080 38180
expect_eq "$(curl -s -m 5 http://127.0.0.1:38180/)" "door-to-a" "the door answers on the host's 127.0.0.1"
listen=$(api GET /1.0/instances/${P}a | json "j['metadata']['devices']['expose-8080']['listen']")
expect_eq "$listen" "tcp:127.0.0.1:38180" "the door listens on loopback only"
for a in $(ip -4 -o addr show | awk '$2 != "lo" {sub("/.*", "", $4); print $4}'); do
	if curl -s -m 3 "http://$a:38180/" >/dev/null 2>&1; then
		fail "the door answers on $a"
	else
		ok "no door on the host's $a"
	fi
done
run 0 "EXPOSURES for ${P}a" "expose --list" -- expose ${P}a --list
expect_contains "$_out" "127.0.0.1:38180 → 127.0.0.1:8080" "--list shows the door"
run 1 "already exposes port 8080" "a second door on the same port is refused" -- expose ${P}a 8080 38181
run 2 "1 to 65535" "a port out of range" -- expose ${P}a 70000
run 0 "closed the door on port 8080" "expose --remove" -- expose ${P}a --remove 8080
curl -s -m 3 http://127.0.0.1:38180/ >/dev/null 2>&1 && fail "the door still answers" || ok "the door is shut"
run 1 "no exposure on port 8080" "removing a door twice" -- expose ${P}a --remove 8080

# --- the escape hatch -------------------------------------------------------------------
if command -v incus >/dev/null 2>&1; then
	run 0 "import" "box incus runs the client with {} replaced" -- incus ${P}b -- config get {} user.box.origin
	expect_contains "$_out" "box: incus config get ${P}b user.box.origin" "the command is echoed"
	run 0 "isolation stack" "a risky command is flagged" -- incus ${P}b -- config device show
else
	fail "no incus client: escape hatch untested"
fi
run 2 "usage" "box incus without a command" -- incus ${P}b

# --- every verb refuses an instance box did not mint -----------------------------------------
launch ${P}plain box-test-busybox '{}' || fail "launch ${P}plain"
api_wait POST /1.0/instances/${P}plain/snapshots '{"name":"s"}' >/dev/null
for v in "snapshot ${P}plain" "restore ${P}plain s --force" "rename ${P}plain ${P}p2" \
    "down ${P}plain" "start ${P}plain" "rm ${P}plain --force" "export ${P}plain $tmp/p.tar.gz" \
    "expose ${P}plain 80" "expose ${P}plain --list" "expose ${P}plain --remove 80" \
    "incus ${P}plain -- info" "new --name ${P}p3 --from ${P}plain" "new --name ${P}p3 --from ${P}plain/s"; do
	# shellcheck disable=SC2086
	run 1 "did not mint" "refused untagged: $v" -- $v
done
expect_eq "$(api GET /1.0/instances/${P}plain | json "j['metadata']['status']")" "Running" "the untagged instance is untouched"
run 1 "no such box: ${P}nobody" "a missing box" -- down ${P}nobody

echo "# test_lifecycle: $(($(date +%s) - T0)) s"
summary
