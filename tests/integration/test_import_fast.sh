#!/bin/sh
# The two things that make box import as fast as `incus import` + start:
#
# 1. the vet runs beside the upload (box/import/vet_bg.h; without --name once a
#    read of the file's head found the recorded name) and a refusal withholds
#    the last bytes, so the daemon never gets the whole file and creates
#    nothing - not "created, then removed": no instance appears for 5 s
#    after box has answered (seen failing with the withhold removed: the
#    daemon's restore went on and made the instance after box had left);
#
# 2. box import gives a container its new machine identity as a first-start
# instance template (box/import/import_id.h), never through anything the file
# planted (box/import/vet_export.h: id_template).  The daemon writes
# metadata.yaml and templates/<t> on the host, as root, through whatever
# the export unpacked there, and Incus 6.0.4 without the CVE-2026-23954
# fix renders a template's target through symlinks too.  So exports that
# plant a symlink on one of those paths - each pointing at a canary file
# or directory on THIS host that the test made - must import the slow way
# (the files API, inside the box), and every canary must be untouched.
# Seen failing with the vet's check removed: the metadata.yaml canary was
# rewritten by the daemon, box-identity.tpl landed in the host directory,
# and the machine-id symlink made the start fail (this daemon has the
# template-target fix: "Template is attempting access to path outside of
# container").  A clean export takes the template: the id is new, distinct
# between two imports, the trigger cleared by the start.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=hi-fast-
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
T0=$(date +%s)
tmp=$(mktemp -d /tmp/hi-fast.XXXXXX)
cleanup()
{
	cleanup_prefix $P >/dev/null 2>&1
	rm -rf "$tmp"
}
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap cleanup EXIT INT TERM

nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
api GET /1.0/profiles/box-net | grep -q '"type":"sync"' ||
    { fail "no box-net profile (box setup-host): nothing here can be tested"; summary; }

# --- the base: a busybox instance of ours, started once, with a machine-id ----
api_wait POST /1.0/instances '{"name":"'${P}base'","type":"container",
 "source":{"type":"image","alias":"box-test-busybox"},"profiles":[],
 "devices":{"root":{"type":"disk","path":"/","pool":"default"}},
 "config":{"user.box":"1"}}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"start"}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/exec '{"command":["sh","-c",
     "echo 0123456789abcdef0123456789abcdef >/etc/machine-id"],
     "wait-for-websocket":false,"interactive":false}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"stop","force":true}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/backups '{"name":"b","compression_algorithm":"gzip"}' >/dev/null &&
    curl -sS --unix-socket "$INCUS_SOCK" -o "$tmp/base.tar.gz" \
        "http://incus/1.0/instances/${P}base/backups/b/export" &&
    mkdir "$tmp/x" && tar -C "$tmp/x" -xzf "$tmp/base.tar.gz" ||
    { fail "making the base export"; summary; }
# the base goes: the imports below without --name take its recorded name
api_wait PUT /1.0/instances/${P}base/state '{"action":"stop","force":true}' >/dev/null 2>&1
api_wait DELETE /1.0/instances/${P}base >/dev/null || fail "removing ${P}base"
R=$tmp/x/backup/container/rootfs
[ -f "$R/etc/machine-id" ] && ok "the base export holds /etc/machine-id" ||
    fail "no /etc/machine-id in the base export"

mid() { incus exec "$1" -- cat /etc/machine-id </dev/null 2>&1; }
# the trigger our template entry answers to (its first 13 chars), or none
templated() { api GET /1.0/instances/$1/metadata | json "(((j['metadata'].get('templates') or {})
    .get('/etc/machine-id') or {}).get('when') or ['none'])[0][:13]"; }

# --- a refused file never reaches the daemon whole ------------------------------
rm -rf "$tmp/c" && cp -a "$tmp/x" "$tmp/c" &&
    sed -i '0,/^  config:$/s//  config:\n    security.privileged: "true"/' \
        "$tmp/c/backup/container/backup.yaml" &&
    tar -C "$tmp/c" -czf "$tmp/priv.tar.gz" backup || fail "packing priv"
