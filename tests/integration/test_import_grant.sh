#!/bin/sh
# box import for a granted user (issue 22): a real user (useradd bxi1),
# box grant, incus-user on its own socket.  Incus refuses every backup
# restore in a restricted project: the restore re-checks the instance it
# has just made, and the volatile.* keys the daemon itself sets on every
# new instance (uuid, idmap, cloud-init id) are forbidden there
# (box/import/reframe.h has the source).  So a granted user's box import sends
# the export's root filesystem as a private image, makes the box from it
# with the file's config (vetted), deletes the image, and runs the rest of
# the import as for anyone.
#
#   control: the same file POSTed by the user straight to incus-user as
#            a backup is refused, naming a volatile key
#   then:    box import as the user: the box runs, on box-net alone,
#            its files (content, owner, mode, a hard link, a long name)
#            and its config as the file had them, a uuid of its own, the
#            image gone, its snapshot said to be left behind
#   hostile: a file whose config the vet refuses (environment.*, a key
#            the user's project takes: the control sets it on the box
#            through incus-user) is refused, nothing made, no image left;
#            a privileged one likewise
#   race:    a file its owner rewrites in place between the first vet
#            and the upload is refused from the upload's own bytes
#   killed:  an import SIGKILLed between its image and the box (held there
#            by a relay of the user's own in front of incus-user) leaves
#            the image, marked with its pid; it stays (control: a box
#            list, time); the next import deletes it, and box prune a
#            second one, while an image marked by a live process and an
#            unmarked one of the user's stay
#
# Run under the lock:
#   flock /run/box-it.lock sh tests/integration/test_import_grant.sh
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

U=bxi1 P=hig- S=$INCUS_SOCK US=/var/lib/incus/unix.socket.user
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
tmp=$(mktemp -d /tmp/hi-grant.XXXXXX)
chmod 755 "$tmp"
cp "$BOX" "$tmp/box" && chmod 755 "$tmp/box"
UB=$tmp/box
started_iu= live=
as() { (cd "$tmp" && runuser -u "$U" -- "$@"); }

purge_user()
{
	id "$U" >/dev/null 2>&1 || return 0
	_uid=$(id -u "$U")
	BOX_YES=1 $BOX revoke "$U" --purge >/dev/null 2>&1
	api GET /1.0/projects/user-$_uid | grep -q '"type":"sync"' &&
	    api_wait DELETE /1.0/projects/user-$_uid >/dev/null 2>&1
	userdel -r "$U" >/dev/null 2>&1
	rm -f /var/lib/incus/users/$_uid
	return 0
}
cleanup()
{
	purge_user
	cleanup_prefix $P >/dev/null 2>&1
	[ -n "$started_iu" ] && kill "$started_iu" 2>/dev/null
	[ -n "$live" ] && kill "$live" 2>/dev/null
	[ -s "$tmp/px/pid" ] && kill "$(cat "$tmp/px/pid")" 2>/dev/null
	rm -rf "$tmp"
}
[ "$(id -u)" = 0 ] || { echo "needs root"; echo "0 passed, 1 failed"; exit 1; }
nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "the egress guard is not installed (sh ci/egress-guard.sh install)"; summary; }
incus network show boxnet >/dev/null 2>&1 ||
    BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 $BOX setup-host >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log"; fail "no boxnet, and setup-host failed"; summary; }
purge_user
cleanup_prefix $P >/dev/null 2>&1
trap cleanup EXIT INT TERM

start_incus_user "$tmp/incus-user.log"
useradd -m -s /bin/sh "$U" || { fail "useradd $U"; summary; }
UID1=$(id -u "$U")
PR=user-$UID1
# this Incus follows an image's links (grant's own probe): said loudly,
# and taken here, since what is tested is the import
out=$($BOX grant "$U" --accept-daemon-risk 2>&1) || { echo "$out"; fail "box grant $U"; summary; }
ok "box grant $U (project $PR)"

