#!/bin/sh
# box list / box info against real containers on the real daemon: a tagged
# box with stamps and a decoy address, a legacy-tagged stopped box, a box
# with snapshots and an exposure, and an untagged instance box must refuse.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=boxit-li-
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap 'cleanup_prefix $P >/dev/null 2>&1' EXIT INT TERM

STAMPS='{"user.box":"1","user.box.template":"blank","user.box.user":"dev",
 "user.box.schema":"1","user.box.version":"0.10.0",
 "user.box.created":"2026-11-30T12:00:00Z","user.box.image":"images:debian/13/cloud",
 "user.box.image.fingerprint":"0123456789abcdef0123","user.box.mode":"container",
 "user.box.mode.asked":"auto","user.box.origin":"mint"}'

launch ${P}a box-test-busybox "$STAMPS" || fail "launch ${P}a"
launch ${P}legacy box-test-busybox '{"user.claudebox":"1"}' || fail "launch legacy"
launch ${P}plain box-test-busybox '{}' || fail "launch plain"
launch ${P}snap box-test-busybox '{"user.box":"1","user.box.origin":"clone",
 "user.box.origin.from":"boxit-li-a","user.box.schema":"7"}' || fail "launch snap"

addr=$(wait_ipv4 ${P}a 60) || fail "box a got no address"
# A second, decoy address inside the box (the docker0 case): box must still
# report the one on its bridge's subnet.
api_wait POST /1.0/instances/${P}a/exec '{"command":["ip","addr","add",
 "172.17.0.1/16","dev","eth0"],"wait-for-websocket":false,"interactive":false}' >/dev/null ||
    fail "adding the decoy address"
api_wait PUT /1.0/instances/${P}legacy/state '{"action":"stop","force":true}' >/dev/null
api_wait PUT /1.0/instances/${P}snap/state '{"action":"stop","force":true}' >/dev/null
api_wait POST /1.0/instances/${P}snap/snapshots '{"name":"s1"}' >/dev/null
api_wait POST /1.0/instances/${P}snap/snapshots '{"name":"s2"}' >/dev/null
api_wait PATCH /1.0/instances/${P}a '{"devices":{"expose-38123":{"type":"proxy",
 "listen":"tcp:127.0.0.1:38123","connect":"tcp:127.0.0.1:38123","bind":"host"}},
 "description":""}' >/dev/null || fail "adding an exposure"

# --- box list -----------------------------------------------------------------
out=$($BOX list 2>&1); rc=$?
expect_eq "$rc" 0 "list exits 0"
expect_eq "$(echo "$out" | head -1 | tr -s ' ')" "NAME STATE TYPE ADDRESS SNAPSHOTS TEMPLATE EGRESS" "list header"
row() { echo "$out" | awk -v n="$1" '$1 == n' | tr -s ' '; }
expect_eq "$(row ${P}a)" "${P}a RUNNING CT $addr 0 blank open" "tagged box row (address on the bridge, not the decoy)"
expect_eq "$(row ${P}legacy)" "${P}legacy STOPPED CT - 0 claude open" "legacy box row"
expect_eq "$(row ${P}snap)" "${P}snap STOPPED CT - 2 - open" "box with snapshots"
expect_eq "$(row ${P}plain)" "" "untagged instance not listed"

# --- box list --json: box's own schema, against what the daemon says --------
$BOX list --json >/tmp/boxit-li.json 2>/tmp/boxit-li.err; rc=$?
expect_eq "$rc" 0 "list --json exits 0"
expect_eq "$(cat /tmp/boxit-li.err)" "" "list --json takes the fast path (nothing on stderr)"
got=$(json "' '.join(sorted(i['name'] for i in j if i['name'].startswith('$P')))" </tmp/boxit-li.json)
expect_eq "$got" "${P}a ${P}legacy ${P}snap" "list --json holds exactly the tagged boxes"
want=$(api GET '/1.0/instances?recursion=2' | json "' '.join(sorted(
  i['name'] + ':' + i['status'] + ':' + i['type'] + ':' + str(len(i['snapshots'] or []))
  for i in j['metadata'] if i['name'].startswith('$P') and
  ((i['config'].get('user.box') == '1') or (i['config'].get('user.claudebox') == '1'))))")
