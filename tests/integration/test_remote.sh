#!/bin/sh
# box --remote ssh://[user@]host[:port]: this machine's own daemon reached
# through an sshd the test runs in a network namespace of its own (a veth
# the test made, 10.254.26.0/30 and fd26:26::/64; sshd listens only on the
# namespace's end), with a host key, client keys and known_hosts the test
# makes.  The client is /usr/bin/ssh with the test's config (-F), put first
# on PATH as "ssh": box runs whatever ssh the caller's PATH finds.
#
#   list/new/exec/shell (no terminal)/rm through --remote and BOX_REMOTE,
#   IPv6 in brackets, a remote-run verb (whereami: the remote's own box over
#   the same connection), its output through the sanitiser (a control: the
#   same bytes raw through ssh), the refusals (wrong host key, unknown host
#   key, no key, missing remote socket, no box on the remote PATH, a verb
#   refused by name, an allow policy that needs the remote kernel), and the
#   ssh master killed and its directory gone after SIGTERM and SIGKILL.
# Instances are named h26r-*; the trap deletes them, the namespace and sshd.
# Needs: openssh-server (ci/install-deps.sh), box-test-busybox, the lock.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
P=h26r-
NS=h26r-ssh
H4=10.254.26.1 R4=10.254.26.2 H6=fd26:26::1 R6=fd26:26::2 PORT=2222
T=$(mktemp -d /tmp/h26r-remote.XXXXXX)
T0=$(date +%s)
at() { echo "# $(($(date +%s) - T0)) s: $*"; }
sshd_pid=

