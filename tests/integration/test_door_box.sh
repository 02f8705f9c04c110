#!/bin/sh
# The credential door's grants on real boxes (issue 37).  Needs the host
# stack (box setup-host: the box-net profile) and box-test-busybox; reads
# the pool the profile uses (a dir pool forks with --slow).
#   1. a copy carries no grant: a box granted a secret is cloned (the box
#      and a snapshot of it), forked and exported/imported; each copy's
#      grant list is empty and `box secret list` names the source alone
#      (control: the source's list holds it, and the copied snapshot's
#      config does too: the daemon copies the key, box drops it);
#   2. a restore brings back no grant of the snapshot's: a revoked box
#      restored to a snapshot taken while granted stays ungranted, and a
#      granted one restored to a snapshot from before the grant keeps it.
# Changes the shared stack: run it under the stack lock.  Leaves the stack
# as BOX_DNS=127.0.0.1 box setup-host does.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=hd37-dbx-
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
T=$(mktemp -d /tmp/hd37-dbx.XXXXXX)
D="python3 tests/drill/dr.py"
export BOX_SECRETS=$T/store
UP=$((20000 + $$ % 20000))
VALUE=sk-host-$$-value
pids=""
cleanup()
{
	for p in $pids; do kill "$p" 2>/dev/null; done
	cleanup_prefix $P >/dev/null 2>&1
	BOX_DNS=127.0.0.1 $BOX setup-host >/dev/null 2>&1 ||
	    echo "# WARNING: restoring the stack failed: BOX_DNS=127.0.0.1 $BOX setup-host"
	rm -rf "$T"
}
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap cleanup EXIT INT TERM

cfg()	# cfg NAME KEY: a config key of an instance, "" when unset
{
	api GET "/1.0/instances/$1" | json "j['metadata']['config'].get('$2', '')"
}
snapcfg()	# snapcfg NAME SNAP KEY
{
	api GET "/1.0/instances/$1/snapshots/$2" |
	    json "j['metadata']['config'].get('$3', '')"
}
users()	# users SECRET: the boxes `box secret list --json` says may use it
{
	"$BOX" secret list --json 2>/dev/null | python3 -c '
import json, sys
for s in json.load(sys.stdin):
    if s.get("name") == sys.argv[1]:
        print(" ".join(sorted(b for b in s.get("boxes", "").split(",") if b.startswith(sys.argv[2]))))
' "$1" "$P"
}

# The stack as this script needs it, built when an earlier script tore it
# down (the suite's order is not this script's business).
if ! api GET /1.0/profiles/box-net | grep -q '"type":"sync"'; then
	out=$(BOX_DNS=127.0.0.1 $BOX setup-host 2>&1) ||
	    { fail "setup-host: $out"; summary; }
fi
api GET /1.0/profiles/box-net | grep -q '"type":"sync"' ||
    { fail "no box-net profile after box setup-host"; summary; }
pool=$(api GET /1.0/profiles/box-net | json "j['metadata']['devices']['root']['pool']")
driver=$(api GET "/1.0/storage-pools/$pool" | json "j['metadata']['driver']")
slow=""
[ "$driver" = dir ] && slow=--slow
echo "# box-net's pool: $pool ($driver)"

out=$(BOX_DNS=127.0.0.1 $BOX setup-host 2>&1) || { fail "setup-host: $out"; summary; }
GW=$(api GET /1.0/networks/boxnet | json "j['metadata']['config']['ipv4.address'].split('/')[0]")
pfx=${GW%.1}.
printf '%s' "$VALUE" | "$BOX" secret add s1 --host "api.test:$UP" \
    --header x-api-key >/dev/null 2>&1 || fail "secret add (setup)"
run 0 "ready" "a box (setup)" -- new --name ${P}a --image box-test-busybox ||
    summary
run 0 "" "snapshot before the grant" -- snapshot ${P}a before
run 0 "" "grant s1 to ${P}a" -- secret grant ${P}a s1
expect_eq "$(cfg ${P}a user.box.secrets)" s1 "control: the source's grant list holds s1"
run 0 "" "snapshot while granted" -- snapshot ${P}a granted

# --- 1. copies -----------------------------------------------------------------
run 0 "ready" "clone of the granted box" -- new --name ${P}b --from ${P}a
run 0 "ready" "clone of its granted snapshot" -- new --name ${P}c --from ${P}a/granted
run 0 "" "fork of the running granted box" -- fork ${P}a ${P}d $slow
run 0 "" "stop the source for its export" -- down ${P}a
run 0 "" "export of the granted box" -- export ${P}a "$T/a.tar.gz"
run 0 "" "the source up again" -- start ${P}a
run 0 "" "import of the export" -- import "$T/a.tar.gz" --name ${P}e
for b in b c d e; do
	expect_eq "$(cfg ${P}$b user.box.secrets)" "" "the copy ${P}$b carries no grant"
done
expect_eq "$(users s1)" "${P}a" "box secret list: s1 is the source's alone"
expect_eq "$(snapcfg ${P}b granted user.box.secrets)" s1 \
    "control: the clone's copied snapshot holds the source's grant (the daemon copies the key)"
expect_eq "$(snapcfg ${P}e granted user.box.secrets)" s1 \
    "control: the import's snapshot holds it too"

# --- 2. restores (the copies' at the end) ------------------------------------------
run 0 "" "revoke s1 from ${P}a" -- secret revoke ${P}a s1
run 0 "restored" "the source restored to its granted snapshot" -- restore ${P}a granted --force
expect_eq "$(cfg ${P}a user.box.secrets)" "" "a revoke outlives the restore"
run 0 "" "grant s1 again" -- secret grant ${P}a s1
run 0 "restored" "the source restored to a snapshot from before the grant" -- restore ${P}a before --force
expect_eq "$(cfg ${P}a user.box.secrets)" s1 "the grant outlives a restore to before it"
expect_eq "$(users s1)" "${P}a" "box secret list: still the source's alone"

# 2, last: the copies restored to the snapshots they carry from the source
# (stopped first, and left so: such a snapshot also holds the source's MAC,
# which the daemon will not start a second NIC with)
for b in b e; do
	run 0 "" "${P}$b stopped" -- down ${P}$b
	run 0 "restored" "${P}$b restored to its copied granted snapshot" -- restore ${P}$b granted --force
	expect_eq "$(cfg ${P}$b user.box.secrets)" "" "the restored ${P}$b still has no grant"
done
summary
