#!/bin/sh
# The installer (host/install.sh), the release it installs (ci/release.sh)
# and box versions / use / uninstall / whereami, for real:
#   * two genuinely stamped releases, built from a snapshot of the tree with
#     `make release` and `make release VERSION=...` (the tree's own ./box
#     and build/ are never touched: other tests use them meanwhile);
#   * installs over HTTP from a server of our own on 127.0.0.1 (the script
#     piped into sh, as `curl | sh` runs it) and from BOX_INSTALL_SOURCE;
#   * as root into temporary BOX_HOME/BOX_BIN (the real /opt/box and
#     /usr/local/bin/box are checked untouched) and as a user (uid 65534,
#     a temporary HOME);
#   * consent through a real pty (tmux), and refusals without one;
#   * inside a real box (a Debian container tagged user.box=1): the
#     installer refuses and changes nothing, BOX_ALLOW_NESTED=1 lands the
#     CLI only.
# Safety nets: BOX_RELEASE_URL always points at loopback, so no case can
# fall back to the default (internet) location; BOX_SKIP_SETUP_HOST=1 is
# set except in the one pty case that answers the host-setup question "n";
# every installer run has no controlling terminal (setsid) unless a case
# gives it the tmux one.  "No daemon, no boxes" is INCUS_SOCKET=$NOSOCK.
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh

P=boxit-inst-
T=$(mktemp -d /tmp/boxit-inst.XXXXXX)
chmod 755 "$T"
NOSOCK=$T/no-incus.socket
TM="tmux -L boxit-inst-$$"
SERVER=
export BOX_RELEASE_URL=http://127.0.0.1:9/never
export BOX_SKIP_SETUP_HOST=1
unset BOX_YES BOX_HOME BOX_BIN BOX_INSTALL_SOURCE BOX_ALLOW_NESTED BOX_SUBNET \
    BOX_VERSION BOX_REINSTALL INCUS_SOCKET INCUS_DIR http_proxy https_proxy \
    HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy 2>/dev/null

