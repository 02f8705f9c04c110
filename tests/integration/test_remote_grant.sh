#!/bin/sh
# box --remote for a user granted with 'box grant' (issue 26): two real
# users (useradd bxr1, bxr2), a real incus-user on its own socket, and an
# sshd the test runs in a network namespace of its own (a veth the test
# made, 10.254.27.0/30; sshd listens only on the namespace's end).  Keys
# are where a user keeps them: ~/.ssh/authorized_keys (0700/0600, the
# user's own, StrictModes yes); root's (the admin's, for the controls) is a
# file of the test's (Match User root).  UsePAM no, so sshd itself refuses a
# locked account: useradd's '!' password is replaced with '*' (no password,
# not locked), which is what a key-only user there has.
#
#   bxr1 through --remote ssh://bxr1@... without BOX_REMOTE_SOCKET: the
#   login may not open unix.socket there, so box takes unix.socket.user
#   by itself (remote.c's fall_back, through the same ssh master), saying
#   nothing on stderr: new, list, exec, shell (no terminal, and on a pty:
#   script -qec), rm, all in project user-<uid of bxr1> there (read back
#   from the daemon, as root); BOX_REMOTE_SOCKET=unix.socket.user, given,
#   reaches the same
#
#   no fall-back but on "may not open": two more sshds in the namespace,
#   each in a mount namespace of its own where unix.socket is a plain file
#   (missing) or a socket nobody listens on (dead, 0666): bxr1 without
#   BOX_REMOTE_SOCKET is refused, naming the missing socket or the dead
#   daemon; control: the same sshd with BOX_REMOTE_SOCKET=unix.socket.user
#   given reaches bxr1's box (a fall-back would have worked there)
#
#   refusals, each with its control (the same probe with the restriction
#   absent reaches):
#     - the admin's box and bxr2's box are not in bxr1's list, info and
#       rm of them fail, and they stay; the admin path (root, unix.socket)
#       sees and reaches both with the same commands
#     - BOX_PROJECT=default and BOX_PROJECT=user-<uid of bxr2>: refused by
#       the daemon for bxr1; the admin path lists both projects
#     - bxr1 with BOX_REMOTE_SOCKET=unix.socket given (it wins: no
#       fall-back): refused, may not open it, the fix names
#       unix.socket.user; root with it reaches
#     - raw, without box: bxr1's own ssh -L to unix.socket.user and curl of
#       /1.0/instances?project=default: refused by the daemon (its error
#       names the project); root's forward to
#       unix.socket with the same curl lists the admin's box
#
# Instances are named h26g-*; the trap deletes them, the users, the
# namespace and sshd.  Needs: openssh-server, box-test-busybox, the lock:
#   flock /run/box-it.lock sh tests/integration/test_remote_grant.sh
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
P=h26g-
NS=h26g-ssh
U1=bxr1 U2=bxr2
H4=10.254.27.1 R4=10.254.27.2 PORT=2222
US=/var/lib/incus/unix.socket.user AS=/var/lib/incus/unix.socket
IBB=box-test-busybox
# under /run, not /tmp: StrictModes walks the path of root's key file and
# refuses a world-writable directory on it (/tmp)
T=$(mktemp -d /run/h26g-remote.XXXXXX)
chmod 711 "$T"
T0=$(date +%s)
at() { echo "# $(($(date +%s) - T0)) s: $*"; }
sshd_pid= started_iu= fwd_pid= sshd_miss= sshd_dead= sshd_nous=