got=$(json "' '.join(sorted(i['name'] + ':' + i['state'] + ':' + i['type'] + ':' + str(i['snapshots'])
  for i in j if i['name'].startswith('$P')))" </tmp/boxit-li.json)
expect_eq "$got" "$want" "list --json agrees with the daemon (state, type, snapshots)"
got=$(json "' '.join(sorted(k for k in [i for i in j if i['name'] == '${P}a'][0]))" </tmp/boxit-li.json)
expect_eq "$got" "address egress legacy name snapshots state template type" "list --json schema keys"
got=$(json "' '.join(str(i['address']) + ':' + str(i['template']) + ':' + i['egress'] + ':' + str(i['legacy'])
  for i in sorted(j, key=lambda i: i['name']) if i['name'].startswith('$P'))" </tmp/boxit-li.json)
expect_eq "$got" "$addr:blank:open:False None:claude:open:True None:None:open:False" \
    "list --json: address only while running (the lease's, not the decoy), template, egress, legacy"

# --- box list --json=full: the daemon's own objects (what --json was) -------
$BOX list --json=full >/tmp/boxit-li.json 2>&1; rc=$?
expect_eq "$rc" 0 "list --json=full exits 0"
got=$(json "' '.join(sorted(i['name'] + ':' + i['status'] + ':' + i['type'] + ':' + str(len(i['snapshots'] or []))
  for i in j if i['name'].startswith('$P')))" </tmp/boxit-li.json)
expect_eq "$got" "$want" "list --json=full agrees with the daemon (status, snapshots)"
got=$(json "[i for i in j if i['name'] == '${P}a'][0]['state']['network']['eth0']['addresses'][0]['family']" </tmp/boxit-li.json)
expect_eq "$got" "inet" "list --json=full carries state"
out=$($BOX list --json=yaml 2>&1); rc=$?
expect_eq "$rc" 2 "list --json=<other> is a usage error"

# --- box info -------------------------------------------------------------------
out=$($BOX info ${P}a 2>&1); rc=$?
expect_eq "$rc" 0 "info exits 0"
line() { echo "$out" | grep "^$1 " | head -1 | tr -s ' '; }
expect_eq "$(line STATE)" "STATE RUNNING" "info STATE"
expect_eq "$(line TYPE)" "TYPE CT" "info TYPE"
expect_eq "$(line ADDRESS)" "ADDRESS $addr" "info ADDRESS"
expect_eq "$(line EXPOSED)" "EXPOSED 127.0.0.1:38123 → port 38123" "info EXPOSED"
expect_eq "$(line MINTED)" "MINTED 2026-11-30T12:00:00Z by box 0.10.0" "info MINTED"
expect_eq "$(line TEMPLATE)" "TEMPLATE blank (user dev)" "info TEMPLATE"
expect_eq "$(line IMAGE)" "IMAGE images:debian/13/cloud @ 0123456789ab…" "info IMAGE"
expect_eq "$(line MODE)" "MODE container (asked: auto)" "info MODE"
expect_eq "$(line ORIGIN)" "ORIGIN mint" "info ORIGIN"
expect_eq "$(line SNAPSHOTS)" "SNAPSHOTS (none)" "info without snapshots"

out=$($BOX info ${P}snap 2>&1)
expect_contains "$out" "ORIGIN     clone of boxit-li-a" "info clone origin"
expect_contains "$out" "NOTE       stamp schema 7 is newer" "info newer schema note"
expect_contains "$out" "  s1 " "info lists snapshot s1"
expect_contains "$out" "  s2 " "info lists snapshot s2"
expect_contains "$out" "box new --name <new> --from ${P}snap/s1" "info clone hint"
out=$($BOX info ${P}legacy 2>&1)
expect_contains "$out" "TEMPLATE   claude (user claude)" "legacy box renders as claude"
expect_contains "$out" "(not recorded — this box predates the mint stamp)" "legacy box has no mint stamp"