cleanup()
{
	[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null
	$TM kill-server 2>/dev/null
	cleanup_prefix "$P" >/dev/null 2>&1
	rm -rf "$T"
}
cleanup_prefix "$P" || { fail "cleanup of leftovers"; summary; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# snap PATH: everything about a tree (names, types, modes, sizes, times,
# link targets), or "absent".
snap()
{
	if [ -e "$1" ] || [ -L "$1" ]; then
		find "$1" -printf '%p %y %m %s %T@ %l\n' | sort
	else
		echo "absent: $1"
	fi
}

# inst ENV...: run the installer with no terminal, the script as stdin
# (the `curl | sh` shape); output in $OUT, status in $RC.
inst()
{
	OUT=$(setsid -w env "$@" sh <host/install.sh 2>&1)
	RC=$?
}

# share_checks: as root, the share directory (BOX_SHARE, or share/ beside
# BOX_BIN) must be root-only too (issue 35).  The attack: a user's share
# directory whose man/man1 links into a root-only directory; root's
# installer would put the manual page through it, over a root 0600 file.
# The control: the same install with the check cut out of the script
# overwrites that file.
share_checks()
{
	_s=$T/share35 _d=$T/der35
	mkdir -p "$_s/root" "$_s/user/man" "$_d/share" &&
	    chmod 700 "$_s/root" && chmod 755 "$_d" &&
	    chown 65534 "$_s/user" "$_s/user/man" "$_d/share" &&
	    printf 'root only\n' >"$_s/root/box.1" && chmod 600 "$_s/root/box.1" &&
	    ln -s "$_s/root" "$_s/user/man/man1" && chown -h 65534 "$_s/user/man/man1" ||
	    { fail "share: setup"; return; }
	inst BOX_YES=1 BOX_HOME="$C/home" BOX_BIN="$C/bin" BOX_SHARE="$_s/user" \
	    BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
	expect_eq "$RC" 1 "root, BOX_SHARE a user's directory: exit 1"
	expect_contains "$OUT" "which uid 65534 owns" "it names the owner"
	expect_contains "$OUT" "BOX_SHARE=<dir>" "the fix names BOX_SHARE"
	expect_eq "$(cat "$_s/root/box.1")/$(snap "$C/home")" "root only/absent: $C/home" \
	    "BOX_SHARE refused: root's file untouched, nothing installed"
	inst BOX_YES=1 BOX_HOME="$C/home" BOX_BIN="$_d/bin" \
	    BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
	expect_eq "$RC" 1 "root, share/ beside BOX_BIN a user's: exit 1"
	expect_contains "$OUT" "under $_d/share, which uid 65534 owns" "it names the derived share directory"
	expect_eq "$(snap "$_d/bin")/$(snap "$C/home")" "absent: $_d/bin/absent: $C/home" "derived share refused: nothing installed"
	sed 's|^\t\troot_only "\$SHARE/\$_d" BOX_SHARE$|\t\t:|' host/install.sh >"$T/nocheck.sh"
	if grep -q 'root_only "$SHARE' "$T/nocheck.sh"; then
		fail "control: the share check was not cut out"
		return
	fi
	OUT=$(setsid -w env BOX_YES=1 BOX_HOME="$C/home" BOX_BIN="$C/bin" BOX_SHARE="$_s/user" \
	    BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK" sh <"$T/nocheck.sh" 2>&1)
	RC=$?
	expect_eq "$RC:$(head -c 7 "$_s/root/box.1" 2>&1)" "0:.TH BOX" \
	    "control: without the check, root wrote its manual page over a root-only file through the user's link"
	rm -rf "$C/home" "$C/bin" "$C/share" "$_s" "$_d"
}

# --- two releases -------------------------------------------------------------
SRC=$T/src
mkdir "$SRC"
tar -C . --exclude=./build --exclude=./dist --exclude=./.git --exclude=./box \
    -cf - . | tar -C "$SRC" -xf -
VA=$(cat VERSION)
VB=99.0.0-test
ARCH=x86_64
if make -C "$SRC" -j2 release >"$T/make-a.log" 2>&1; then
	ok "make release ($VA)"
else
	fail "make release ($VA): $(tail -5 "$T/make-a.log")"
	summary
fi
mkdir -p "$T/www"
cp -r "$SRC/dist" "$T/www/a"
if make -C "$SRC" -j2 release VERSION=$VB >"$T/make-b.log" 2>&1; then
	ok "make release VERSION=$VB (objects restamped)"
else
	fail "make release VERSION=$VB: $(tail -5 "$T/make-b.log")"
	summary
fi
cp -r "$SRC/dist" "$T/www/b"
A=$T/www/a
B=$T/www/b
BINA=$A/box-$VA-$ARCH

expect_eq "$(cd "$A" && ls | tr '\n' ' ')" "SHA256SUMS box-$VA-$ARCH install.sh " "release A holds the binary, install.sh, SHA256SUMS"
expect_eq "$(cd "$B" && ls | tr '\n' ' ')" "SHA256SUMS box-$VB-$ARCH install.sh " "release B holds only its own version"
(cd "$A" && sha256sum -c --quiet SHA256SUMS) && ok "release A checksums verify" || fail "release A checksums"
(cd "$B" && sha256sum -c --quiet SHA256SUMS) && ok "release B checksums verify" || fail "release B checksums"
expect_contains "$("$BINA" --version)" "box $VA " "release A binary is stamped $VA"
expect_contains "$("$B/box-$VB-$ARCH" --version)" "box $VB " "release B binary is stamped $VB"
readelf -l "$BINA" | grep -q INTERP && fail "release binary is dynamic" || ok "release binary is static"
sz=$(wc -c <"$BINA")
[ "$sz" -le 1048576 ] && ok "release binary is $sz bytes (<= 1 MiB, make size's budget)" || fail "release binary is $sz bytes"

# The server: loopback only, a free port.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$PORT" >"$T/http.log" 2>&1 &
SERVER=$!
i=0
until curl -fsS "http://127.0.0.1:$PORT/a/SHA256SUMS" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -le 50 ] || { fail "test HTTP server did not start"; summary; }
	sleep 0.1
done
URL=http://127.0.0.1:$PORT

# --- the host says "host" -----------------------------------------------------
w=$("$BINA" whereami --json); rc=$?
expect_eq "$rc" 0 "whereami --json exits 0 on the host"
expect_eq "$(printf '%s' "$w" | json "j['verdict']")" host "whereami on the host: verdict host"
expect_contains "$("$BINA" whereami)" "on a host" "whereami text on the host"
# A pin outside RFC 1918 is never free: setup-host would refuse it (exit 2).
w=$(BOX_SUBNET=203.0.113.0/24 "$BINA" whereami --json); rc=$?
expect_eq "$rc:$(printf '%s' "$w" | json "j['box_subnet_free']")" "0:false" "whereami: a public BOX_SUBNET pin is not free"
expect_contains "$(BOX_SUBNET=100.64.7.0/24 "$BINA" whereami)" "is not a private (RFC 1918) /24" "whereami text: a CGNAT pin is refused"

REAL_BEFORE=$(snap /opt/box; ls -la /usr/local/bin/box 2>&1)

# --- refusals that change nothing --------------------------------------------
R=$T/root
inst BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/a" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "no terminal, no BOX_YES: exit 1"
expect_contains "$OUT" "no terminal to confirm on" "no terminal: says why"
expect_eq "$(snap "$R")" "absent: $R" "no terminal: nothing created"
# BOX_YES that says no is no consent: the same refusal, word for word (it
# once read any non-empty value as yes).  A value that is neither yes nor
# no is a usage error that names the accepted values.
NOYES=$OUT
for v in 0 no false NO False ''; do
	inst BOX_YES="$v" BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/a" INCUS_SOCKET="$NOSOCK"
	expect_eq "$RC:$OUT" "1:$NOYES" "BOX_YES='$v', no terminal: refused exactly as without BOX_YES"
	expect_eq "$(snap "$R")" "absent: $R" "BOX_YES='$v': nothing created"
done
inst BOX_YES=maybe BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/a" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 2 "BOX_YES=maybe: a usage error (exit 2)"
expect_contains "$OUT" "BOX_YES=maybe is neither yes nor no" "BOX_YES=maybe: says why"
expect_contains "$OUT" "1, yes or true" "BOX_YES=maybe: names the accepted values"
expect_eq "$(snap "$R")" "absent: $R" "BOX_YES=maybe: nothing created"

cp -r "$A" "$T/www/bad"
printf 'X' | dd of="$T/www/bad/box-$VA-$ARCH" bs=1 seek=4096 conv=notrunc 2>/dev/null
inst BOX_YES=1 BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/bad" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "tampered binary over HTTP: exit 1"
expect_contains "$OUT" "checksum mismatch" "tampered binary: checksum mismatch reported"
expect_eq "$(snap "$R")" "absent: $R" "tampered binary over HTTP: nothing installed"
inst BOX_YES=1 BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_INSTALL_SOURCE="$T/www/bad" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "tampered local copy: exit 1"
expect_eq "$(snap "$R")" "absent: $R" "tampered local copy: nothing installed"

# --- as root, only where no other user can write (issue 22) ------------------
# A user (uid 65534) who owns a directory on the way could swap `current`
# or the binary under root's `box`.  Each refusal beside its control: the
# same call into a directory only root can write installs.
UD=$T/userdir WW=$T/ww C=$T/ctl
mkdir -p "$UD" "$WW" "$C" && chown 65534 "$UD" && chmod 777 "$WW" && chmod 755 "$C"
inst BOX_YES=1 BOX_HOME="$UD/home" BOX_BIN="$C/bin" BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "root, BOX_HOME under a user's directory: exit 1"
expect_contains "$OUT" "which uid 65534 owns" "it names the owner"
expect_eq "$(ls -A "$UD")/$(snap "$C/bin")" "/absent: $C/bin" "nothing installed there, nothing linked"
inst BOX_YES=1 BOX_HOME="$C/home" BOX_BIN="$WW/bin" BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "root, BOX_BIN under a world-writable directory: exit 1"
expect_contains "$OUT" "mode 777: other users can write it" "it names the mode"
expect_eq "$(ls -A "$WW")/$(snap "$C/home")" "/absent: $C/home" "nothing installed, nothing linked"
ln -s "$UD" "$T/lnk"
inst BOX_YES=1 BOX_HOME="$T/lnk/home" BOX_BIN="$C/bin" BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "root, BOX_HOME through a link into a user's directory: exit 1"
mkdir -p "$C/cur/home" && ln -s /nonexistent "$C/cur/home/current" && chown -h 65534 "$C/cur/home/current"
inst BOX_YES=1 BOX_HOME="$C/cur/home" BOX_BIN="$C/cur/bin" BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "root, a user's 'current' already in BOX_HOME: exit 1"
expect_contains "$OUT" "current is owned by uid 65534" "it names the planted link"
# the control, with TMPDIR a user's directory: installs, and no scratch
# directory is ever made there (mktemp goes to /tmp instead)
OUT=$(setsid -w env BOX_YES=1 TMPDIR="$UD" BOX_HOME="$C/home" BOX_BIN="$C/bin" \
    BOX_INSTALL_SOURCE="$A" INCUS_SOCKET="$NOSOCK" strace -f -qq -e trace=mkdir,mkdirat \
    -o "$T/mkdir.trace" sh <host/install.sh 2>&1)
RC=$?
expect_eq "$RC" 0 "control: root into a root-only directory installs"
expect_eq "$(readlink "$C/bin/box")" "$C/home/current/box" "control: linked"
grep -q "$UD" "$T/mkdir.trace" && fail "the scratch directory was made in a user's TMPDIR" ||
    ok "no scratch directory in a TMPDIR a user owns ($(grep -c box-install "$T/mkdir.trace") made elsewhere)"
rm -rf "$C/home" "$C/bin"
share_checks

# --- fresh root install over HTTP --------------------------------------------
inst BOX_YES=TRUE BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/a" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 0 "root install over HTTP (BOX_YES=TRUE is yes): exit 0"
[ -x "$R/home/versions/$VA/box" ] && ok "root: versions/$VA/box" || fail "root: versions/$VA/box missing: $OUT"
expect_eq "$(readlink "$R/home/current")" "versions/$VA" "root: current -> versions/$VA"
expect_eq "$(readlink "$R/bin/box")" "$R/home/current/box" "root: BOX_BIN/box -> current/box"
expect_contains "$("$R/bin/box" --version)" "box $VA " "root: the installed command runs $VA"
expect_eq "$(sed -n 's/^source=//p' "$R/home/versions/$VA/MANIFEST")" "$URL/a/box-$VA-$ARCH" "manifest records the source"
expect_eq "$(sed -n 's/^sha256=//p' "$R/home/versions/$VA/MANIFEST")" "$(sha256sum <"$BINA" | cut -d' ' -f1)" "manifest records the checksum"
expect_contains "$OUT" "host setup skipped" "BOX_SKIP_SETUP_HOST honoured"

before=$(snap "$R")
inst BOX_YES=1 BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/a" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 0 "same version again: exit 0"
expect_contains "$OUT" "already installed" "same version again: says so"
expect_eq "$(snap "$R")" "$before" "same version again: nothing changed"

# names_box TEXT MSG: TEXT names ${P}bb, unless the daemon holds more tagged
# boxes (other tests' included) than a refusal lists by name (32).
names_box()
{
	_nb=$("$BINA" whereami --json | json "str(j['boxes'])")
	if [ "$_nb" -gt 32 ]; then
		expect_contains "$1" "box" "$2 (one of $_nb)"
	else
		expect_contains "$1" "${P}bb" "$2"
	fi
}

# --- a new version while a box exists: lands beside, current stays ------------
launch ${P}bb box-test-busybox '{"user.box":"1"}' || fail "launch ${P}bb"
inst BOX_YES=1 BOX_HOME="$R/home" BOX_BIN="$R/bin" BOX_RELEASE_URL="$URL/b"
expect_eq "$RC" 0 "new version with a box present: exit 0"
[ -x "$R/home/versions/$VB/box" ] && ok "new version lands beside the old" || fail "versions/$VB missing: $OUT"
expect_eq "$(readlink "$R/home/current")" "versions/$VA" "with a box present, current does not flip"
names_box "$OUT" "the refusal to flip names the box"
out=$("$R/bin/box" use $VB 2>&1); rc=$?
expect_eq "$rc" 1 "box use while a box exists: exit 1"
names_box "$out" "box use refusal names the box"
expect_eq "$(readlink "$R/home/current")" "versions/$VA" "box use refused: current unchanged"
before=$(snap "$R")
out=$(BOX_BIN="$R/bin" "$R/bin/box" uninstall --all --force 2>&1); rc=$?
expect_eq "$rc" 1 "uninstall --all while a box exists: exit 1"
expect_eq "$(snap "$R")" "$before" "uninstall refused: nothing removed"
cleanup_prefix "$P" || fail "removing ${P}bb"

out=$("$R/bin/box" versions 2>&1); rc=$?
expect_eq "$rc" 0 "box versions exits 0"
expect_eq "$(echo "$out" | awk -v v=$VA '$1 == v { print $2 }')" "current," "versions: $VA is current and running"
expect_eq "$(echo "$out" | awk -v v=$VB '$1 == v { print $2 }')" "-" "versions: $VB listed, not current"
out=$(INCUS_SOCKET="$NOSOCK" BOX_BIN="$R/bin" "$R/bin/box" use $VB 2>&1); rc=$?
expect_eq "$rc" 0 "box use $VB with no boxes: exit 0"
expect_eq "$(readlink "$R/home/current")" "versions/$VB" "box use flipped current"
expect_contains "$("$R/bin/box" --version)" "box $VB " "the command now runs $VB"
out=$(INCUS_SOCKET="$NOSOCK" "$R/bin/box" use $VB 2>&1); rc=$?
expect_contains "$out" "already the default" "box use of the current version is a no-op"
out=$("$R/bin/box" use 1.2.3-none 2>&1); rc=$?
expect_eq "$rc" 1 "box use of a missing version: exit 1"
out=$("$R/bin/box" use 2>&1); rc=$?
expect_eq "$rc" 2 "box use without a version: exit 2"

# uninstall one version: consent rules, never the current one.
out=$(setsid -w "$R/bin/box" uninstall $VA </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "uninstall <v> without a terminal or --force: exit 2"
noyes=$out
for v in 0 no false NO False ''; do
	out=$(BOX_YES="$v" setsid -w "$R/bin/box" uninstall $VA </dev/null 2>&1); rc=$?
	expect_eq "$rc:$out" "2:$noyes" "uninstall <v>, BOX_YES='$v', no terminal: refused exactly as without BOX_YES"
	[ -x "$R/home/versions/$VA/box" ] && ok "BOX_YES='$v': $VA still installed" || fail "BOX_YES='$v' removed $VA"
done
out=$(BOX_YES=maybe setsid -w "$R/bin/box" uninstall $VA </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "uninstall <v>, BOX_YES=maybe: a usage error (exit 2)"
expect_contains "$out" "BOX_YES=maybe is neither yes nor no" "uninstall, BOX_YES=maybe: says why"
expect_contains "$out" "1, yes, true (yes)" "uninstall, BOX_YES=maybe: names the accepted values"
out=$(BOX_YES=maybe "$R/bin/box" uninstall $VA --force 2>&1); rc=$?
expect_eq "$rc" 2 "uninstall --force, BOX_YES=maybe: still a usage error"
[ -x "$R/home/versions/$VA/box" ] && ok "BOX_YES=maybe: $VA still installed" || fail "BOX_YES=maybe removed $VA"
out=$("$R/bin/box" uninstall $VB --force 2>&1); rc=$?
expect_eq "$rc" 1 "uninstall of the current version: exit 1"
out=$(BOX_YES=True setsid -w "$R/bin/box" uninstall $VA </dev/null 2>&1); rc=$?
expect_eq "$rc" 0 "uninstall $VA with BOX_YES=True, no terminal: exit 0"
[ -e "$R/home/versions/$VA" ] && fail "versions/$VA still there" || ok "uninstall $VA removed it"
out=$("$R/bin/box" uninstall $VA --all 2>&1); rc=$?
expect_eq "$rc" 2 "uninstall <v> --all: exit 2"

# --- air-gapped: BOX_INSTALL_SOURCE naming the binary file --------------------
G=$T/gap
inst BOX_YES=1 BOX_HOME="$G/home" BOX_BIN="$G/bin" BOX_INSTALL_SOURCE="$B/box-$VB-$ARCH" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 0 "air-gapped install from a file: exit 0"
expect_eq "$(sed -n 's/^source=//p' "$G/home/versions/$VB/MANIFEST")" "local:$B/box-$VB-$ARCH" "air-gapped: manifest says local"
out=$(INCUS_SOCKET="$NOSOCK" BOX_BIN="$G/bin" "$G/bin/box" uninstall --all --force 2>&1); rc=$?
expect_eq "$rc" 0 "uninstall --all: exit 0"
expect_eq "$(snap "$G/home"; snap "$G/bin/box")" "absent: $G/home
absent: $G/bin/box" "uninstall --all: install root and PATH link gone"

# A directory holding two releases: the installer will not guess.
M=$T/multi
mkdir -p "$M"
cp "$BINA" "$B/box-$VB-$ARCH" "$M/"
cat "$A/SHA256SUMS" "$B/SHA256SUMS" | grep ' box-' >"$M/SHA256SUMS"
inst BOX_YES=1 BOX_HOME="$G/home" BOX_BIN="$G/bin" BOX_INSTALL_SOURCE="$M" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "two versions in one source, none picked: exit 1"
expect_contains "$OUT" "BOX_VERSION" "two versions: says how to pick"
expect_eq "$(snap "$G/home")" "absent: $G/home" "two versions: nothing installed"
inst BOX_YES=1 BOX_VERSION=$VB BOX_HOME="$G/home" BOX_BIN="$G/bin" BOX_INSTALL_SOURCE="$M" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC:$(readlink "$G/home/current")" "0:versions/$VB" "BOX_VERSION picks one"
rm -rf "$G"
rm "$M/SHA256SUMS"
inst BOX_YES=1 BOX_HOME="$G/home" BOX_BIN="$G/bin" BOX_INSTALL_SOURCE="$M/box-$VB-$ARCH" INCUS_SOCKET="$NOSOCK"
expect_eq "$RC" 1 "a local copy without SHA256SUMS: exit 1"
expect_eq "$(snap "$G/home")" "absent: $G/home" "no SHA256SUMS: nothing installed"

# --- consent through a real pty ----------------------------------------------
# pane_wait TEXT: until the pane shows TEXT (10 s).
pane_wait()
{
	_n=0
	until $TM capture-pane -p -t inst -S -100 2>/dev/null | grep -qF "$1"; do
		_n=$((_n + 1))
		[ $_n -le 100 ] || return 1
		sleep 0.1
	done
}
Y=$T/pty
$TM new-session -d -s inst -x 200 -y 50 "env BOX_HOME=$Y/home BOX_BIN=$Y/bin \
    BOX_INSTALL_SOURCE=$A INCUS_SOCKET=$NOSOCK sh $PWD/host/install.sh; echo EXIT=\$?; sleep 60"
if pane_wait "Install box"; then
	$TM send-keys -t inst n Enter
	pane_wait "EXIT=" || :
	expect_contains "$($TM capture-pane -p -t inst -S -100)" "EXIT=1" "pty: answering n cancels (exit 1)"
else
	fail "pty: no install question shown"
fi
expect_eq "$(snap "$Y")" "absent: $Y" "pty: declined, nothing created"
$TM kill-session -t inst 2>/dev/null
# Yes to installing, no to setting the host up (the one case without
# BOX_SKIP_SETUP_HOST: the "n" is only sent once that question shows).
# The script arrives on stdin, as under `curl | sh`: the answers must come
# from the terminal, not from the script.
$TM new-session -d -s inst -x 200 -y 50 "cat $PWD/host/install.sh | env -u BOX_SKIP_SETUP_HOST \
    BOX_HOME=$Y/home BOX_BIN=$Y/bin BOX_INSTALL_SOURCE=$A INCUS_SOCKET=$NOSOCK sh; \
    echo EXIT=\$?; sleep 60"
if pane_wait "Install box"; then
	$TM send-keys -t inst y Enter
	if pane_wait "Set up this machine"; then
		$TM send-keys -t inst n Enter
		ok "pty: the host-setup question is asked separately"
	else
		fail "pty: no host-setup question on a fresh host"
	fi
	pane_wait "EXIT=" || :
	pane=$($TM capture-pane -p -t inst -S -100)
	expect_contains "$pane" "EXIT=0" "pty: answering y installs (exit 0)"
	expect_contains "$pane" "host setup skipped" "pty: n to host setup skips it"
else
	fail "pty: no install question shown"
fi
[ -x "$Y/home/versions/$VA/box" ] && ok "pty: installed after y" || fail "pty: not installed"
$TM kill-session -t inst 2>/dev/null

# --- as a user ------------------------------------------------------------------
U=$T/user
mkdir -p "$U"
chown 65534:65534 "$U"
asuser()
{
	setsid -w setpriv --reuid=65534 --regid=65534 --clear-groups \
	    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME="$U" BOX_RELEASE_URL="$BOX_RELEASE_URL" BOX_SKIP_SETUP_HOST=1 \
	    INCUS_SOCKET="$NOSOCK" "$@"
}
OUT=$(asuser BOX_YES=1 BOX_INSTALL_SOURCE="$A" sh <host/install.sh 2>&1); RC=$?
expect_eq "$RC" 0 "user install: exit 0"
[ -x "$U/.local/share/box/versions/$VA/box" ] && ok "user: ~/.local/share/box/versions/$VA/box" ||
    fail "user: not installed: $OUT"
expect_eq "$(readlink "$U/.local/bin/box")" "$U/.local/share/box/current/box" "user: ~/.local/bin/box -> current/box"
expect_eq "$(stat -c %u "$U/.local/share/box/versions/$VA/box")" 65534 "user: files belong to the user"
OUT=$(asuser BOX_YES=1 BOX_RELEASE_URL="$URL/b" sh <host/install.sh 2>&1); RC=$?
expect_eq "$RC" 0 "user: second version over HTTP: exit 0"
expect_eq "$(readlink "$U/.local/share/box/current")" "versions/$VB" "user: no boxes, so current flips to $VB"
out=$(asuser "$U/.local/bin/box" versions 2>&1)
expect_eq "$(echo "$out" | grep -cE "^  ($VA|$VB) ")" 2 "user: box versions lists both"
out=$(asuser "$U/.local/bin/box" uninstall --all 2>&1 </dev/null); rc=$?
expect_eq "$rc" 2 "user: uninstall --all without consent: exit 2"
out=$(asuser BOX_YES=1 "$U/.local/bin/box" uninstall --all 2>&1); rc=$?
expect_eq "$rc" 0 "user: uninstall --all with BOX_YES: exit 0"
expect_eq "$(snap "$U/.local/share/box"; snap "$U/.local/bin/box")" "absent: $U/.local/share/box
absent: $U/.local/bin/box" "user: nothing left"

out=$(INCUS_SOCKET="$NOSOCK" BOX_BIN="$R/bin" "$R/bin/box" uninstall --force 2>&1); rc=$?
expect_eq "$rc" 0 "root: uninstall everything: exit 0"
expect_eq "$(snap "$R/home"; snap "$R/bin/box")" "absent: $R/home
absent: $R/bin/box" "root: nothing left"
expect_eq "$(snap /opt/box; ls -la /usr/local/bin/box 2>&1)" "$REAL_BEFORE" "the real /opt/box and /usr/local/bin/box were never touched"

# --- uninstall --all --purge-host: the stack and its boxes go first -------------
# A real stack with a real box on it, an install beside it; consent rules
# first (nothing may move without it), then the whole order: teardown-host
# (boxes, objects, firewall), then the install, then the absence assert.
PG=$T/purge
# stack_snap: what teardown-host would remove (box-owned daemon objects,
# this test's boxes, box's nft tables), as the daemon and the kernel hold
# them.
stack_snap()
{
	for o in networks/boxnet network-acls/box-isolate profiles/box-net; do
		api GET "/1.0/$o" | json "str(j.get('error_code') or j['metadata'].get('config'))"
	done
	api GET '/1.0/instances?recursion=1' | json "' '.join(sorted(i['name'] + '/' + i['status']
	    for i in j['metadata'] if i['name'].startswith(sys.argv[2])))" "$P"
	nft list tables | grep -E ' box($|_)' | grep -v box_test_guard | sort
	nft list table inet box 2>&1 | md5sum
}
# teardown_refusals: BOX_YES=no (or another no) without a terminal is no
# consent (exit 2), BOX_YES=maybe a usage error (exit 2), and the live
# stack is untouched.  Never a teardown that goes through: each case runs
# first as a user, who could not remove anything anyway (the old rule read
# any value as yes and got as far as "needs root", exit 1); only a refusal
# for the right reason there lets the same case run as root.
teardown_refusals()
{
	_s0=$(stack_snap)
	for v in no 0 false maybe; do
		_f=
		[ "$v" = maybe ] && _f=--yes	# a bad value is refused even with --yes
		out=$(asuser BOX_YES=$v "$BINA" teardown-host $_f </dev/null 2>&1); rc=$?
		case $rc:$out in
		*"confirmed non-interactively"* | [!2]:*)
			fail "teardown-host${_f:+ $_f}, BOX_YES=$v, as a user: exit $rc, not refused: $out"
			continue ;;
		esac
		out=$(BOX_YES=$v setsid -w "$BINA" teardown-host $_f </dev/null 2>&1); rc=$?
		expect_eq "$rc" 2 "teardown-host${_f:+ $_f}, BOX_YES=$v, no terminal: exit 2"
		if [ "$v" = maybe ]; then
			expect_contains "$out" "BOX_YES=maybe is neither yes nor no" "teardown-host, BOX_YES=maybe: says why"
		else
			expect_contains "$out" "there is no terminal to ask on" "teardown-host, BOX_YES=$v: refused for want of consent"
		fi
		expect_eq "$(stack_snap)" "$_s0" "teardown-host, BOX_YES=$v: the stack and its boxes untouched"
	done
}
if nft list table inet box_test_guard >/dev/null 2>&1 &&	# before any box
    BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 ./box setup-host >"$T/purge-setup.log" 2>&1 &&
    ./box new --name ${P}purge --image box-test-busybox >"$T/purge-new.log" 2>&1; then
	teardown_refusals
	inst BOX_YES=1 BOX_HOME="$PG/home" BOX_BIN="$PG/bin" BOX_INSTALL_SOURCE="$A"
	expect_eq "$RC" 0 "purge: an install beside a live stack"
	before=$(snap "$PG")
	out=$(setsid -w env BOX_BIN="$PG/bin" "$PG/bin/box" uninstall --all --purge-host </dev/null 2>&1); rc=$?
	expect_eq "$rc" 2 "uninstall --all --purge-host without a terminal or consent: exit 2"
	expect_eq "$(snap "$PG")" "$before" "purge refused: the install untouched"
	expect_eq "$(api GET /1.0/instances/${P}purge | json "j['type']")" sync "purge refused: the box is still there"
	expect_eq "$(api GET /1.0/networks/boxnet | json "j['type']")" sync "purge refused: boxnet is still there"
	out=$(BOX_YES=1 BOX_BIN="$PG/bin" "$PG/bin/box" uninstall --all --purge-host 2>&1); rc=$?
	expect_eq "$rc" 0 "uninstall --all --purge-host with BOX_YES: exit 0"
	[ "$rc" = 0 ] || echo "$out"
	for o in instances/${P}purge networks/boxnet network-acls/box-isolate profiles/box-net; do
		expect_eq "$(api GET /1.0/$o | json "str(j.get('error_code'))")" 404 "purge: $o is gone"
	done
	expect_eq "$(nft -j list tables | json "' '.join(sorted(t['table']['name'] for t in j['nftables'] if 'table' in t and t['table']['name'].startswith('box') and t['table']['name'] != 'box_test_guard'))")" \
	    "" "purge: no box nft table remains"
	expect_eq "$(snap "$PG/home"; snap "$PG/bin/box")" "absent: $PG/home
absent: $PG/bin/box" "purge: the install is gone too"
	expect_contains "$out" "uninstalled" "purge: says what it removed"
else
	fail "purge: no egress guard, stack or box: $(tail -3 "$T/purge-setup.log" "$T/purge-new.log" 2>&1)"
fi

# --- inside a real box ----------------------------------------------------------
BX=${P}deb
# gexec CMD: run sh -c CMD in $BX as root (exec with record-output); stdout
# in $GOUT, stderr in $GERR, status in $GRC.
gexec()
{
	_b=$(python3 -c 'import json, sys; print(json.dumps({"command": ["sh", "-c", sys.argv[1]],
	    "record-output": True, "wait-for-websocket": False, "interactive": False,
	    "environment": {"HOME": "/root"}}))' "$1")
	_op=$(api_wait POST "/1.0/instances/$BX/exec" "$_b") || { GRC=255; GOUT=; GERR="exec failed"; return; }
	GRC=$(printf '%s' "$_op" | json "str(j['metadata']['return'])")
	_o=$(printf '%s' "$_op" | json "j['metadata']['output'].get('1', '')")
	_e=$(printf '%s' "$_op" | json "j['metadata']['output'].get('2', '')")
	GOUT=$(api GET "$_o")
	GERR=$(api GET "$_e")
	api DELETE "$_o" >/dev/null
	api DELETE "$_e" >/dev/null
}
push()
{
	curl -sS --unix-socket "$INCUS_SOCK" -X POST -H "X-Incus-uid: 0" \
	    -H "X-Incus-gid: 0" -H "X-Incus-mode: $3" -H "X-Incus-type: file" \
	    -H 'Content-Type: application/octet-stream' --data-binary "@$1" \
	    "http://incus/1.0/instances/$BX/files?path=$2" | grep -q '"status_code":200'
}