cleanup()
{
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
	cleanup_prefix $P >/dev/null 2>&1
	ip netns del $NS 2>/dev/null
	ip link del h26r-h 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The harness's egress guard holds before any box starts.
sh ci/egress-guard.sh install >/dev/null 2>&1 ||
    { fail "egress guard install"; summary; }
cleanup_prefix $P >/dev/null 2>&1
ip netns del $NS 2>/dev/null
ip link del h26r-h 2>/dev/null

# --- the remote host: a namespace, a veth, an sshd --------------------------
for b in /usr/sbin/sshd /usr/bin/ssh /usr/bin/ssh-keygen; do
	[ -x $b ] || { fail "$b missing (ci/install-deps.sh installs openssh)"; summary; }
done
ip netns add $NS &&
ip link add h26r-h type veth peer name h26r-r &&
ip link set h26r-r netns $NS &&
ip addr add $H4/30 dev h26r-h &&
ip -6 addr add $H6/64 dev h26r-h nodad &&
ip link set h26r-h up &&
ip -n $NS addr add $R4/30 dev h26r-r &&
ip -n $NS -6 addr add $R6/64 dev h26r-r nodad &&
ip -n $NS link set h26r-r up &&
ip -n $NS link set lo up || { fail "namespace $NS and its veth"; summary; }

ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/other_hostkey" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_box" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_nobox" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_evil" &&
ssh-keygen -q -t ed25519 -N '' -f "$T/id_stranger" ||
    { fail "ssh-keygen"; summary; }
mkdir -p "$T/bin" "$T/evil" "$T/cbin" /run/sshd
ln -s "$BOX" "$T/bin/box"
# a remote box that prints what a hostile host would: escapes, a forged row
cat >"$T/evil/box" <<'EOF'
#!/bin/sh
printf 'evil\033]0;pwned\007title\033[2Jcleared\tTAB\r\n'
printf 'to-err\033[31mred\n' >&2
exit 7
EOF
chmod 755 "$T/evil/box"
{
	printf 'environment="PATH=%s/bin:/usr/bin:/bin" %s\n' "$T" "$(cat "$T/id_box.pub")"
	printf 'environment="PATH=/usr/bin:/bin" %s\n' "$(cat "$T/id_nobox.pub")"
	printf 'environment="PATH=%s/evil:/usr/bin:/bin" %s\n' "$T" "$(cat "$T/id_evil.pub")"
} >"$T/authorized_keys"
cat >"$T/sshd_config" <<EOF
Port $PORT
ListenAddress $R4
ListenAddress [$R6]
HostKey $T/hostkey
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitUserEnvironment yes
AllowStreamLocalForwarding yes
EOF
ip netns exec $NS /usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
sshd_pid=$!

# known_hosts: the real host key; the wrong one; none
hk=$(cut -d' ' -f1-2 "$T/hostkey.pub")
ok_hk=$(cut -d' ' -f1-2 "$T/other_hostkey.pub")
printf '[%s]:%s %s\n[%s]:%s %s\n' $R4 $PORT "$hk" $R6 $PORT "$hk" >"$T/known_hosts"
printf '[%s]:%s %s\n' $R4 $PORT "$ok_hk" >"$T/known_hosts_wrong"
: >"$T/known_hosts_none"
# cfg NAME KNOWN_HOSTS IDENTITY: a client config
cfg()
{
	cat >"$T/$1" <<EOF
Host *
	UserKnownHostsFile $T/$2
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	IdentityFile $T/$3
	IdentitiesOnly yes
	IdentityAgent none
	UpdateHostKeys no
EOF
}
cfg ssh_config known_hosts id_box
cfg cfg_nobox known_hosts id_nobox
cfg cfg_evil known_hosts id_evil
cfg cfg_wronghk known_hosts_wrong id_box
cfg cfg_nohk known_hosts_none id_box
cfg cfg_stranger known_hosts id_stranger
cfg cfg_nokey known_hosts no_such_key
cat >"$T/cbin/ssh" <<EOF
#!/bin/sh
exec /usr/bin/ssh -F "\${H26R_SSH_CONFIG:-$T/ssh_config}" "\$@"
EOF
chmod 755 "$T/cbin/ssh"
PATH=$T/cbin:$PATH
export PATH
unset SSH_AUTH_SOCK BOX_REMOTE BOX_REMOTE_SOCKET
URL=ssh://root@$R4:$PORT
URL6="ssh://root@[$R6]:$PORT"

# sshd answers (TCP) within 10 s
i=0
until ssh -o ConnectTimeout=2 -p $PORT root@$R4 true </dev/null 2>"$T/first"; do
	i=$((i + 1))
	[ $i -lt 50 ] || { fail "sshd in $NS never answered: $(cat "$T/first" "$T/sshd.log")"; summary; }
	sleep 0.2
done
ok "sshd answers on $R4:$PORT inside $NS"
if [ -n "${H26R_PAUSE:-}" ]; then	# by hand: the remote stays up a while
	echo "T=$T PATH=$PATH"; sleep "$H26R_PAUSE"; exit 0
fi
ss -Htln "sport = :$PORT" | grep -q . &&
    fail "something listens on :$PORT outside the namespace" ||
    ok "nothing listens on :$PORT on this host's own stack"

at "the stack and an image"
# --- the stack and an image -------------------------------------------------
for _try in 1 2; do
	BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 "$BOX" setup-host \
	    >"$T/setup.log" 2>&1 && break
	[ $_try = 2 ] && { fail "setup-host: $(tail -5 "$T/setup.log")"; summary; }
	sleep 2
done
ok "host stack in place (setup-host, here)"

# rrun RC_WANT TEXT DESC -- ARGS: box --remote with stdin from /dev/null
rrun()
{
	_want=$1 _text=$2 _desc=$3
	shift 4
	"$BOX" "$@" </dev/null >"$T/out" 2>"$T/err"
	_rc=$?
	if [ "$_rc" -ne "$_want" ]; then
		fail "$_desc: exit $_rc, want $_want: $(head -c 600 "$T/out" "$T/err")"
		return 1
	fi
	case $(cat "$T/out" "$T/err") in
	*"$_text"*) ok "$_desc" ;;
	*) fail "$_desc: '$_text' not in: $(head -c 600 "$T/out" "$T/err")"; return 1 ;;
	esac
}
# no ssh of ours left running, no private directory left behind
no_leftovers()
{
	sleep 0.2
	if ps -eo args | grep -F "$1" | grep -v grep | grep -q 'ssh '; then
		fail "$2: an ssh is still running: $(ps -eo pid,args | grep -F "$1" | grep -v grep)"
	else
		ok "$2: no ssh left"
	fi
}
dirs_before=$(ls -d /tmp/box-remote.* 2>/dev/null | wc -l)