purge_user()
{
	id "$1" >/dev/null 2>&1 || return 0
	_uid=$(id -u "$1")
	BOX_YES=1 "$BOX" revoke "$1" --purge >/dev/null 2>&1
	api GET /1.0/projects/user-$_uid | grep -q '"type":"sync"' &&
	    api_wait DELETE /1.0/projects/user-$_uid >/dev/null 2>&1
	userdel -r "$1" >/dev/null 2>&1
	rm -f /var/lib/incus/users/$_uid
	return 0
}
cleanup()
{
	[ -n "$fwd_pid" ] && kill "$fwd_pid" 2>/dev/null
	for _p in "$sshd_pid" "$sshd_miss" "$sshd_dead" "$sshd_nous"; do
		[ -n "$_p" ] && kill "$_p" 2>/dev/null
	done
	cleanup_prefix $P >/dev/null 2>&1
	purge_user $U1
	purge_user $U2
	[ -n "$started_iu" ] && kill "$started_iu" 2>/dev/null
	ip netns del $NS 2>/dev/null
	ip link del h26g-h 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || { echo "needs root"; echo "0 passed, 1 failed"; exit 1; }
sh ci/egress-guard.sh install >/dev/null 2>&1 ||
    { fail "egress guard install"; summary; }
cleanup_prefix $P >/dev/null 2>&1
purge_user $U1
purge_user $U2
ip netns del $NS 2>/dev/null
ip link del h26g-h 2>/dev/null
incus network show boxnet >/dev/null 2>&1 ||
    BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 "$BOX" setup-host >"$T/setup.log" 2>&1 ||
    { cat "$T/setup.log"; fail "no boxnet, and setup-host failed"; summary; }

# --- incus-user, two granted users, a box each for bxr2 and the admin -------
start_incus_user "$T/incus-user.log"
for u in $U1 $U2; do
	useradd -m -s /bin/sh "$u" && usermod -p '*' "$u" ||
	    { fail "useradd $u"; summary; }
done
UID1=$(id -u $U1) UID2=$(id -u $U2)
P1=user-$UID1 P2=user-$UID2
at "users"
# this Incus follows an image's links (grant's own probe, test_grant.sh):
# taken here, since what is tested is the remote path
for u in $U1 $U2; do
	out=$("$BOX" grant $u --accept-daemon-risk 2>&1) ||
	    { echo "$out" | tail -5; fail "box grant $u"; summary; }
done
ok "box grant $U1 ($P1) and $U2 ($P2)"
for p in $P1 $P2; do
	incus image import /var/cache/box-tests/$IBB-*.tar.gz --project $p \
	    --alias $IBB >/dev/null 2>&1 || { fail "image into $p"; summary; }
done
out=$("$BOX" new --name ${P}adm --image $IBB </dev/null 2>&1) ||
    { echo "$out" | tail -5; fail "admin: box new ${P}adm"; summary; }
cp "$BOX" "$T/box" && chmod 755 "$T/box"
out=$(cd /tmp && runuser -u $U2 -- "$T/box" new --name ${P}b2 --image $IBB </dev/null 2>&1) ||
    { echo "$out" | tail -5; fail "$U2: box new ${P}b2 (here)"; summary; }
ok "the admin's ${P}adm (default) and $U2's ${P}b2 ($P2) run"
at "boxes"

# --- the remote host: a namespace, a veth, an sshd --------------------------
for b in /usr/sbin/sshd /usr/bin/ssh /usr/bin/ssh-keygen /usr/bin/script; do
	[ -x $b ] || { fail "$b missing (ci/install-deps.sh)"; summary; }
done
ip netns add $NS &&
ip link add h26g-h type veth peer name h26g-r &&
ip link set h26g-r netns $NS &&
ip addr add $H4/30 dev h26g-h &&
ip link set h26g-h up &&
ip -n $NS addr add $R4/30 dev h26g-r &&
ip -n $NS link set h26g-r up &&
ip -n $NS link set lo up || { fail "namespace $NS and its veth"; summary; }
mkdir -p "$T/ak" /run/sshd && chmod 755 "$T/ak"
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_u1" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_root" || { fail "ssh-keygen"; summary; }
h1=$(getent passwd $U1 | cut -d: -f6)
install -d -o $U1 -g $U1 -m 700 "$h1/.ssh" &&
install -o $U1 -g $U1 -m 600 "$T/id_u1.pub" "$h1/.ssh/authorized_keys" &&
install -m 600 "$T/id_root.pub" "$T/ak/root" || { fail "authorized_keys"; summary; }
cat >"$T/sshd_config" <<EOF
Port $PORT
ListenAddress $R4
HostKey $T/hostkey
PidFile $T/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes yes
AllowStreamLocalForwarding yes
Match User root
	AuthorizedKeysFile $T/ak/root
EOF
ip netns exec $NS /usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" \
    3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
sshd_pid=$!
# sshd_over PORT FILE [SOCKET]: one more sshd on PORT, in a mount
# namespace of its own where FILE is bind-mounted over SOCKET (the admin's
# by default; this host's mounts are not touched: private propagation);
# 3-9 closed, as above
sshd_over()
{
	sed -e "s/^Port .*/Port $1/" -e "s|^PidFile .*|PidFile $T/sshd.$1.pid|" \
	    "$T/sshd_config" >"$T/sshd_config.$1"
	ip netns exec $NS unshare -m --propagation private sh -c \
	    'mount --bind "$1" "$2" && exec /usr/sbin/sshd -D -e -f "$3"' sh \
	    "$2" "${3:-$AS}" "$T/sshd_config.$1" 2>"$T/sshd.$1.log" \
	    3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
}
: >"$T/notsock"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$T/dead.sock" &&
    chmod 666 "$T/dead.sock" || { fail "a socket nobody listens on"; summary; }
sshd_over 2223 "$T/notsock"
sshd_miss=$!
sshd_over 2224 "$T/dead.sock"
sshd_dead=$!
sshd_over 2225 "$T/notsock" $US
sshd_nous=$!
for _p in $PORT 2223 2224 2225; do
	printf '[%s]:%s %s\n' $R4 $_p "$(cut -d' ' -f1-2 "$T/hostkey.pub")"
done >"$T/known_hosts"
for k in u1 root; do
	cat >"$T/cfg_$k" <<EOF
Host *
	UserKnownHostsFile $T/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	IdentityFile $T/id_$k
	IdentitiesOnly yes
	IdentityAgent none
	UpdateHostKeys no
EOF
done
mkdir -p "$T/cbin"
cat >"$T/cbin/ssh" <<EOF
#!/bin/sh
exec /usr/bin/ssh -F "\${H26G_SSH_CONFIG:-$T/cfg_u1}" "\$@"
EOF
chmod 755 "$T/cbin/ssh"
PATH=$T/cbin:$PATH
export PATH
unset SSH_AUTH_SOCK BOX_REMOTE BOX_REMOTE_SOCKET BOX_PROJECT
UURL=ssh://$U1@$R4:$PORT
AURL=ssh://root@$R4:$PORT

i=0
until ssh -o ConnectTimeout=2 -o BatchMode=yes -p $PORT $U1@$R4 true </dev/null 2>"$T/first"; do
	i=$((i + 1))
	[ $i -lt 50 ] || { fail "$U1 never logged in to the sshd in $NS: $(cat "$T/first" "$T/sshd.log" | tail -8)"; summary; }
	sleep 0.2
done
ok "$U1 logs in with the key in ~/.ssh/authorized_keys (StrictModes yes, $R4:$PORT inside $NS)"
expect_eq "$(ssh -p $PORT $U1@$R4 id -u </dev/null 2>/dev/null)" "$UID1" "  as $U1 (id -u there)"
H26G_SSH_CONFIG=$T/cfg_root ssh -p $PORT root@$R4 true </dev/null 2>/dev/null &&
    ok "root logs in with the test's own key (for the controls)" ||
    { fail "root cannot log in: $(tail -5 "$T/sshd.log")"; summary; }
for pr in "2223 plain" "2224 dead"; do
	p=${pr%% *} want=${pr#* }
	i=0
	until got=$(ssh -o ConnectTimeout=2 -p $p $U1@$R4 \
	    "if [ ! -S $AS ]; then echo plain; elif [ -w $AS ]; then echo dead; else echo admin; fi" </dev/null 2>"$T/first"); do
		i=$((i + 1))
		[ $i -lt 50 ] || { fail "$U1 never logged in to the sshd on :$p: $(cat "$T/first" "$T/sshd.$p.log" | tail -8)"; summary; }
		sleep 0.2
	done
	expect_eq "$got" $want "the sshd on :$p: $AS there is $([ $want = plain ] && echo 'a plain file' || echo 'a socket nobody listens on, 0666')"
done
[ -S $AS ] && ok "  and here $AS is still a socket (those mounts are their own)" ||
    fail "  $AS here is no socket"
ss -Htln "sport = :$PORT" | grep -q . &&
    fail "something listens on :$PORT outside the namespace" ||
    ok "nothing listens on :$PORT on this host's own stack"

# u ARGS: box --remote as bxr1 on the user socket; a ARGS: as root
u() { "$BOX" --remote "$UURL" "$@"; }
a() { H26G_SSH_CONFIG=$T/cfg_root "$BOX" --remote "$AURL" "$@"; }
# in_project NAME PROJECT: the daemon holds NAME there (read as root, here)
in_project() { api GET "/1.0/instances/$1?project=$2" | grep -q '"type":"sync"'; }

at "the granted user's verbs"
# --- bxr1's own boxes, through --remote --------------------------------------
t=$(date +%s%N)
u new --name ${P}u1 --image $IBB </dev/null >"$T/out" 2>&1; rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
expect_eq "$rc" 0 "$U1: new through --remote (${ms} ms)"
[ $rc = 0 ] || tail -5 "$T/out"
in_project ${P}u1 $P1 && ok "  the daemon holds ${P}u1 in $P1" || fail "  ${P}u1 is not in $P1"
in_project ${P}u1 default && fail "  ${P}u1 is in the default project" || ok "  and not in default"
expect_eq "$(api GET "/1.0/instances/${P}u1?project=$P1" | json "j['metadata']['expanded_devices']['eth0'].get('network', '')")" \
    boxnet "  its eth0 is on boxnet (box-net of $P1)"
t=$(date +%s%N)
u list </dev/null >"$T/out" 2>"$T/err"; rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
expect_eq "$rc" 0 "$U1: list through --remote, no BOX_REMOTE_SOCKET (${ms} ms)"
expect_eq "$(cat "$T/err")" "" "  nothing on stderr (the fall-back to $US is silent)"
expect_eq "$(awk -v n=${P}u1 '$1 == n { print $2 }' "$T/out")" RUNNING "  shows ${P}u1 RUNNING"
grep -q "${P}adm\|${P}b2" "$T/out" && fail "  it shows another's box: $(cat "$T/out")" ||
    ok "  and neither ${P}adm (the admin's) nor ${P}b2 ($U2's)"
t=$(date +%s%N)
BOX_REMOTE_SOCKET=$US "$BOX" --remote "$UURL" list </dev/null >"$T/o" 2>"$T/e"; rc=$?
ms=$((($(date +%s%N) - t) / 1000000))
expect_eq "$rc/$(awk -v n=${P}u1 '$1 == n { print $2 }' "$T/o")" 0/RUNNING \
    "  BOX_REMOTE_SOCKET=$US given: the same list (${ms} ms)"
u exec ${P}u1 -- sh -c 'echo to-out; echo to-err >&2; exit 3' </dev/null >"$T/o" 2>"$T/e"
expect_eq "$?" 3 "$U1: exec through --remote: the command's exit status"
expect_eq "$(cat "$T/o")/$(cat "$T/e")" "to-out/to-err" "  its stdout and stderr"
printf 'echo from-shell $((6 * 7)); tty\nexit 5\n' | u shell ${P}u1 >"$T/o" 2>"$T/e"
expect_eq "$?" 5 "$U1: shell through --remote, no terminal: the exit status"
expect_contains "$(cat "$T/o")" "from-shell 42" "  it ran what stdin said"
expect_contains "$(cat "$T/o")" "not a tty" "  on no terminal (the control for the pty below)"

# shell on a terminal: script gives box a pty; the input comes paced, as
# typed: tty, a sleep interrupted by Ctrl-C (the box's shell survives it,
# and so does the ssh master: it is in a session of its own), an exit code
{
	sleep 2; printf 'tty; [ -t 0 ] && echo IS-TTY $((6 * 7)); echo SIZE $(stty size)\r'
	sleep 1; printf 'sleep 30; echo not-interrupted\r'
	sleep 2; printf '\003'
	sleep 1; printf 'echo after-intr $((7 * 7))\r'
	sleep 1; printf 'exit 6\r'
	sleep 3
} | script -qec "stty rows 45 cols 123; $BOX --remote $UURL shell ${P}u1" /dev/null >"$T/tty" 2>&1
rc=$?
tr -d '\r' <"$T/tty" >"$T/tty.txt"
expect_eq "$rc" 6 "$U1: shell through --remote on a pty (script -qec): the shell's exit status"
expect_contains "$(cat "$T/tty.txt")" "IS-TTY 42" "  the box's shell has a terminal"
expect_contains "$(cat "$T/tty.txt")" "/dev/pts/" "  tty there names a pty"
expect_contains "$(cat "$T/tty.txt")" "SIZE 45 123" "  of the size of the terminal here (45 rows, 123 columns)"
expect_contains "$(cat "$T/tty.txt")" "after-intr 49" "  Ctrl-C ended the sleep in the box, the shell and the forward went on"
grep -q "^not-interrupted" "$T/tty.txt" && fail "  the sleep was not interrupted" ||
    ok "  the sleep did not run to its end"
[ $rc = 6 ] || sed -n '1,40p' "$T/tty.txt"

at "refusals and their controls"
# --- what bxr1 cannot reach, and the admin's path that can -------------------
u info ${P}adm </dev/null >"$T/out" 2>&1
expect_eq "$?" 1 "$U1: info ${P}adm (the admin's) through --remote fails"
a info ${P}adm </dev/null >"$T/out" 2>&1
expect_eq "$?" 0 "  control: the admin's path, the same info, answers"
u info ${P}b2 </dev/null >"$T/out" 2>&1
expect_eq "$?" 1 "$U1: info ${P}b2 ($U2's) through --remote fails"
BOX_PROJECT=$P2 a info ${P}b2 </dev/null >"$T/out" 2>&1
expect_eq "$?" 0 "  control: the admin's path with BOX_PROJECT=$P2 answers"
u rm ${P}adm --force </dev/null >"$T/out" 2>&1
expect_eq "$?" 1 "$U1: rm ${P}adm through --remote fails"
in_project ${P}adm default && ok "  ${P}adm is still there" || fail "  ${P}adm is gone"
BOX_PROJECT=default u list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc" 1 "$U1: BOX_PROJECT=default list through --remote is refused"
grep -q "${P}adm" "$T/out" && fail "  yet it names ${P}adm" || ok "  naming no box of default ($(tail -1 "$T/out" | cut -c1-90))"
BOX_PROJECT=default a list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc/$(grep -c "^${P}adm " "$T/out")" "0/1" "  control: the admin's path, BOX_PROJECT=default list, shows ${P}adm"
BOX_PROJECT=$P2 u list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc" 1 "$U1: BOX_PROJECT=$P2 ($U2's) list through --remote is refused"
grep -q "${P}b2" "$T/out" && fail "  yet it names ${P}b2" || ok "  naming no box of $P2"
BOX_PROJECT=$P2 a list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc/$(grep -c "^${P}b2 " "$T/out")" "0/1" "  control: the admin's path, BOX_PROJECT=$P2 list, shows ${P}b2"
BOX_REMOTE_SOCKET=$AS "$BOX" --remote "$UURL" list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc" 1 "$U1 with BOX_REMOTE_SOCKET=$AS given (it wins, no fall-back): refused"
expect_contains "$(cat "$T/out")" "may not open $AS" "  said: the login may not open it"
expect_contains "$(cat "$T/out")" "BOX_REMOTE_SOCKET=$US" "  the fix names the user socket"
grep -q "^${P}u1 " "$T/out" && fail "  yet it lists ${P}u1" || ok "  listing nothing"
BOX_REMOTE_SOCKET=$AS a list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc/$(grep -c "^${P}adm " "$T/out")" "0/1" "  control: root with the same socket lists ${P}adm"

# no fall-back on a missing socket or a dead daemon: the sshds on 2223/2224
for pr in "2223 has no Incus socket at $AS" "2224 nothing answers on $AS"; do
	p=${pr%% *} said=${pr#* }
	"$BOX" --remote "ssh://$U1@$R4:$p" list </dev/null >"$T/out" 2>&1; rc=$?
	expect_eq "$rc" 1 "$U1 to the sshd on :$p, no BOX_REMOTE_SOCKET: refused"
	expect_contains "$(cat "$T/out")" "$said" "  said: $said"
	grep -q "^${P}u1 \|tried incus-user" "$T/out" && fail "  yet it fell back to $US: $(cat "$T/out")" ||
	    ok "  no fall-back to $US"
	BOX_REMOTE_SOCKET=$US "$BOX" --remote "ssh://$U1@$R4:$p" list </dev/null >"$T/out" 2>&1; rc=$?
	expect_eq "$rc/$(grep -c "^${P}u1 " "$T/out")" 0/1 \
	    "  control: the same sshd with BOX_REMOTE_SOCKET=$US given lists ${P}u1"
done

# the fall-back taken, and incus-user's socket missing there (:2225): said
"$BOX" --remote "ssh://$U1@$R4:2225" list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc" 1 "$U1 to the sshd on :2225 (no $US there), no BOX_REMOTE_SOCKET: refused"
expect_contains "$(cat "$T/out")" "may not open $AS, so box tried incus-user's socket" "  said: the fall-back was tried"
expect_contains "$(cat "$T/out")" "has no Incus socket at $US" "  and what it found: no $US"
BOX_REMOTE_SOCKET=$AS H26G_SSH_CONFIG=$T/cfg_root "$BOX" --remote "ssh://root@$R4:2225" list </dev/null >"$T/out" 2>&1; rc=$?
expect_eq "$rc/$(grep -c "^${P}adm " "$T/out")" 0/1 "  control: root through the same sshd lists ${P}adm"

# raw, without box: the login's own forward and curl
# rawfwd CONFIG USER SOCKET: ssh -L $T/raw.sock to SOCKET there, until it is up
rawfwd()
{
	rm -f "$T/raw.sock"
	H26G_SSH_CONFIG=$1 ssh -N -o BatchMode=yes -o ExitOnForwardFailure=yes \
	    -L "$T/raw.sock:$3" -p $PORT -l "$2" $R4 </dev/null 2>"$T/fwd.err" &
	fwd_pid=$!
	i=0
	until [ -S "$T/raw.sock" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || return 1; sleep 0.1
	done
}
rawstop() { kill "$fwd_pid" 2>/dev/null; wait "$fwd_pid" 2>/dev/null; fwd_pid=; }
rawget() { curl -sS -m 20 --unix-socket "$T/raw.sock" "http://incus$1" 2>&1; }
rawfwd "$T/cfg_u1" $U1 $US || fail "raw: $U1's forward to $US never came up: $(cat "$T/fwd.err")"
out=$(rawget "/1.0/instances?project=default")
# Incus 6.0 answers 500 with the reason (not 403): the reason is judged
expect_eq "$(printf '%s' "$out" | json "j.get('type')" 2>/dev/null)" error \
    "raw: $U1's own forward, GET /1.0/instances?project=default: an error ($(printf '%s' "$out" | json "'%s %s' % (j.get('error_code'), j.get('error', ''))" 2>/dev/null | cut -c1-80))"
expect_contains "$out" 'permissions for project \"default\"' "  naming the project it may not use"
case $out in *"${P}adm"*) fail "  yet it names ${P}adm" ;; *) ok "  naming no box of default" ;; esac
out=$(rawget "/1.0/instances?project=$P1")
expect_contains "$out" "/1.0/instances/${P}u1" "  the same forward lists $U1's own project"
rawstop
rawfwd "$T/cfg_root" root $AS || fail "raw: root's forward to $AS never came up: $(cat "$T/fwd.err")"
out=$(rawget "/1.0/instances?project=default")
expect_contains "$out" "/1.0/instances/${P}adm" "  control: root's forward to $AS, the same GET, lists ${P}adm"
rawstop

at "rm"
u rm ${P}u1 --force </dev/null >"$T/out" 2>&1
expect_eq "$?" 0 "$U1: rm ${P}u1 through --remote"
in_project ${P}u1 $P1 && fail "  ${P}u1 is still in $P1" || ok "  ${P}u1 is gone from $P1"
in_project ${P}adm default && in_project ${P}b2 $P2 &&
    ok "  ${P}adm and ${P}b2 are untouched" || fail "  another's box went"
sleep 0.2
ps -eo args | grep -F "$UURL" | grep -v grep | grep -q 'ssh ' &&
    fail "an ssh of box's is still running" || ok "no ssh of box's left running"

at "end"
summary
