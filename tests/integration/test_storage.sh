#!/bin/sh
# The storage pool boxes live on (issue 24), on the real daemon: this
# machine's daemon has only Incus's dir pool "default" (ci/start-incus.sh).
#   - an air-gapped run (btrfs-progs "missing", apt-get refusing: a PATH
#     of our own) keeps dir and says why
#   - setup-host --pool btrfs:3GiB makes box's own btrfs pool on a loop
#     file; the box that was already there stays on dir; new boxes land on
#     the new pool, get a pristine snapshot, and their --disk holds (a write
#     past it fails inside the box: the same write passes on dir, where no
#     limit exists)
#   - box fork of a running box: the source keeps running (same PID 1,
#     never restarted), the fork has its own machine id, hostname, MAC and
#     address, and the source's egress policy; refused on dir without --slow
#   - box move takes a stopped box onto the pool, identity kept
#   - a stopped box's clone stays stopped (stamped, its policy carried)
#     and boots with an identity of its own; the fork's lease is the
#     address it reported (Incus's pin)
#   - teardown-host removes box's pool and its loop file and proves it;
#     Incus's "default" pool stays.
#   - on a terminal (a real pty), setup-host asks before it makes box's
#     own pool: n keeps dir, y makes it, Enter alone is yes; a second run
#     with the pool in use does not ask
# It leaves the stack built on "default" (dir), as the other scripts expect.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
case $BOX in /*) ;; *) BOX=$(pwd)/$BOX ;; esac

P=boxit-st-
export BOX_DNS=127.0.0.1	# never a real resolver (the network rule)
unset BOX_SUBNET
shim=$(mktemp -d /tmp/boxit-st.XXXXXX)
pool_gone() { [ "$(api GET /1.0/storage-pools/box | json "str(j.get('error_code'))")" = 404 ]; }
restore()
{
	cleanup_prefix $P >/dev/null 2>&1
	if ! pool_gone; then
		$BOX teardown-host --yes >/dev/null 2>&1
	fi
	$BOX setup-host --pool dir >/dev/null 2>&1 ||
	    echo "# WARNING: restoring the stack failed: $BOX setup-host --pool dir"
	rm -rf "$shim"
}
trap restore EXIT INT TERM
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 || { fail "egress guard missing"; summary; }
command -v btrfs >/dev/null || { fail "btrfs-progs missing on the test host (ci/install-deps.sh installs it)"; summary; }
# from a clean host: whatever stack (or pool) an earlier run left goes
$BOX teardown-host --yes >/dev/null 2>&1
pool_gone && ok "no box pool before the test" || { fail "a box pool survives from before"; summary; }
expect_eq "$(api GET /1.0/storage-pools/default | json "j['metadata']['driver']")" dir "the daemon's only pool is default, dir"

root_pool() { api GET /1.0/instances/$1 | json "j['metadata']['expanded_devices']['root'].get('pool', '')"; }
prof_pool() { api GET /1.0/profiles/box-net | json "j['metadata']['devices']['root']['pool']"; }
inbox() { n=$1; shift; $BOX root "$n" -- sh -c "$*" </dev/null 2>&1; }

run 2 "whole GiB" "--pool btrfs:<not a size> is a usage error" -- setup-host --pool btrfs:lots
run 1 "no such pool" "--pool <a pool that is not there> is refused" -- setup-host --pool boxit-nosuch
pool_gone && ok "  and neither made a pool" || fail "a refused run made a pool"

# --- air-gapped: no btrfs on PATH, apt-get cannot reach a package source ------
cat >"$shim/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$shim/apt.log"
echo "E: Failed to fetch btrfs-progs: Temporary failure resolving the mirror" >&2
exit 100
EOF
chmod +x "$shim/apt-get"
out=$(env PATH="$shim" $BOX setup-host --pool btrfs:3GiB </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "air-gapped: setup-host still builds the stack"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$(cat "$shim/apt.log" 2>/dev/null)" "install -y --no-install-recommends btrfs-progs" "air-gapped: it tried to install btrfs-progs"
expect_contains "$out" "no package source answered" "air-gapped: says why there is no btrfs pool"
expect_contains "$out" "stay on pool 'default'" "air-gapped: says the boxes stay on dir"
expect_contains "$out" "then run box setup-host --pool btrfs" "air-gapped: says what to do"
expect_contains "$out" "no copy-on-write" "air-gapped: the dir warning"
pool_gone && ok "air-gapped: no box pool made" || fail "air-gapped: a box pool appeared"
expect_eq "$(prof_pool)" default "air-gapped: box-net's root disk stays on default"

# a box already on dir, before the pool changes
run 0 "ready" "a box minted on dir" -- new --name ${P}old --image box-test-busybox

# --- consent given: box's own btrfs pool ----------------------------------------
out=$($BOX setup-host --pool btrfs:3GiB </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "setup-host --pool btrfs:3GiB exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "creating box's own btrfs pool 'box': 3 GiB loop file" "it says what it makes, and how big"
expect_contains "$out" "1 existing box stays on pool 'default'" "it says the existing box stays"
pj=$(api GET /1.0/storage-pools/box)
expect_eq "$(echo "$pj" | json "j['metadata']['driver'] + ' ' + j['metadata']['config'].get('size', '')")" "btrfs 3GiB" "pool box: btrfs, 3GiB"
loop=$(echo "$pj" | json "j['metadata']['config'].get('source', '')")
[ -f "$loop" ] && ok "its loop file exists ($loop)" || fail "no loop file '$loop'"
expect_eq "$(prof_pool)" box "box-net's root disk names pool box"
expect_eq "$(root_pool ${P}old)" default "the existing box stays on default"
expect_eq "$(api GET /1.0/instances/${P}old | json "j['metadata']['devices']['root']['pool']")" default "  pinned by a root disk of its own"
mac() { api GET /1.0/instances/$1 | json "j['metadata']['config'].get('volatile.eth0.hwaddr', '')"; }
run 1 "not stopped" "box move of a running box is refused" -- move ${P}old --pool box
m0=$(mac ${P}old); mid0=$(inbox ${P}old 'cat /etc/machine-id')
$BOX down ${P}old --force >/dev/null 2>&1
run 0 "is on pool box" "box move of the stopped box onto pool box" -- move ${P}old --pool box
expect_eq "$(root_pool ${P}old)" box "  its root disk is on pool box now"
expect_eq "$(mac ${P}old)" "$m0" "  its MAC (its lease) is kept"
expect_eq "$(api GET /1.0/instances/${P}old | json "j['metadata']['config'].get('user.box', '')")" 1 "  it is still a box (stamps kept)"
$BOX start ${P}old >/dev/null 2>&1
expect_eq "$(inbox ${P}old 'cat /etc/machine-id')" "$mid0" "  it starts there with its machine id"
out=$($BOX setup-host --pool btrfs:3GiB </dev/null 2>&1)
expect_contains "$out" "pool      ok (unchanged)" "a second run changes nothing"
out=$($BOX setup-host </dev/null 2>&1)
expect_contains "$out" "pool 'box' uses btrfs (copy-on-write" "without --pool the copy-on-write pool in use is kept"
dj=$(BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost $BOX doctor --json ${P}none 2>/dev/null)
expect_eq "$(echo "$dj" | json "[c['status'] for c in j['checks'] if c['id'] == 'profile.pool'][0]")" pass "doctor: profile.pool passes"
expect_contains "$(echo "$dj" | json "[c['text'] for c in j['checks'] if c['id'] == 'profile.pool'][0]")" "driver btrfs as the daemon reports it" "doctor reads the driver back"

# --- boxes land on it; the quota holds --------------------------------------------
out=$($BOX new --name ${P}q --image box-test-busybox --disk 1GiB --egress allow:example.test </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "box new on the btrfs pool"
[ "$rc" = 0 ] || echo "$out"
expect_eq "$(root_pool ${P}q)" box "the new box's root disk is on pool box"
expect_eq "$(api GET /1.0/instances/${P}q | json "j['metadata']['expanded_devices']['root'].get('size', '')")" 1GiB "its root disk carries --disk as its size"
expect_contains "$(api GET /1.0/instances/${P}q/snapshots)" "/snapshots/pristine" "the pristine snapshot is back on btrfs"
o=$(inbox ${P}q 'dd if=/dev/zero of=/root/small bs=1M count=16 2>&1 && echo WROTE16')
expect_contains "$o" "WROTE16" "a write under the limit succeeds"
inbox ${P}q sync >/dev/null
di=$($BOX info ${P}q 2>/dev/null | grep '^DISK')
expect_contains "$di" "MiB used of 1GiB (pool box)" "box info shows the root disk's use against its limit ($di)"
u=$(echo "$di" | awk '{print int($2)}')
[ "${u:-0}" -ge 16 ] && ok "  the use counts the 16 MiB written" || fail "  use '$u' MiB after writing 16"
o=$(inbox ${P}q 'dd if=/dev/zero of=/root/big bs=1M count=1100 2>&1; sync; echo rc=$?')
expect_contains "$o" "Disk quota exceeded" "a write past --disk fails inside the box"
inbox ${P}q 'rm -f /root/big /root/small' >/dev/null

# --- fork of a running box ------------------------------------------------------------
st1=$(inbox ${P}q 'cut -d" " -f22 /proc/1/stat')
mid1=$(inbox ${P}q 'cat /etc/machine-id')
ip1=$(wait_ipv4 ${P}q 30)
out=$($BOX fork ${P}q ${P}f </dev/null 2>&1); rc=$?
forkout=$out
expect_eq "$rc" 0 "box fork of a running box exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "it never stopped" "it says the source never stopped"
expect_eq "$(api GET /1.0/instances/${P}q | json "j['metadata']['status']")" Running "the source is still running"
expect_eq "$(inbox ${P}q 'cut -d" " -f22 /proc/1/stat')" "$st1" "the source's PID 1 is the same process (never restarted)"
expect_eq "$(api GET /1.0/instances/${P}f | json "j['metadata']['status']")" Running "the fork runs"
mid2=$(inbox ${P}f 'cat /etc/machine-id')
[ -n "$mid2" ] && [ "$mid2" != "$mid1" ] && ok "the fork has a machine id of its own" || fail "machine id '$mid2' vs source '$mid1'"
expect_eq "$(inbox ${P}f hostname)" ${P}f "the fork's hostname is its own name"
[ "$(mac ${P}f)" != "$(mac ${P}q)" ] && [ -n "$(mac ${P}f)" ] && ok "the fork has a MAC of its own" || fail "MACs: $(mac ${P}f) vs $(mac ${P}q)"
ip2=$(wait_ipv4 ${P}f 30)
[ -n "$ip2" ] && [ "$ip2" != "$ip1" ] && ok "the fork holds a lease of its own ($ip2, source $ip1)" || fail "addresses: fork '$ip2', source '$ip1'"
expect_eq "$(api GET /1.0/instances/${P}f | json "j['metadata']['config'].get('user.box.egress', '')")" "allow:example.test" "the fork carries its source's egress policy"
expect_eq "$(root_pool ${P}f)" box "the fork is on pool box"
expect_eq "$(api GET /1.0/instances/${P}q/snapshots | json "' '.join(sorted(s.rsplit('/', 1)[1] for s in j['metadata']))")" pristine "the fork's snapshot is gone from the source"

# --- a stopped box's clone stays stopped, with its own identity (the clone row) -------
$BOX down ${P}q --force >/dev/null 2>&1
t=$(date +%s%N)
out=$($BOX new --name ${P}c --from ${P}q </dev/null 2>&1); rc=$?
echo "# clone of a stopped box on btrfs: $((($(date +%s%N) - t) / 1000000)) ms"
expect_eq "$rc" 0 "box new --from a stopped box exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "stopped as ${P}q is" "it says the clone stays stopped, as its source is"
expect_eq "$(api GET /1.0/instances/${P}c | json "j['metadata']['status']")" Stopped "the clone of a stopped box is stopped (an incus copy's end state)"
expect_eq "$(api GET /1.0/instances/${P}c | json "j['metadata']['config'].get('user.box.origin', '') + '/' + j['metadata']['config'].get('user.box.origin.from', '') + '/' + j['metadata']['config'].get('user.box.mode.asked', '-')")" "clone/${P}q/-" "  stamped in the copy request: origin, origin.from, mode.asked removed"
expect_eq "$(api GET /1.0/instances/${P}c | json "j['metadata']['config'].get('user.box.egress', '')")" "allow:example.test" "  it carries its source's egress policy"
expect_eq "$(api GET /1.0/instances/${P}c | json "','.join(j['metadata']['profiles'])")" box-net "  on the box-net profile alone"
run 0 "started ${P}c" "box start brings the clone up" -- start ${P}c
mid3=$(inbox ${P}c 'cat /etc/machine-id')
[ -n "$mid3" ] && [ "$mid3" != "$mid1" ] && [ "$mid3" != "$mid2" ] && ok "  it booted with a machine id of its own" || fail "machine ids: clone '$mid3', source '$mid1', fork '$mid2'"
ip3=$(wait_ipv4 ${P}c 30)
[ -n "$ip3" ] && [ "$ip3" != "$ip1" ] && [ "$ip3" != "$ip2" ] && ok "  it holds a lease of its own ($ip3)" || fail "addresses: clone '$ip3', source '$ip1', fork '$ip2'"
pin=$(cut -d, -f2 /var/lib/incus/networks/boxnet/dnsmasq.hosts/${P}f.eth0 2>/dev/null)
expect_eq "$pin" "$ip2" "the fork's lease is the address Incus pinned for it (what fork reported)"
expect_contains "$(echo "$forkout" | grep forked)" "at $ip2 (pinned" "fork said that address at once"

# --- a clone's new id is written on the host (root, pool btrfs) through no link the box planted
# The source's /etc becomes a link to a path that also exists on the host
# with a machine-id in it: followed on the host, the clone's new id would
# land in the host's file (the control: the same clone with O_NOFOLLOW
# taken out of src/box/life/identity.c's dir_at replaces it).  Refused there,
# the daemon's file API writes it inside the box instead.
probe=$(mktemp -d /tmp/boxit-st-probe.XXXXXX)
echo host-owned >"$probe/machine-id"
$BOX start ${P}q >/dev/null 2>&1
inbox ${P}q "mkdir -p $probe && cp -a /etc/. $probe/ && mv /etc /etc.real && ln -s $probe /etc && sync" >/dev/null
$BOX down ${P}q --force >/dev/null 2>&1
out=$($BOX new --name ${P}h --from ${P}q </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "a clone of a box whose /etc is a link exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_eq "$(cat "$probe/machine-id")" host-owned "  the host's file at the link's target is untouched"
hid=$(incus file pull ${P}h/etc/machine-id - 2>/dev/null)
[ -n "$hid" ] && [ "$hid" != host-owned ] && [ "$hid" != "$mid1" ] && ok "  the clone has a machine id of its own inside ($hid)" ||
    fail "  the clone's machine id: '$hid' (source '$mid1')"
rm -rf "$probe"

# --- teardown removes box's pool and its loop file ------------------------------------
out=$($BOX teardown-host --yes 2>&1); rc=$?
expect_eq "$rc" 0 "teardown-host exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "removed storage-pools/box and its loop file $loop" "teardown says it removed the pool and its file"
pool_gone && ok "pool box is gone" || fail "pool box survived teardown"
[ ! -e "$loop" ] && ok "its loop file is gone" || fail "loop file $loop survived"
losetup -a 2>/dev/null | grep -q "$loop" && fail "a loop device still holds $loop" || ok "no loop device holds it"
expect_eq "$(api GET /1.0/storage-pools/default | json "j['metadata']['driver']")" dir "Incus's default pool stays"

# --- on dir: no limit, and no fork without --slow (the defences removed) --------------
out=$($BOX setup-host </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "setup-host without --pool and without a terminal"
expect_eq "$(prof_pool)" default "  keeps dir (nobody to ask)"
run 0 "ready" "a box minted on dir with --disk 1GiB" -- new --name ${P}d --image box-test-busybox --disk 1GiB
o=$(inbox ${P}d 'dd if=/dev/zero of=/root/big bs=1M count=1100 2>&1 && echo WROTE1100; rm -f /root/big')
expect_contains "$o" "WROTE1100" "on dir the same write past 1GiB succeeds (no limit: the control)"
expect_contains "$($BOX info ${P}d 2>/dev/null | grep '^DISK')" "no limit (pool default)" "box info says a dir box has no limit"
run 1 "--slow" "fork on dir is refused, naming --slow" -- fork ${P}d ${P}d2
expect_eq "$(api GET /1.0/instances/${P}d2 | json "str(j.get('error_code'))")" 404 "  and made nothing"

# --- on a terminal, setup-host asks before it makes box's own pool ----------------------
# ask ANSWER cmd...: cmd on a pseudo-terminal (stdin and stderr both a
# terminal, as a person runs it); its [Y/n] answered with ANSWER ("y", "n",
# or "" for Enter alone); the transcript on stdout, the command's status.
ask() { pty_prompt '[Y/n]' "$@"; }
out=$(ask n $BOX setup-host); rc=$?
expect_eq "$rc" 0 "on a terminal, answered n: setup-host exits 0"
expect_contains "$out" "no copy-on-write pool here" "  it asked (the terminal consent)"
expect_contains "$out" "create box's own btrfs pool 'box' (" "  naming the pool and its size"
pool_gone && ok "  answered n: no pool made" || fail "  answered n: a pool appeared"
expect_eq "$(prof_pool)" default "  answered n: boxes stay on default (dir)"
out=$(ask y $BOX setup-host); rc=$?
expect_eq "$rc" 0 "on a terminal, answered y: setup-host exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "creating box's own btrfs pool 'box'" "  answered y: it makes box's own pool"
expect_eq "$(api GET /1.0/storage-pools/box | json "j['metadata']['driver']")" btrfs "  pool box is btrfs"
expect_eq "$(prof_pool)" box "  box-net's root disk names pool box"
out=$(ask y $BOX setup-host); rc=$?
case $out in *"[Y/n]"*) fail "with box's own pool in use it asked again" ;; *) ok "with box's own pool in use it does not ask again" ;; esac
$BOX teardown-host --yes >/dev/null 2>&1
pool_gone && ok "teardown removed it again" || fail "pool box survived teardown"
$BOX setup-host --pool dir </dev/null >/dev/null 2>&1
out=$(ask "" $BOX setup-host); rc=$?
expect_eq "$rc" 0 "on a terminal, Enter alone: setup-host exits 0"
expect_contains "$out" "creating box's own btrfs pool 'box'" "  Enter alone is yes (the question offers the better)"
expect_eq "$(prof_pool)" box "  box-net's root disk names pool box"
summary