# xdg_checks (issue 35): root's private directory for the ssh socket goes
# under $XDG_RUNTIME_DIR only when that is root's own 0700 directory.  A
# local user's (after su without -, or sudo -E: they could rename root's
# directory away and put theirs, with a fake daemon's socket, in its
# place) or a link to a root-only one is not used: the directory is made
# in /tmp, and root's list reaches the real daemon through its own ssh.
# The control: root's own 0700 XDG_RUNTIME_DIR is used.
xdg_checks()
{
	mkdir -m 700 "$T/xu" "$T/xr" "$T/xt" && chown 65534 "$T/xu" &&
	    ln -s "$T/xt" "$T/xl" || { fail "xdg: setup"; return; }
	for _c in xu xl xr; do
		strace -f -qq -e trace=mkdir,mkdirat -o "$T/xdg.$_c" env \
		    XDG_RUNTIME_DIR="$T/$_c" "$BOX" --remote "$URL" list \
		    </dev/null >"$T/out" 2>"$T/err"
		echo "$?" >"$T/xdg.$_c.rc"
		cp "$T/out" "$T/xdg.$_c.out"
	done
	expect_eq "$(cat "$T/xdg.xu.rc")" 0 "root, a local user's XDG_RUNTIME_DIR: --remote list works"
	expect_contains "$(cat "$T/xdg.xu.out")" "${P}a" "  it reached the real daemon through its own ssh (lists ${P}a)"
	grep -q "\"$T/xu/box-remote" "$T/xdg.xu" && fail "  root made its directory in the user's XDG_RUNTIME_DIR" ||
	    ok "  nothing made in the user's directory ($(ls -A "$T/xu" | wc -l) entries there)"
	grep -q '"/tmp/box-remote\.' "$T/xdg.xu" && ok "  its directory went to /tmp" ||
	    fail "  no directory made in /tmp: $(grep box-remote "$T/xdg.xu" | head -2)"
	expect_eq "$(cat "$T/xdg.xl.rc")/$(ls -A "$T/xt" | wc -l)" 0/0 "root, XDG_RUNTIME_DIR a link to a root-only directory: not used"
	grep -q "\"$T/xr/box-remote" "$T/xdg.xr" && ok "  control: root's own 0700 XDG_RUNTIME_DIR is used" ||
	    fail "  control: root's own XDG_RUNTIME_DIR was not used: $(grep box-remote "$T/xdg.xr" | head -2)"
}

at "the API verbs through"
# --- the API verbs through the forwarded socket ------------------------------
rrun 0 "ready" "new through --remote" -- --remote "$URL" new --name ${P}a --image box-test-busybox
got=$(api GET /1.0/instances/${P}a | json "j['metadata']['config'].get('user.box', '')")
expect_eq "$got" 1 "the daemon holds ${P}a, tagged user.box=1"

rrun 0 "${P}a" "list through --remote" -- --remote "$URL" list
awk -v n="${P}a" '$1 == n { print $2 }' "$T/out" >"$T/state"
expect_eq "$(cat "$T/state")" RUNNING "list through --remote shows ${P}a RUNNING"
"$BOX" list </dev/null >"$T/local" 2>&1
expect_eq "$(grep "^${P}a " "$T/out" | awk '{print $1, $2, $3}')" \
    "$(grep "^${P}a " "$T/local" | awk '{print $1, $2, $3}')" \
    "list through --remote names, states and types it as the local list does"
[ -s "$T/err" ] && fail "list through --remote said on stderr: $(cat "$T/err")" ||
    ok "list through --remote says nothing on stderr"

BOX_REMOTE=$URL rrun 0 "${P}a" "BOX_REMOTE names the remote" -- list
rrun 0 "${P}a" "IPv6 in brackets: $URL6" -- --remote "$URL6" list
rrun 0 "${P}a" "--remote=URL" -- --remote="$URL" list --json

# timings: five remote lists against five local ones
t0=$(date +%s%N)
for i in 1 2 3 4 5; do "$BOX" list >/dev/null 2>&1 </dev/null; done
t1=$(date +%s%N)
for i in 1 2 3 4 5; do "$BOX" --remote "$URL" list >/dev/null 2>&1 </dev/null; done
t2=$(date +%s%N)
for i in 1 2 3 4 5; do ssh -p $PORT root@$R4 true >/dev/null 2>&1 </dev/null; done
t3=$(date +%s%N)
echo "# list: local $(( (t1 - t0) / 5000000 )) ms, --remote $(( (t2 - t1) / 5000000 )) ms; ssh ... true alone $(( (t3 - t2) / 5000000 )) ms (means of 5)"

"$BOX" --remote "$URL" exec ${P}a -- sh -c 'echo to-out; echo to-err >&2; exit 3' \
    </dev/null >"$T/o" 2>"$T/e"
rc=$?
expect_eq "$rc" 3 "exec through --remote: the command's exit status"
expect_eq "$(cat "$T/o")" to-out "exec through --remote: stdout"
expect_eq "$(cat "$T/e")" to-err "exec through --remote: stderr"
head -c 1048576 /dev/urandom >"$T/1m"
want=$(sha256sum <"$T/1m" | cut -d' ' -f1)
got=$("$BOX" --remote "$URL" exec ${P}a -- sha256sum <"$T/1m" | cut -d' ' -f1)
expect_eq "$got" "$want" "exec through --remote: 1 MiB of stdin, SHA-256 in the box"

