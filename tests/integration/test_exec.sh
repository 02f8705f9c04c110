#!/bin/sh
# box exec / shell / tmux against the real daemon (container mode), the
# bounded internal exec through a small driver (exectool.c), and a fake
# daemon (fake_exec.py) that breaks the websocket protocol every way we
# could think of.  Instances are named boxit-exec-*; the trap deletes them.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

T=$(mktemp -d /tmp/boxit-exec.XXXXXX)
A=boxit-exec-a
D=boxit-exec-deb
TM="tmux -L boxit-exec-$$"
fake=

cleanup()
{
	$TM kill-server 2>/dev/null
	[ -n "$fake" ] && kill "$fake" 2>/dev/null
	cleanup_prefix boxit-exec- >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# check_rc WANT DESC -- CMD...: CMD's exit status is WANT (stdin: /dev/null)
check_rc()
{
	_want=$1 _desc=$2
	shift 3
	"$@" </dev/null >"$T/out" 2>"$T/err"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then
		ok "$_desc"
	else
		fail "$_desc: exit $_rc, want $_want: $(head -c 300 "$T/err")"
	fi
}

config()
{
	api PATCH "/1.0/instances/$A" "{\"config\":{$1}}" >/dev/null
}

cleanup_prefix boxit-exec- >/dev/null 2>&1
if ! launch "$A" box-test-busybox '{"user.box":"1"}'; then
	fail "launch $A from box-test-busybox"
	summary
fi
ok "launched $A"

# --- exit status -------------------------------------------------------------
check_rc 0 "exit 0 (true)" -- "$BOX" exec "$A" -- true
check_rc 1 "exit 1 (false)" -- "$BOX" exec "$A" -- false
check_rc 42 "exit 42" -- "$BOX" exec "$A" -- sh -c 'exit 42'
check_rc 1 "plain words work without --" -- "$BOX" exec "$A" false
check_rc 137 "killed by SIGKILL: 128+9" -- "$BOX" exec "$A" -- sh -c 'kill -KILL $$'
check_rc 143 "killed by SIGTERM: 128+15" -- "$BOX" exec "$A" -- sh -c 'kill -TERM $$'
check_rc 127 "a missing command: 127" -- "$BOX" exec "$A" -- no-such-command
check_rc 2 "a dash before -- is refused" -- "$BOX" exec "$A" ls -la
expect_contains "$(cat "$T/err")" "a command's own flags go after --" \
    "the refusal says where flags go"

# --- streams -----------------------------------------------------------------
"$BOX" exec "$A" -- sh -c 'echo to-out; echo to-err >&2; echo more-out' \
    </dev/null >"$T/o" 2>"$T/e"
expect_eq "$(cat "$T/o")" "to-out
more-out" "stdout carries only stdout"
expect_eq "$(cat "$T/e")" "to-err" "stderr carries only stderr"

head -c 10485760 /dev/urandom >"$T/10m"
want=$(sha256sum <"$T/10m" | cut -d' ' -f1)
got=$("$BOX" exec "$A" -- sh -c 'wc -c' <"$T/10m" | tr -d ' ')
expect_eq "$got" 10485760 "10 MB of stdin counted by wc -c in the box"
got=$("$BOX" exec "$A" -- sha256sum <"$T/10m" | cut -d' ' -f1)
expect_eq "$got" "$want" "SHA-256 of 10 MB stdin, computed in the box"
got=$("$BOX" exec "$A" -- cat <"$T/10m" | sha256sum | cut -d' ' -f1)
expect_eq "$got" "$want" "10 MB through cat, both ways: SHA-256 matches"
want=$(head -c 10485760 /dev/zero | tr '\0' 'q' | sha256sum | cut -d' ' -f1)
got=$("$BOX" exec "$A" -- sh -c "head -c 10485760 /dev/zero | tr '\\0' q" \
    </dev/null | sha256sum | cut -d' ' -f1)
expect_eq "$got" "$want" "10 MB generated in the box: SHA-256 matches"

got=$(printf 'abc' | "$BOX" exec "$A" -- cat)
expect_eq "$got" "abc" "stdin EOF reaches the remote program (cat ends)"
t0=$(date +%s)
yes | timeout 20 "$BOX" exec "$A" -- true
rc=$?
expect_eq "$rc" 0 "a command that never reads an endless stdin ends ($(($(date +%s) - t0)) s)"
got=$(echo in | timeout 20 "$BOX" exec "$A" -- sh -c 'cat; sleep 1; echo after')
expect_eq "$got" "in
after" "a command that outlives its stdin finishes its output"
t0=$(date +%s)
got=$(timeout 20 "$BOX" exec "$A" -- yes </dev/null | head -1)
rc=$?
expect_eq "$got/$rc" "y/0" "a reader that goes away stops the remote writer ($(($(date +%s) - t0)) s)"

# --- the user and the box boundary --------------------------------------------
got=$("$BOX" exec "$A" -- sh -c 'echo $USER $HOME; pwd' </dev/null)
expect_eq "$got" "root /root
/root" "unstamped box: root with a login environment"
config '"user.box.user":"dev"'
got=$("$BOX" exec "$A" -- sh -c 'id -un; echo $HOME $USER $SHELL; pwd' </dev/null)
expect_eq "$got" "dev
/home/dev dev /bin/sh
/home/dev" "stamped user.box.user=dev: runs as dev with a login environment"
got=$("$BOX" exec "$A" -- printf '%s|' 'a b' '$HOME' '' "it's" </dev/null)
expect_eq "$got" "a b|\$HOME||it's|" "arguments reach the command exactly"
config '"user.box":"0","user.claudebox":"1","user.box.user":""'
check_rc 126 "legacy box: the user is claude" -- "$BOX" exec "$A" -- true
expect_contains "$(cat "$T/err")" "no user 'claude'" "legacy box maps to claude"
config '"user.box":"0","user.claudebox":"0"'
check_rc 1 "an instance box did not mint is refused" -- "$BOX" exec "$A" -- true
expect_contains "$(cat "$T/err")" "did not mint" "the refusal says why"
config '"user.box":"1","user.claudebox":"","user.box.user":"dev"'
check_rc 1 "no such box" -- "$BOX" exec boxit-exec-nonexistent -- true
check_rc 2 "tmux: bad session name" -- "$BOX" tmux "$A" 'a b'
check_rc 2 "tmux without a terminal" -- "$BOX" tmux "$A"

# --- the bounded internal exec -------------------------------------------------
XT=$T/exectool
if gcc -std=c11 -D_GNU_SOURCE -Isrc -Ibuild/bearssl-inc -I/usr/include/bearssl \
    -DBOX_VERSION='"test"' -O1 -g -Wall -Wextra -Wno-unused-parameter -Werror \
    -o "$XT" tests/integration/exectool.c src/incus/exec.c src/incus/ws.c \
    src/incus/api.c src/incus/http.c src/incus/json.c src/incus/json_write.c \
    src/incus/transport.c src/box/remote/incus_env.c src/util/err.c src/util/tty.c \
    src/util/clock.c src/util/text.c \
    "$(ls /usr/lib/*/libbearssl.a | head -1)" 2>"$T/cc"; then
	ok "build exectool"
	got=$("$XT" "$A" 1500 100 -- sh -c 'echo started; trap "" TERM INT HUP; sleep 60' 2>"$T/xerr")
	got="$got $(cat "$T/xerr")"
	ms=$(echo "$got" | sed -n 's/.* ms=\([0-9]*\).*/\1/p')
	case $got in
	*"rc=-110 "*)
		if [ "${ms:-99999}" -lt 4000 ]; then
			ok "a timeout fires (${ms} ms for 1500) and kills the command"
		else
			fail "the timeout took ${ms} ms"
		fi ;;
	*) fail "timeout: $got" ;;
	esac
	got=$("$BOX" exec "$A" -- sh -c 'ps | grep -c "[s]leep 60"' </dev/null)
	expect_eq "$got" 0 "the timed-out command is gone from the box"
	got=$("$XT" "$A" 10000 1000 -- sh -c 'head -c 5000000 /dev/zero; exit 5' | head -1)
	case $got in
	"rc=0 status=5 out=1000 outtrunc=1 "*) ok "capture caps output, drains the rest: $got" ;;
	*) fail "capture cap: $got" ;;
	esac
	got=$(printf 'hello' | "$XT" "$A" 10000 1000 - -- sh -c 'wc -c' | tr -d ' ' | tr '\n' ' ')
	case $got in
	rc=0*5*) ok "capture with stdin" ;;
	*) fail "capture with stdin: $got" ;;
	esac