# --- an export of a started container, as the daemon writes it -----------------
# with what an import must keep: a file's bytes, owner and mode, a hard
# link, a name longer than a tar header holds (a PAX path), config
# (MID fits a ustar header's prefix and name; LONG's last part does not)
D60=$(printf 'd%.0s' $(seq 1 60))
MID=/root/$D60/$(printf 'm%.0s' $(seq 1 70))
LONG=/root/$D60/$(printf 'f%.0s' $(seq 1 110))
api_wait POST /1.0/instances '{"name":"'${P}base'","type":"container",
 "source":{"type":"image","alias":"box-test-busybox"},"profiles":[],
 "devices":{"root":{"type":"disk","path":"/","pool":"default"}},
 "config":{"user.box":"1","limits.memory":"256MiB","limits.processes":"500"}}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"start"}' >/dev/null &&
    incus exec ${P}base -- sh -c "echo h22-marker >/root/marker &&
        chown 1234:2345 /root/marker && chmod 640 /root/marker &&
        ln /root/marker /root/hard && mkdir -p /root/$D60 && echo mid >$MID && echo deep >$LONG" &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"stop","force":true}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/snapshots '{"name":"s0"}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/backups '{"name":"b","compression_algorithm":"gzip"}' >/dev/null &&
    curl -sS --unix-socket "$S" -o "$tmp/base.tar.gz" \
        "http://incus/1.0/instances/${P}base/backups/b/export" ||
    { fail "making the export"; summary; }
SRCUUID=$(api GET /1.0/instances/${P}base | json "j['metadata']['config']['volatile.uuid']")
api_wait DELETE /1.0/instances/${P}base >/dev/null || fail "removing ${P}base"
chmod 644 "$tmp/base.tar.gz"
n=$(tar -xzOf "$tmp/base.tar.gz" backup/index.yaml | grep -c 'volatile\.[a-z_.]*idmap')
[ "$n" -gt 0 ] && ok "the export carries $n volatile idmap lines in its index" ||
    fail "the export carries no idmap key (nothing to test)"

# --- control: the daemon alone refuses it in the user's project -----------------
as curl -sS --unix-socket $US -X POST -H 'Content-Type: application/octet-stream' \
    -H "X-Incus-name: ${P}ctl" --data-binary @"$tmp/base.tar.gz" \
    "http://incus/1.0/instances?project=$PR" >"$tmp/ctl.json" 2>&1
op=$(json "j.get('operation') or ''" <"$tmp/ctl.json" 2>/dev/null)
if [ -n "$op" ]; then
	as curl -sS --unix-socket $US "http://incus$op/wait?timeout=120" >"$tmp/ctl.json" 2>&1
fi
expect_contains "$(cat "$tmp/ctl.json")" "is forbidden" "control: the daemon refuses the file as it is for $U ($(json "j.get('error') or j.get('metadata', {}).get('err', '')" <"$tmp/ctl.json" 2>/dev/null | cut -c1-100))"
api GET "/1.0/instances/${P}ctl?project=$PR" | grep -q '"type":"sync"' &&
    fail "control: an instance was made anyway" || ok "control: nothing was made"

# --- box import as the user ----------------------------------------------------
images() { api GET "/1.0/images?project=$PR" | json "len(j['metadata'])"; }
IMG0=$(images)
t=$(date +%s%N)
out=$(as "$UB" import "$tmp/base.tar.gz" --name ${P}u1 </dev/null 2>&1); rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
expect_eq "$rc" 0 "box import as $U: exit 0 (${ms} ms)"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "imported ${P}u1 at 10." "  it says where the box is"
expect_contains "$out" "left behind 1 snapshot" "  it says the snapshot is not carried"
ix() { incus exec --project "$PR" ${P}u1 -- "$@" 2>&1; }
expect_eq "$(api GET "/1.0/instances/${P}u1?project=$PR" | json "j['metadata']['status']")" Running \
    "  ${P}u1 runs in $PR"
expect_eq "$(ix cat /root/marker)" h22-marker "  its file came back"
expect_eq "$(ix stat -c '%u:%g %a %h' /root/marker)" "1234:2345 640 2" \
    "  with its owner, mode and hard link"