printf 'echo from-shell $((6 * 7))\nexit 5\n' |
    "$BOX" --remote "$URL" shell ${P}a >"$T/o" 2>"$T/e"
rc=$?
expect_eq "$rc" 5 "shell through --remote, no terminal: the shell's exit status"
expect_contains "$(cat "$T/o")" "from-shell 42" "shell through --remote, no terminal: it ran what stdin said"

at "the remote's own box over"
# --- the remote's own box over the same connection -------------------------
rrun 0 "" "whereami runs the remote's box (RH_HOST)" -- --remote "$URL" whereami
expect_contains "$(cat "$T/out")" "host" "the remote box's whereami answered"
no_leftovers "$URL" "after a remote-run verb"

# sanitiser: the remote box prints escapes; box shows them escaped
H26R_SSH_CONFIG=$T/cfg_evil "$BOX" --remote "$URL" whereami </dev/null >"$T/o" 2>"$T/e"
rc=$?
expect_eq "$rc" 7 "a remote-run verb's exit status is the remote box's"
if grep -q "$(printf '\033')" "$T/o" "$T/e"; then
	fail "an ESC byte from the remote reached the terminal"
else
	ok "no ESC byte from the remote reached the terminal"
fi
expect_contains "$(cat "$T/o")" 'evil\x1b]0;pwned\x07title\x1b[2Jcleared	TAB\r' \
    "the remote's escapes are shown escaped (tab kept as a tab)"
expect_contains "$(cat "$T/e")" 'to-err\x1b[31mred' "and on stderr too"
# control: the same bytes raw through ssh do carry ESC
H26R_SSH_CONFIG=$T/cfg_evil ssh -p $PORT root@$R4 box </dev/null >"$T/raw" 2>&1
grep -q "$(printf '\033')" "$T/raw" && ok "control: raw through ssh, the ESC bytes are there" ||
    fail "control: the raw output has no ESC (the sanitiser check proves nothing)"

at "refusals"
# --- refusals ---------------------------------------------------------------
H26R_SSH_CONFIG=$T/cfg_wronghk rrun 1 "refused the host key of 10.254.26.2" \
    "a wrong host key is refused, named" -- --remote "$URL" list
expect_contains "$(cat "$T/err")" "box never turns host-key checking off" "the fix says how to accept it"
H26R_SSH_CONFIG=$T/cfg_nohk rrun 1 "host key" "an unknown host key is refused (never accepted)" -- --remote "$URL" list
[ -s "$T/known_hosts_none" ] && fail "box (through ssh) wrote a host key into known_hosts" ||
    ok "known_hosts stays empty"
H26R_SSH_CONFIG=$T/cfg_stranger rrun 1 "refused every key ssh offered" \
    "a key the host does not take: named" -- --remote "$URL" list
expect_contains "$(cat "$T/err")" "ssh-add" "the fix names ssh-agent"
H26R_SSH_CONFIG=$T/cfg_nokey rrun 1 "refused every key ssh offered" \
    "no key at all: named" -- --remote "$URL" list
BOX_REMOTE_SOCKET=/var/lib/incus/no-such.socket rrun 1 \
    "has no Incus socket at /var/lib/incus/no-such.socket" \
    "a missing remote socket: named" -- --remote "$URL" list
expect_contains "$(cat "$T/err")" "BOX_REMOTE_SOCKET" "the fix names BOX_REMOTE_SOCKET"
H26R_SSH_CONFIG=$T/cfg_nobox rrun 1 "has no box on its PATH" \
    "a remote without box: named" -- --remote "$URL" whereami
expect_contains "$(cat "$T/err")" "ssh -p $PORT root@$R4 box whereami" "the fix is the command to run there"
rrun 1 "run it there: ssh -p $PORT root@$R4 box use" "use is refused, naming the command" -- \
    --remote "$URL" use 0.1
# an option smuggled in as the host or the user; the control: the same
# word handed to ssh as its destination does run the command
printf '#!/bin/sh\ntouch %s/pwned\n' "$T" >"$T/cbin/pwn"
chmod 755 "$T/cbin/pwn"
rrun 2 "a host must begin with a letter or a digit" "a host beginning with '-' is refused" -- \
    --remote "ssh://-oProxyCommand=pwn" list