else
	fail "build exectool: $(head -5 "$T/cc")"
fi

# --- interactive, through a real pty (tmux) ------------------------------------
# pane NEEDLE SECONDS: wait until the pane shows NEEDLE
pane()
{
	_i=0
	while [ "$_i" -lt $(($2 * 10)) ]; do
		$TM capture-pane -p -t s1 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

if command -v tmux >/dev/null 2>&1; then
	$TM new-session -d -s s1 -x 100 -y 30 \
	    "stty -g >$T/before; $BOX shell $A; echo \$? >$T/rc; stty -g >$T/after; sleep 120"
	if pane '~ $' 10; then
		ok "interactive: a prompt appears"
	else
		fail "interactive: no prompt: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
	fi
	$TM send-keys -t s1 'stty size; tty' Enter
	pane '30 100' 5 && ok "interactive: the pty starts at the terminal's size" ||
	    fail "interactive: size: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
	$TM resize-window -t s1 -x 120 -y 40
	sleep 0.3
	$TM send-keys -t s1 'stty size' Enter
	pane '40 120' 5 && ok "interactive: a resize reaches the remote pty (stty size)" ||
	    fail "interactive: resize: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
	$TM send-keys -t s1 'sleep 60; echo slept-$((1+1))-through' Enter
	sleep 0.5
	$TM send-keys -t s1 C-c
	sleep 0.3
	$TM send-keys -t s1 'echo alive-$((6*7))' Enter
	if pane 'alive-42' 5 && ! $TM capture-pane -p -t s1 | grep -q slept-2-through; then
		ok "interactive: Ctrl-C interrupts a remote sleep, the session goes on"
	else
		fail "interactive: Ctrl-C: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
	fi
	$TM send-keys -t s1 'exit 3' Enter
	_i=0
	while [ ! -s "$T/after" ] && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	expect_eq "$(cat "$T/rc" 2>/dev/null)" 3 "interactive: exit 3 gives 3"
	if [ -s "$T/before" ] && [ "$(cat "$T/before")" = "$(cat "$T/after" 2>/dev/null)" ]; then
		ok "interactive: the local terminal is restored (stty -g identical)"
	else
		fail "interactive: terminal not restored: $(cat "$T/before") vs $(cat "$T/after" 2>/dev/null)"
	fi
	$TM kill-session -t s1 2>/dev/null
else
	fail "tmux is not installed (the interactive tests need it)"
fi

# --- a Debian box: login PATH, setpriv, su -l, tmux in the box -------------------
if api GET /1.0/images/aliases/box-test-debian | grep -q '"type":"sync"'; then
	if launch "$D" box-test-debian '{"user.box":"1"}'; then
		i=0
		until "$BOX" exec "$D" -- true </dev/null 2>/dev/null || [ $i -ge 50 ]; do
			sleep 0.2; i=$((i + 1))
		done
		"$BOX" exec "$D" -- sh -c 'useradd -m -s /bin/bash -G sudo alice &&
		    mkdir -p ~alice/.local/bin &&
		    printf "#!/bin/sh\necho tool-found\n" >~alice/.local/bin/mytool &&
		    chmod 755 ~alice/.local/bin/mytool && chown -R alice: ~alice' \
		    </dev/null >/dev/null 2>&1
		api PATCH "/1.0/instances/$D" '{"config":{"user.box.user":"alice"}}' >/dev/null
		got=$("$BOX" exec "$D" -- sh -c 'id -un; id -Gn; mytool' </dev/null 2>&1)
		expect_eq "$got" "alice
alice sudo
tool-found" "Debian: the user's login PATH finds ~/.local/bin tools, groups intact"
		$TM new-session -d -s s1 -x 100 -y 30 "$BOX tmux $D work; echo \$? >$T/trc; sleep 120"
		if pane 'alice@' 15; then
			$TM send-keys -t s1 'echo in-tmux-$TMUX_PANE' Enter
			pane 'in-tmux-%' 5 && ok "box tmux: a tmux session as alice" ||
			    fail "box tmux: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
			$TM send-keys -t s1 C-b d
			sleep 1
			got=$("$BOX" exec "$D" -- tmux ls </dev/null 2>&1)
			expect_contains "$got" "work:" "box tmux: the session outlives the detach"
			expect_eq "$(cat "$T/trc" 2>/dev/null)" 0 "box tmux: detaching exits 0"
		else
			fail "box tmux: no shell: $($TM capture-pane -p -t s1 | grep -v '^$' | tail -5)"
		fi
		$TM kill-session -t s1 2>/dev/null
	else
		fail "launch $D from box-test-debian"
	fi
else
	fail "no box-test-debian image (BOX_CI_DEBIAN=1 sh ci/setup.sh): the Debian exec checks did not run"
fi

# --- a fake daemon that breaks the protocol ------------------------------------------
start_fake()
{
	[ -n "$fake" ] && kill "$fake" 2>/dev/null && wait "$fake" 2>/dev/null
	rm -f "$T/sock"
	python3 tests/integration/fake_exec.py "$T/sock" "$1" 2>>"$T/fake.log" &
	fake=$!
	_i=0
	while [ ! -S "$T/sock" ] && [ "$_i" -lt 30 ]; do sleep 0.1; _i=$((_i + 1)); done
}

for m in ok:"fake-ok" badaccept:"Sec-WebSocket-Accept" noupgrade:"instead of 101" \
    forbidden:"(HTTP 403): Forbidden" stallws:"did not answer in time" \
    rsv:"reserved bits" masked:"masked frame from the server" \
    badop:"reserved opcode" bigping:"control frame over 125" \
    badclose:"1-byte payload" toobig:"over the size limit" \
    contfirst:"continuation frame without" garbage:"websocket:" \
    nofds:"names no websockets"; do
	mode=${m%%:*} text=${m#*:}
	want=1
	[ "$mode" = ok ] && want=7
	start_fake "$mode"
	t0=$(date +%s)
	out=$(INCUS_SOCKET=$T/sock BOX_IO_TIMEOUT=2 timeout 20 "$BOX" exec fakebox -- true </dev/null 2>&1)
	rc=$?
	dt=$(($(date +%s) - t0))
	if [ "$rc" -ne "$want" ]; then
		fail "fake daemon $mode: exit $rc, want $want: $out"
	elif [ "$dt" -gt 10 ]; then
		fail "fake daemon $mode: took $dt s"
	else
		expect_contains "$out" "$text" "fake daemon $mode: exit $rc in ${dt}s: $(echo "$out" | grep box: | head -1)"
	fi
done

summary