expect_eq "$(ix cat "$MID")" mid "  and the file under a ${#MID}-byte path (a ustar prefix)"
expect_eq "$(ix cat "$LONG")" deep "  and the file under a ${#LONG}-byte path (a PAX path)"
cfg=$(api GET "/1.0/instances/${P}u1?project=$PR")
expect_eq "$(echo "$cfg" | json "j['metadata']['config'].get('limits.memory')")" 256MiB "  its config came back (limits.memory)"
expect_eq "$(echo "$cfg" | json "j['metadata']['config'].get('limits.processes')")" 500 "  (limits.processes)"
expect_eq "$(echo "$cfg" | json "j['metadata']['profiles']")" '["box-net"]' "  on the box-net profile alone"
expect_eq "$(echo "$cfg" | json "j['metadata']['config'].get('user.box.origin')")" import "  stamped by this host as an import"
u=$(echo "$cfg" | json "j['metadata']['config'].get('volatile.uuid')")
[ -n "$u" ] && [ "$u" != "$SRCUUID" ] && ok "  a uuid of its own (not the file's)" || fail "  uuid '$u' (the file's: $SRCUUID)"
expect_eq "$(images)" "$IMG0" "  the image it was made from is gone"

# --- a file whose config the vet refuses is refused for the user -----------------
mkdir "$tmp/x" && tar -C "$tmp/x" -xzf "$tmp/base.tar.gz" &&
    cp "$tmp/x/backup/container/backup.yaml" "$tmp/by.clean" ||
    fail "unpacking the export"
packx() # LINE OUT: the export with LINE first in the container's config
{
	cp "$tmp/by.clean" "$tmp/x/backup/container/backup.yaml"
	sed -i "0,/^  config:\$/s//  config:\n    $1/" "$tmp/x/backup/container/backup.yaml"
	tar -C "$tmp/x" -czf "$2" backup && chmod 644 "$2"
}
packx 'environment.SMUGGLED: "1"' "$tmp/env.tar.gz"
out=$(as "$UB" import "$tmp/env.tar.gz" --name ${P}u2 </dev/null 2>&1)
expect_eq "$?" 1 "an export with environment.SMUGGLED as $U: refused"
expect_contains "$out" "environment.SMUGGLED" "  naming the key"
sleep 1
api GET "/1.0/instances/${P}u2?project=$PR" | grep -q '"type":"sync"' &&
    fail "  an instance ${P}u2 was made" || ok "  nothing was made"
expect_eq "$(images)" "$IMG0" "  and no image left"
# control: the user's project itself takes the key (only the vet refused it)
as curl -sS --unix-socket $US -X PATCH -H 'Content-Type: application/json' \
    -d '{"config":{"environment.SMUGGLED":"1"}}' \
    "http://incus/1.0/instances/${P}u1?project=$PR" >"$tmp/patch.json" 2>&1
expect_eq "$(api GET "/1.0/instances/${P}u1?project=$PR" | json "j['metadata']['config'].get('environment.SMUGGLED')")" 1 \
    "control: $U sets environment.SMUGGLED on a box through incus-user"
packx 'security.privileged: "true"' "$tmp/priv.tar.gz"
out=$(as "$UB" import "$tmp/priv.tar.gz" --name ${P}u3 </dev/null 2>&1)
expect_eq "$?" 1 "a privileged export as $U: refused"
expect_contains "$out" "security.privileged" "  naming the key"
sleep 1
api GET "/1.0/instances/${P}u3?project=$PR" | grep -q '"type":"sync"' &&
    fail "  an instance ${P}u3 was made" || ok "  nothing was made"
expect_eq "$(images)" "$IMG0" "  and no image left"