rrun 2 "a user may not begin with '-'" "a user beginning with '-' is refused" -- \
    --remote "ssh://-oProxyCommand=pwn@$R4:$PORT" list
[ -e "$T/pwned" ] && fail "the injected ProxyCommand ran" || ok "no ProxyCommand ran"
ssh -oProxyCommand=pwn true </dev/null >/dev/null 2>&1
[ -e "$T/pwned" ] && ok "control: handed to ssh raw, the same word runs the command" ||
    fail "control: the raw injection did not run (the refusal proves nothing)"
rrun 2 "only ssh://" "another scheme is refused" -- --remote "https://$R4" list
rrun 1 "ssh to root@10.254.26.2 ended" "a port nothing listens on: ssh's reason" -- \
    --remote "ssh://root@$R4:2223" list
expect_contains "$(cat "$T/err")" "Connection refused" "ssh's line is in the message"

rrun 1 "an egress policy of allow happens in" "new --egress allow: refused, needs the remote kernel" -- \
    --remote "$URL" new --name ${P}allow --image box-test-busybox --egress allow:example.com
api GET /1.0/instances/${P}allow | grep -q '"error_code":404' &&
    ok "the refused allow box was not left behind" ||
    fail "${P}allow exists after the refusal"

at "the master on signals"
# --- the master on signals ---------------------------------------------------
"$BOX" --remote "$URL" exec ${P}a -- sleep 30 </dev/null >/dev/null 2>&1 &
bp=$!
i=0
until ps -eo ppid,args | awk -v p=$bp '$1 == p' | grep -q 'ssh -N'; do
	i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
done
mp=$(ps -eo pid,ppid,args | awk -v p=$bp '$2 == p && / -N / { print $1 }')
[ -n "$mp" ] && ok "the ssh master runs while exec does" || fail "no ssh master under box $bp"
td=$(ps -o args= -p "${mp:-0}" | sed -n 's|.*ControlPath=\([^ ]*\)/ctl.*|\1|p')
kill -TERM $bp
wait $bp 2>/dev/null
sleep 0.3
st=$(ps -o stat= -p "${mp:-0}" 2>/dev/null)
[ -n "$mp" ] && [ -z "$st" ] && ok "SIGTERM to box: the ssh master is killed and reaped" ||
    fail "SIGTERM: the ssh master '$mp' is still there (state '$st')"
[ -n "$td" ] && [ ! -e "$td" ] && ok "SIGTERM to box: its private directory is gone" ||
    fail "SIGTERM: the directory '$td' is left"
"$BOX" --remote "$URL" exec ${P}a -- sleep 30 </dev/null >/dev/null 2>&1 &
bp=$!
i=0
until ps -eo ppid,args | awk -v p=$bp '$1 == p' | grep -q 'ssh -N'; do
	i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
done
mp=$(ps -eo pid,ppid,args | awk -v p=$bp '$2 == p && / -N / { print $1 }')
kd=$(ps -o args= -p "${mp:-0}" | sed -n 's|.*ControlPath=\([^ ]*\)/ctl.*|\1|p')
expect_eq "$(stat -c %a "$kd" 2>/dev/null)" 700 "the master's private directory ($kd) is 0700"
kill -KILL $bp
wait $bp 2>/dev/null
sleep 0.5
# nothing of box's runs after SIGKILL to reap it: dead (or a zombie
# until this machine's PID 1 reaps it) is what PR_SET_PDEATHSIG gives
st=$(ps -o stat= -p "${mp:-0}" 2>/dev/null)
case $st in
""|Z*) [ -n "$mp" ] && ok "SIGKILL to box: the ssh master dies with it (PR_SET_PDEATHSIG)" ||
	fail "SIGKILL: no master seen" ;;
*) fail "SIGKILL: the ssh master '$mp' outlived box (state '$st')" ;;
esac
# SIGKILL leaves its directory (nothing runs to remove it); no other run did
xdg_checks
dirs_after=$(ls -d /tmp/box-remote.* 2>/dev/null | wc -l)
expect_eq "$dirs_after" $((dirs_before + 1)) "every private directory removed but the SIGKILLed run's"
[ -n "$kd" ] && [ -d "$kd" ] && { rm -f "$kd"/*; rmdir "$kd"; }

rrun 0 "" "rm through --remote" -- --remote "$URL" rm ${P}a --force
api GET /1.0/instances/${P}a | grep -q '"error_code":404' &&
    ok "${P}a is gone from the daemon" || fail "${P}a still exists after rm"
no_leftovers "$URL" "at the end"

at "end"
summary