# The Debian image (systemd) when this machine has it (BOX_CI_DEBIAN=1 sh
# ci/setup.sh), else the busybox one: the installer needs only a POSIX shell
# and the usual tools, which both have.
IMG=${IT_INST_IMAGE:-box-test-debian}
api GET /1.0/images/aliases/$IMG | grep -q '"status_code":200' || {
	echo "note: no $IMG image here; the in-box cases use box-test-busybox"
	IMG=box-test-busybox
}
if launch $BX $IMG '{"user.box":"1"}' && wait_ipv4 $BX 90 >/dev/null; then
	curl -sS --unix-socket "$INCUS_SOCK" -X POST -H "X-Incus-type: directory" \
	    -H "X-Incus-mode: 0755" "http://incus/1.0/instances/$BX/files?path=/root/rel" >/dev/null
	push "$BINA" "/root/rel/box-$VA-$ARCH" 0755 &&
	    push "$A/SHA256SUMS" /root/rel/SHA256SUMS 0644 &&
	    push "$A/install.sh" /root/rel/install.sh 0644 &&
	    ok "pushed the release into the box" || fail "pushing the release into the box"
	NET='ip -4 -o addr show | awk "{ print \$2, \$4 }"; ip -4 route show'
	gexec "$NET"; net0=$GOUT

	gexec "/root/rel/box-$VA-$ARCH whereami --json"
	expect_eq "$GRC" 0 "whereami --json inside the box exits 0"
	expect_eq "$(printf '%s' "$GOUT" | json "j['verdict']")" box "whereami inside: verdict box"
	expect_eq "$(printf '%s' "$GOUT" | json "j['stamp']")" user.box "whereami inside: the user.box stamp, through the guest API"
	expect_eq "$(printf '%s' "$GOUT" | json "' '.join(sorted(e['signal'] for e in j['evidence'] if e['weight'] != 'info'))")" \
	    "address container guestapi stamp uplink" "whereami inside: evidence (guest API, stamp, container=lxc, uplink, address)"
	gexec "/root/rel/box-$VA-$ARCH whereami"
	expect_contains "$GOUT" "inside a box" "whereami text inside"
	expect_contains "$GOUT" "#80" "whereami text inside names the outage"

	# As an agent would: the script piped into sh, BOX_YES given.
	gexec "cd /root/rel && cat install.sh | BOX_YES=1 BOX_INSTALL_SOURCE=/root/rel sh"
	expect_eq "$GRC" 1 "installer inside a box: refused (exit 1)"
	expect_contains "$GERR" "inside a box" "refusal says where"
	expect_contains "$GERR" "#80" "refusal explains the #80 outage"
	expect_contains "$GERR" "BOX_ALLOW_NESTED=1" "refusal names the CLI-only way"
	gexec 'for p in /opt/box /usr/local/bin/box /root/.local/share/box /root/.local/bin/box; do
	    [ -e $p ] || [ -L $p ] && echo "present $p"; done; ip link show boxnet >/dev/null 2>&1 && echo "present boxnet"; :'
	expect_eq "$GOUT" "" "refused: no /opt/box, no box command, no boxnet inside"
	gexec "$NET"
	expect_eq "$GOUT" "$net0" "refused: the box's addresses and routes are unchanged"

	# Every verb that would build or change a host stack: one rule, the
	# installer's (issue: a plain `sudo box setup-host` inside a box would
	# have installed Incus and built a nested bridge).
	B="/root/rel/box-$VA-$ARCH"
	SEEN='command -v incus incusd; ls /usr/libexec/incus 2>/dev/null; ip link show boxnet >/dev/null 2>&1 && echo "present boxnet"; '"$B"' firewall show --json 2>/dev/null | grep -o "\"inet_table\":[a-z]*"; :'
	gexec "$SEEN"; seen0=$GOUT
	expect_contains "$seen0" '"inet_table":false' "inside the box: no box firewall to begin with"
	gexec "$B setup-host"
	expect_eq "$GRC" 1 "setup-host inside a box: refused (exit 1)"
	expect_contains "$GERR" "refusing to setup-host: this machine is inside a box" "setup-host refusal says where"
	expect_contains "$GERR" "#80" "setup-host refusal explains the #80 outage, like the installer"
	expect_contains "$GERR" "BOX_ALLOW_NESTED=1 box setup-host" "setup-host refusal names the one override"
	gexec "$B setup-host --dry-run"
	expect_eq "$GRC" 0 "setup-host --dry-run inside a box still plans (exit 0)"
	expect_contains "$GOUT" "refused    inside a box: box setup-host would refuse" "the dry run says the real run would be refused"
	gexec "$B setup-host --dry-run --json"
	expect_eq "$(printf '%s' "$GOUT" | json "str(j['refused_nested'])")" True "--dry-run --json: refused_nested true"
	gexec "$B teardown-host --yes"
	expect_eq "$GRC" 1 "teardown-host --yes inside a box: refused (exit 1)"
	expect_contains "$GERR" "refusing to teardown-host" "teardown-host refusal names the verb"
	gexec "$B firewall apply --subnet 10.89.0.0/24"
	expect_eq "$GRC" 1 "firewall apply inside a box: refused (exit 1)"
	expect_contains "$GERR" "refusing to firewall apply" "firewall apply refusal names the verb"
	gexec "$B uninstall --all --purge-host --force"
	expect_eq "$GRC" 1 "uninstall --all --purge-host inside a box: refused (exit 1)"
	gexec "$SEEN"
	expect_eq "$GOUT" "$seen0" "refused verbs changed nothing: no Incus installed, no boxnet, no nft table"
	gexec "$NET"
	expect_eq "$GOUT" "$net0" "refused verbs: the box's addresses and routes are unchanged"
	gexec "BOX_ALLOW_NESTED=1 $B setup-host --dry-run --json"
	expect_eq "$GRC" 0 "BOX_ALLOW_NESTED=1 setup-host --dry-run: exit 0"
	own=$(printf '%s\n' "$net0" | awk '$1 == "eth0" { split($2, a, "."); print a[1] "." a[2] "." a[3] ".0"; exit }')
	expect_eq "$(printf '%s' "$GOUT" | json "str(j['refused_nested']) + ' ' + str(j['subnet']['network'] != '$own')")" "False True" "BOX_ALLOW_NESTED=1: planned, on a subnet other than the box's own ($own)"
	expect_contains "$GERR" "BOX_ALLOW_NESTED=1: setup-host goes ahead" "the override is said"

	gexec "cd /root/rel && cat install.sh | BOX_YES=1 BOX_ALLOW_NESTED=1 BOX_INSTALL_SOURCE=/root/rel sh"
	expect_eq "$GRC" 0 "BOX_ALLOW_NESTED=1 inside a box: exit 0"
	expect_contains "$GOUT" "no host stack" "BOX_ALLOW_NESTED=1: says no host stack"
	gexec "readlink /usr/local/bin/box; /usr/local/bin/box --version; sed -n 's/^mode=//p' /opt/box/versions/$VA/MANIFEST; ip link show boxnet >/dev/null 2>&1 && echo 'present boxnet'; :"
	expect_contains "$GOUT" "/opt/box/current/box" "nested CLI: /usr/local/bin/box -> /opt/box/current/box"
	expect_contains "$GOUT" "box $VA " "nested CLI: it runs"
	expect_contains "$GOUT" "cli-only-nested" "nested CLI: the manifest says CLI only"
	case $GOUT in *"present boxnet"*) fail "nested CLI: a boxnet appeared" ;; *) ok "nested CLI: still no boxnet" ;; esac
	gexec "$NET"
	expect_eq "$GOUT" "$net0" "nested CLI: addresses and routes unchanged"
	# A pin onto the box's own subnet is no way out; a free one is.
	own=$(printf '%s\n' "$net0" | awk '$1 == "eth0" { split($2, a, "."); print a[1] "." a[2] "." a[3] ".0/24"; exit }')
	gexec "cd /root/rel && cat install.sh | BOX_YES=1 BOX_ALLOW_NESTED=1 BOX_SUBNET=$own BOX_INSTALL_SOURCE=/root/rel sh"
	expect_contains "$GOUT" "no host stack" "BOX_SUBNET on the box's own subnet ($own): still no host stack"
	gexec "cd /root/rel && cat install.sh | BOX_YES=1 BOX_ALLOW_NESTED=1 BOX_SUBNET=203.0.113.0/24 BOX_INSTALL_SOURCE=/root/rel sh"
	expect_contains "$GOUT" "no host stack" "BOX_SUBNET on a public subnet: no host stack either"
	gexec "cd /root/rel && cat install.sh | BOX_YES=1 BOX_ALLOW_NESTED=1 BOX_SUBNET=10.99.0.0/24 BOX_SKIP_SETUP_HOST=1 BOX_INSTALL_SOURCE=/root/rel sh"
	expect_contains "$GOUT" "claimed by nothing here" "BOX_SUBNET on a free subnet: a host stack would be allowed"
	gexec "/usr/local/bin/box whereami --json"
	expect_eq "$(printf '%s' "$GOUT" | json "j['verdict']")" box "installed CLI inside still says box"
else
	fail "launching $BX from $IMG"
fi

cleanup_prefix "$P" || fail "cleanup"
[ -z "$(api GET /1.0/instances | grep -o "\"/1.0/instances/${P}[^\"]*\"")" ] && ok "every test container removed" ||
    fail "test containers left behind"
summary