# --- a file its owner rewrites in place between the vet and the upload ---------
# The admin imports a file the user owns, replacing a box (--force asks on
# a terminal, after a first vet of the file as it then was: the question
# is the pause).  While box waits for the answer the user rewrites the
# file's bytes in place (same inode, same size): clean -> privileged.  The
# upload is vetted from its own bytes (the one read feeds the daemon, the
# hash and the vet), so what the daemon would get is what is refused.
rm -rf "$tmp/r" && mkdir "$tmp/r" && tar -C "$tmp/r" -xzf "$tmp/base.tar.gz" || fail "unpacking for the race"
pack() # LINE OUT: backup.yaml's container config with LINE first, as a plain tar
{
	cp "$tmp/r/backup/container/backup.yaml" "$tmp/by.orig"
	sed -i "0,/^  config:\$/s//  config:\n    $1/" "$tmp/r/backup/container/backup.yaml"
	tar -C "$tmp/r" --mtime=@0 --sort=name -cf "$2" backup
	cp "$tmp/by.orig" "$tmp/r/backup/container/backup.yaml"
}
pack 'image.racepadding: "pppppp"' "$tmp/clean.tar"
pack 'security.privileged: "true"' "$tmp/priv.tar"
expect_eq "$(stat -c %s "$tmp/clean.tar")" "$(stat -c %s "$tmp/priv.tar")" "the race: the clean and the privileged file are the same size"
expect_eq "$(cmp -l "$tmp/clean.tar" "$tmp/priv.tar" | wc -l | tr -d ' ')" \
    "$(python3 -c 'print(sum(a != b for a, b in zip("image.racepadding: \"pppppp\"", "security.privileged: \"true\"")))')" \
    "the race: they differ in the one line's bytes alone"
out=$($BOX import "$tmp/clean.tar" --name ${P}r </dev/null 2>&1)
expect_eq "$?" 0 "the race: the clean file imports as ${P}r (the box to replace)"
cp "$tmp/clean.tar" "$tmp/race.tar" && chown "$U" "$tmp/race.tar" && chmod 644 "$tmp/race.tar"
python3 - "$BOX" "$tmp/race.tar" ${P}r "$U" "$tmp/priv.tar" >"$tmp/race.out" 2>&1 <<'PY'
import os, pty, subprocess, sys, time
box, f, name, user, priv = sys.argv[1:6]
pid, fd = pty.fork()
if pid == 0:
    os.execv(box, [box, "import", f, "--name", name, "--force"])
buf, end = b"", time.time() + 120
while b"[y/N]" not in buf and time.time() < end:
    try:
        buf += os.read(fd, 4096)
    except OSError:
        break
asked = b"[y/N]" in buf
if asked:
    # the owner rewrites the file's bytes in place: the same inode
    subprocess.run(["runuser", "-u", user, "--", "dd", "if=" + priv, "of=" + f,
                    "conv=notrunc", "status=none"], check=True)
    os.write(fd, b"yes\n")
while True:
    try:
        r = os.read(fd, 4096)
    except OSError:
        break
    if not r:
        break
    buf += r
_, st = os.waitpid(pid, 0)
sys.stdout.write(buf.decode("utf-8", "replace"))
print("\nASKED=%d RC=%d" % (asked, os.waitstatus_to_exitcode(st)))
PY
expect_contains "$(cat "$tmp/race.out")" "ASKED=1" "the race: box asked (the first vet passed the clean bytes)"
expect_contains "$(cat "$tmp/race.out")" "RC=1" "the race: the rewritten file is refused"
expect_contains "$(cat "$tmp/race.out")" "security.privileged" "  naming the key the rewrite put there"
cmp -s "$tmp/race.tar" "$tmp/priv.tar" && ok "  (the file on disk is the privileged one)" || fail "  the rewrite did not happen"
expect_eq "$(api GET /1.0/instances/${P}r | json "j['metadata']['config'].get('security.privileged', 'unset')")" unset \
    "  the old ${P}r is untouched and not privileged"
expect_eq "$(api GET /1.0/instances | json "len([u for u in j['metadata'] if '${P}r-import' in u])")" 0 "  no temporary copy is left"
# control: the same bytes taken by the daemon alone are a privileged box
curl -sS --unix-socket "$S" -X POST -H 'Content-Type: application/octet-stream' \
    -H "X-Incus-name: ${P}rc" --data-binary @"$tmp/priv.tar" http://incus/1.0/instances >"$tmp/rc.json" 2>&1