$BOX info ${P}a --json=raw >/tmp/boxit-li.json 2>&1
expect_eq "$(json "j['name'] + ' ' + j['status'] + ' ' + j['config']['user.box.template']" </tmp/boxit-li.json)" \
    "${P}a Running blank" "info --json=raw is the instance"
$BOX info ${P}a --json >/tmp/boxit-li.json 2>&1
expect_eq "$(json "j['name'] + ' ' + j['state'] + ' ' + j['template'] + ' ' + j['address'] + ' ' + str(j['doors'][0]['port'])" </tmp/boxit-li.json)" \
    "${P}a Running blank $addr 38123" "info --json is box's model (the list entry, doors)"

# --- the project parameter --------------------------------------------------------
api DELETE /1.0/projects/${P}proj >/dev/null 2>&1
api_wait POST /1.0/projects "{\"name\":\"${P}proj\",\"config\":{\"features.images\":\"false\",\"features.profiles\":\"false\"}}" >/dev/null ||
    fail "creating a test project"
api_wait POST "/1.0/instances?project=${P}proj" "{\"name\":\"${P}inproj\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"box-test-busybox\"},\"profiles\":[\"default\"],\"config\":{\"user.box\":\"1\"}}" >/dev/null ||
    fail "creating a box in the test project"
out=$(BOX_PROJECT=${P}proj $BOX list 2>&1)
expect_eq "$(echo "$out" | awk 'NR > 1 {print $1}' | tr '\n' ' ')" "${P}inproj " "BOX_PROJECT lists that project's boxes only"
expect_eq "$($BOX list | awk -v n=${P}inproj '$1 == n')" "" "the default project does not show it"
out=$(BOX_PROJECT='bad project' $BOX list 2>&1); rc=$?
expect_eq "$rc" 2 "a malformed BOX_PROJECT is a usage error"
api_wait DELETE "/1.0/instances/${P}inproj?project=${P}proj" >/dev/null
api_wait DELETE /1.0/projects/${P}proj >/dev/null || fail "deleting the test project"

# --- refusals ----------------------------------------------------------------------
out=$($BOX info ${P}plain 2>&1); rc=$?
expect_eq "$rc" 1 "info refuses an untagged instance"
expect_contains "$out" "did not mint" "untagged refusal names why"
out=$($BOX info ${P}nope 2>&1); rc=$?
expect_eq "$rc" 1 "info on a missing box exits 1"
expect_contains "$out" "no such box: ${P}nope" "missing box message"
out=$($BOX info 'bad_name!' 2>&1); rc=$?
expect_eq "$rc" 2 "info with a malformed name exits 2"
out=$($BOX list extra 2>&1); rc=$?
expect_eq "$rc" 2 "list with a positional exits 2"
expect_contains "$out" "box info extra" "list positional hint"
out=$($BOX list --jsn 2>&1); rc=$?
expect_eq "$rc" 2 "unknown flag exits 2"
expect_contains "$out" "did you mean --json" "unknown flag suggestion"
out=$($BOX lsit 2>&1); rc=$?
expect_eq "$rc" 2 "unknown verb exits 2"
expect_contains "$out" "did you mean 'list'" "unknown verb suggestion"
out=$($BOX --json list 2>&1); rc=$?
expect_eq "$rc" 2 "options before the verb exit 2"
$BOX list --help >/dev/null 2>&1; expect_eq "$?" 0 "list --help exits 0"
out=$($BOX help info 2>&1); rc=$?
expect_eq "$rc" 0 "help info exits 0"
expect_contains "$out" "usage: box info <box> [--json[=raw]]" "help info shows the synopsis"

summary