# never_made NAME: no instance NAME appears in the 5 s after box answered
never_made()
{
	_n=0 _seen=0
	while [ $_n -lt 25 ]; do
		api GET /1.0/instances/$1 | grep -q '"type":"sync"' && { _seen=1; break; }
		sleep 0.2
		_n=$((_n + 1))
	done
	expect_eq "$_seen" 0 "$2: no instance appeared in the 5 s after (the daemon never had it whole)"
	cleanup_prefix $1 >/dev/null
}
_out=$("$BOX" import "$tmp/priv.tar.gz" --name ${P}priv </dev/null 2>&1)
expect_eq "$?" 1 "a privileged export is refused (--name: the vet beside the upload)"
expect_contains "$_out" "security.privileged" "the refusal names the key"
expect_contains "$_out" "nothing was imported" "and says nothing was imported"
never_made ${P}priv "--name"
# without --name: the name from a read of the file's head, the vet beside
_out=$("$BOX" import "$tmp/priv.tar.gz" </dev/null 2>&1)
expect_eq "$?" 1 "refused without --name too (the recorded name, ${P}base)"
expect_contains "$_out" "security.privileged" "the refusal names the key"
never_made ${P}base "no --name"

# --- a clean repack takes the template ------------------------------------------
tar -C "$tmp/x" -czf "$tmp/clean.tar.gz" backup
_out=$("$BOX" import "$tmp/clean.tar.gz" </dev/null 2>&1)
expect_eq "$?" 0 "a clean export imports under its recorded name"
_out=$("$BOX" import "$tmp/clean.tar.gz" --name ${P}c2 </dev/null 2>&1)
expect_eq "$?" 0 "and beside it under --name"
m1=$(mid ${P}base) m2=$(mid ${P}c2)
case $m1 in [0-9a-f]*) [ ${#m1} -eq 32 ] && ok "the import's machine-id is 32 hex digits" ||
    fail "machine-id '$m1'" ;; *) fail "machine-id '$m1'" ;; esac
[ "$m1" != 0123456789abcdef0123456789abcdef ] && [ "$m1" != "$m2" ] &&
    ok "new and distinct between two imports ($m1, $m2)" || fail "ids '$m1' '$m2'"
expect_eq "$(templated ${P}base)/$(templated ${P}c2)" "box-identity-/box-identity-" \
    "both clean imports took the template"
expect_eq "$(api GET /1.0/instances/${P}base | json "j['metadata']['config'].get('volatile.apply_template', 'gone')")" \
    gone "the trigger was cleared by the start"
cleanup_prefix ${P}base >/dev/null
cleanup_prefix ${P}c >/dev/null

# planted NAME DESC: import $tmp/NAME.tar.gz (made from $tmp/c) as P+NAME;
# it must not take the template, and it must come up all the same.
planted()
{
	tar -C "$tmp/c" -czf "$tmp/$1.tar.gz" backup || { fail "packing $1"; return; }
	_out=$("$BOX" import "$tmp/$1.tar.gz" --name ${P}$1 </dev/null 2>&1)
	expect_eq "$?" 0 "$2: imports all the same (the files API)"
	[ "$(templated ${P}$1)" = none ] && ok "$2: no template was arranged" ||
	    fail "$2: the daemon was asked to template it"
	cleanup_prefix ${P}$1 >/dev/null
}
fresh() { rm -rf "$tmp/c" && cp -a "$tmp/x" "$tmp/c"; }
C=$tmp/c/backup/container

# 1. /etc/machine-id a symlink to a host file.  Inside the box /tmp exists,
#    so the files API's write lands in the box's own /tmp.
canary=/tmp/hi-fast-canary-$$
echo canary >"$canary"
fresh && rm "$C/rootfs/etc/machine-id" && ln -s "$canary" "$C/rootfs/etc/machine-id"
planted mlink "machine-id a symlink to a host file"
expect_eq "$(cat "$canary")" canary "the host file it named is untouched"

# 2. the same symlink appended after the regular file (GNU tar keeps the last)
fresh && mkdir -p "$tmp/d/backup/container/rootfs/etc" &&
    ln -s "$canary" "$tmp/d/backup/container/rootfs/etc/machine-id" &&
    tar -C "$tmp/c" -cf "$tmp/dup.tar" backup &&
    tar -C "$tmp/d" -rf "$tmp/dup.tar" backup/container/rootfs/etc/machine-id &&
    gzip -f "$tmp/dup.tar" || fail "packing dup"
_out=$("$BOX" import "$tmp/dup.tar.gz" --name ${P}dup </dev/null 2>&1)
expect_eq "$?" 0 "machine-id twice, the last a symlink: imports all the same"
expect_eq "$(templated ${P}dup)" none "machine-id twice: no template was arranged"
cleanup_prefix ${P}dup >/dev/null
expect_eq "$(cat "$canary")" canary "the host file it named is untouched"

# refused NAME DESC: import $tmp/NAME.tar.gz (made from $tmp/c) as P+NAME;
# the vet refuses a link outside the box's root filesystem (issue 22: no
# links at all outside rootfs/), and nothing is made.
refused()
{
	tar -C "$tmp/c" -czf "$tmp/$1.tar.gz" backup || { fail "packing $1"; return; }
	_out=$("$BOX" import "$tmp/$1.tar.gz" --name ${P}$1 </dev/null 2>&1)
	expect_eq "$?" 1 "$2: refused"
	expect_contains "$_out" "a link or FIFO outside the box's root filesystem" "$2: the vet names why"
	never_made ${P}$1 "$2"
	cleanup_prefix ${P}$1 >/dev/null
}

# 3. metadata.yaml a symlink to a host file (YAML, so a write would succeed)
printf 'architecture: x86_64\n' >"$canary.yaml"
fresh && rm "$C/metadata.yaml" && ln -s "$canary.yaml" "$C/metadata.yaml"
refused meta "metadata.yaml a symlink to a host file"
expect_eq "$(cat "$canary.yaml")" "architecture: x86_64" "the host file it named is untouched"

# 4. templates/ a symlink to a host directory
mkdir "$canary.d"
fresh && ln -s "$canary.d" "$C/templates"
refused tpl "templates/ a symlink to a host directory"
expect_eq "$(ls -A "$canary.d")" "" "nothing was written into the host directory"
rm -rf "$canary" "$canary.yaml" "$canary.d"

# --- a restored box exports and imports ---------------------------------------
# A snapshot of a running box records its host-side interface
# (volatile.eth0.host_name); a restore copies that onto the stopped
# instance.  Import takes it (the form Incus generates) and drops it, as
# it drops the MAC, so the imported box starts on a name of its own.
R=${P}rs
cfg()	# box key
{
	api GET /1.0/instances/$1 | json "j['metadata']['config'].get('$2', '')"
}
if run 0 "ready" "mint $R (running, on box-net)" -- new --name $R --image box-test-busybox &&
    run 0 "" "snapshot $R while it runs" -- snapshot $R s1 &&
    run 0 "" "stop $R" -- down $R --force &&
    run 0 "" "restore $R to s1" -- restore $R s1 --force; then
	hn=$(cfg $R volatile.eth0.host_name)
	[ -n "$hn" ] && ok "the restored (stopped) box carries host_name $hn" ||
	    ok "note: this Incus did not copy host_name onto the restored box"
	run 0 "" "export the restored box" -- export $R "$tmp/rs.tar.gz"
	run 0 "" "rm it" -- rm $R --force
	run 0 "" "import the restored box's export" -- import "$tmp/rs.tar.gz"
	expect_eq "$(api GET /1.0/instances/$R | json "j['metadata']['status']")" Running "the imported restored box runs"
	hn2=$(cfg $R volatile.eth0.host_name)
	[ -n "$hn2" ] && { [ -z "$hn" ] || [ "$hn2" != "$hn" ]; } &&
	    ok "its host-side interface is its own ($hn2, not $hn)" ||
	    fail "the imported box kept the snapshot's interface name $hn"
fi
cleanup_prefix $R >/dev/null

echo "# $(($(date +%s) - T0)) s"
summary