op=$(json "j.get('operation') or ''" <"$tmp/rc.json" 2>/dev/null)
[ -n "$op" ] && curl -sS --unix-socket "$S" "http://incus$op/wait?timeout=120" >/dev/null 2>&1
expect_eq "$(api GET /1.0/instances/${P}rc | json "j['metadata']['config'].get('security.privileged', 'unset')")" true \
    "control: the daemon alone makes the rewritten file a privileged instance"
# --- an import killed between its image and the box ------------------------------
# A relay of the user's own (incus-user reads the peer's uid) in front of
# incus-user holds the first POST /1.0/instances, the create from the
# image, which comes only once the image exists; box then waits on it and
# is SIGKILLed there.  The image names its process (box.import).
PX=$tmp/px
mkdir -p "$PX" && chown "$U" "$PX"
cat >"$tmp/hold.py" <<'PY'
import os, re, socket, sys, threading
listen, upstream, flag = sys.argv[1:4]
open(os.path.join(os.path.dirname(listen), "pid"), "w").write(str(os.getpid()))
threading.Timer(300, os._exit, (0,)).start()
s = socket.socket(socket.AF_UNIX)
s.bind(listen)
s.listen(16)
def pipe(a, b, watch):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            if watch and re.search(rb"^POST /1\.0/instances[? ]", d, re.M):
                open(flag, "w").close()
                threading.Event().wait()    # held: never reaches the daemon
            b.sendall(d)
    except OSError:
        pass
    for x in (a, b):
        try:
            x.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    c, _ = s.accept()
    u = socket.socket(socket.AF_UNIX)
    u.connect(upstream)
    threading.Thread(target=pipe, args=(c, u, True), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, False), daemon=True).start()
PY
marks() { api GET "/1.0/images?project=$PR&recursion=1" |
    json "' '.join(sorted(i['fingerprint'][:12] + '=' + (i.get('properties') or {}).get('box.import', '-').replace(' ', ',') for i in j['metadata']))"; }
# the user's own images: one unmarked, one marked by a process that lives
# (this test's sleep), uploaded by the user through incus-user
sleep 600 </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- & live=$!
LIVE="$(cat /proc/sys/kernel/random/boot_id) $(readlink /proc/self/ns/pid | tr -dc 0-9) $live $(awk '{print $22}' /proc/$live/stat)"
own_image() # DIR PROPS-LINE
{
	mkdir -p "$tmp/$1/rootfs/etc" && echo "$1" >"$tmp/$1/rootfs/etc/hostname" &&
	    printf 'architecture: %s\ncreation_date: 1700000000\nproperties:\n  description: %s\n%s' \
	    "$(uname -m)" "$1" "$2" >"$tmp/$1/metadata.yaml" &&
	    tar -C "$tmp/$1" -cf "$tmp/$1.tar" metadata.yaml rootfs && chmod 644 "$tmp/$1.tar" &&
	    as curl -sS --unix-socket $US -X POST -H 'Content-Type: application/octet-stream' \
	    --data-binary @"$tmp/$1.tar" "http://incus/1.0/images?project=$PR" >"$tmp/$1.json" &&
	    op=$(json "j['operation']" <"$tmp/$1.json") &&
	    as curl -sS --unix-socket $US "http://incus$op/wait?timeout=60" >"$tmp/$1.json" &&
	    json "j['metadata']['metadata']['fingerprint'][:12]" <"$tmp/$1.json"
}
OWN=$(own_image h22own "")
LIVEFP=$(own_image h22live "  box.import: \"$LIVE\"
")
[ -n "$OWN" ] && [ -n "$LIVEFP" ] && ok "$U uploads an image of their own and one marked by a live process ($LIVEFP)" ||
    fail "uploading $U's own images"
killed_import() # NAME: a box import held at its create and SIGKILLed; its pid
{
	rm -f "$PX/held" "$PX/unix.socket.user" "$PX/pid"
	runuser -u "$U" -- python3 "$tmp/hold.py" "$PX/unix.socket.user" $US "$PX/held" \
	    </dev/null >"$PX/log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	for _i in $(seq 1 50); do [ -S "$PX/unix.socket.user" ] && break; sleep 0.1; done
	(cd "$tmp" && exec runuser -u "$U" -- env INCUS_SOCKET="$PX/unix.socket.user" \
	    "$UB" import "$tmp/base.tar.gz" --name "$1" </dev/null >"$tmp/$1.out" 2>&1) &
	for _i in $(seq 1 600); do [ -e "$PX/held" ] && break; sleep 0.1; done
	_pid=
	for _p in $(marks | tr ' ' '\n' | grep -v '=-$' | sed 's/.*,\([0-9]*\),[0-9]*$/\1/'); do
		tr '\0' ' ' </proc/$_p/cmdline 2>/dev/null | grep -q "import $tmp/base.tar.gz --name $1" && _pid=$_p
	done
	if [ -e "$PX/held" ] && [ -n "$_pid" ]; then
		kill -KILL "$_pid"
		while kill -0 "$_pid" 2>/dev/null; do sleep 0.1; done
		echo "$_pid"
	fi
	[ -s "$PX/pid" ] && kill "$(cat "$PX/pid")" 2>/dev/null
	wait 2>/dev/null
}
KPID=$(killed_import ${P}k1)
[ -n "$KPID" ] && ok "an import held at its create (its image made) is SIGKILLed (pid $KPID)" ||
    fail "the import was never held at its create ($(cat "$tmp/${P}k1.out" "$PX/log" 2>/dev/null | tail -3))"
left=$(marks | tr ' ' '\n' | grep ",$KPID," | cut -d= -f1)
[ -n "$left" ] && ok "  it left its image ($left), marked with its pid" || fail "  no image left (marks: $(marks))"
api GET "/1.0/instances/${P}k1?project=$PR" | grep -q '"type":"sync"' &&
    fail "  an instance ${P}k1 was made" || ok "  and no instance"
as "$UB" list >/dev/null 2>&1
sleep 2
expect_contains "$(marks)" "$left=" "control: the image stays (after a box list and 2 s)"
out=$(as "$UB" import "$tmp/base.tar.gz" --name ${P}u4 </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "the next import as $U: exit 0"
expect_contains "$out" "removed image $left, which an interrupted import left behind" "  it says it removed the leftover"
m=$(marks)
case " $m " in *" $left="*) fail "  the leftover $left is still there ($m)" ;; *) ok "  the leftover is gone" ;; esac
expect_contains "$m" "$LIVEFP=" "  the image marked by a live process stays"
expect_contains "$m" "$OWN=-" "  the user's unmarked image stays"
expect_eq "$(api GET "/1.0/instances/${P}u4?project=$PR" | json "j['metadata']['config'].get('image.box.import', 'unset')")" unset \
    "  the box made carries no mark"
KPID=$(killed_import ${P}k2)
left=$(marks | tr ' ' '\n' | grep ",$KPID," | cut -d= -f1)
[ -n "$KPID" ] && [ -n "$left" ] && ok "a second import SIGKILLed at its create left $left" ||
    fail "the second import left nothing ($(marks))"
out=$(as "$UB" prune --force </dev/null 2>&1)
expect_contains "$out" "removed image $left" "box prune as $U removes it"
m=$(marks)
case " $m " in *" $left="*) fail "  $left is still there ($m)" ;; *) ok "  it is gone" ;; esac
expect_contains "$m" "$LIVEFP=" "  the live-marked image stays"
kill "$live" 2>/dev/null; live=
for f in $(api GET "/1.0/images?project=$PR" | json "' '.join(u.rsplit('/', 1)[1].split('?')[0] for u in j['metadata'])"); do
	api_wait DELETE "/1.0/images/$f?project=$PR" >/dev/null
done
summary
