#!/bin/sh
# The verbs users reach for, against the real daemon (issue 14): restart;
# `all` for start/down/restart (in an Incus project of the test's own, so
# no other box on this host is touched) and `all` refused as a new name;
# `box root` (no sudo, no box user needed); the user a mint records when
# the image made none (busybox: no cloud-init); down --force; import
# --force (asks on a terminal, refuses without one, replaces only after
# the new copy is up); doctor run right after a mint, 20 times; a
# cloud-init that fails or finishes with errors names the module (the
# Debian image, when imported).
#
# Names: $IT_VB_PREFIX (default boxit-vb-), so a run on a shared machine
# can use a prefix of its own.  BOX_DNS is 127.0.0.1 wherever setup-host
# would run; the doctor's in-box probes aim at 127.0.0.1:9 and localhost.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=${IT_VB_PREFIX:-boxit-vb-}
PROJ=${P}proj
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost
tmp=$(mktemp -d /tmp/boxit-vb.XXXXXX)

cleanup_project()
{
	api GET "/1.0/projects/$PROJ" | grep -q '"type":"sync"' || return 0
	for _n in $(api GET "/1.0/instances?project=$PROJ" | json "'\n'.join(
	    i.rsplit('/', 1)[1].split('?')[0] for i in j['metadata'])"); do
		api_wait PUT "/1.0/instances/$_n/state?project=$PROJ" \
		    '{"action":"stop","force":true}' >/dev/null 2>&1
		api_wait DELETE "/1.0/instances/$_n?project=$PROJ" >/dev/null 2>&1
	done
	api_wait DELETE "/1.0/projects/$PROJ" >/dev/null 2>&1
}
cleanup()
{
	cleanup_prefix "$P" >/dev/null 2>&1
	cleanup_project
	rm -rf "$tmp"
}
cleanup_prefix "$P" || { fail "cleanup of leftovers"; summary; }
cleanup_project
trap cleanup EXIT INT TERM



cfg() { api GET "/1.0/instances/$1" | json "j['metadata']['config'].get('$2', '')"; }
state() { api GET "/1.0/instances/$1${2:+?project=$2}" | json "j['metadata']['status']"; }
exists() { api GET "/1.0/instances/$1" | grep -q '"type":"sync"'; }
# pid 1's start time: changes when the box really restarted
boot_of() { "$BOX" root "$1" -- sh -c 'cut -d" " -f22 /proc/1/stat' </dev/null 2>/dev/null; }

nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
if ! api GET /1.0/profiles/box-net | grep -q '"type":"sync"'; then
	BOX_DNS=127.0.0.1 "$BOX" setup-host >"$tmp/setup.log" 2>&1 ||
	    { cat "$tmp/setup.log"; fail "no host stack"; summary; }
fi
ok "box-net profile in place"

run 0 "ready" "mint a busybox box" -- new --name ${P}a --image box-test-busybox

# --- restart ------------------------------------------------------------------
b0=$(boot_of ${P}a)
run 0 "restarted ${P}a" "restart a running box" -- restart ${P}a
expect_contains "$_out" "stopped ${P}a" "restart: stopped first (said)"
expect_eq "$(state ${P}a)" Running "restart: running afterwards"
b1=$(boot_of ${P}a)
[ -n "$b1" ] && [ "$b1" != "$b0" ] && ok "restart: pid 1 is new ($b0 -> $b1)" ||
    fail "restart: pid 1 start time '$b0' -> '$b1'"
t=$(date +%s)
run 0 "stopped ${P}a (forced, at once)" "down --force: a forced stop, said" -- down ${P}a --force
[ $(($(date +%s) - t)) -le 10 ] && ok "down --force took $(($(date +%s) - t)) s" ||
    fail "down --force took $(($(date +%s) - t)) s"
run 0 "started ${P}a" "restart of a stopped box starts it" -- restart ${P}a
expect_contains "$_out" "was not running" "restart: says the box was not running"
expect_eq "$(state ${P}a)" Running "restart of a stopped box: running"
run 2 "usage: box restart" "restart takes one box" -- restart
"$BOX" help | grep -q "^  restart " && ok "restart in box help" || fail "restart not in box help"

# --- the words people try -------------------------------------------------------
run 2 "usage: box down" "stop is down (an alias)" -- stop
run 2 "usage: box rm" "delete is rm (an alias)" -- delete
run 2 "usage: box start" "up is start (an alias)" -- up
run 0 "usage: box down" "help stop shows down's page" -- help stop
run 2 "did you mean 'list'" "lsit: suggests list" -- lsit
_o=$("$BOX" dlete 2>&1)
case $_o in *"did you mean 'rm'"*) ok "dlete (one off delete): rm suggested" ;;
*) fail "dlete: $_o" ;; esac
_o=$("$BOX" xy 2>&1)
case $_o in *"did you mean"*) fail "xy: a suggestion for a total rewrite: $_o" ;;
*) ok "xy: no suggestion" ;; esac
"$BOX" help | grep -q '^ALIASES' && ok "box help lists the aliases" || fail "no ALIASES in box help"
"$BOX" help | grep -q '^  BOX_LAUNCH_TIMEOUT' && ok "box help lists the environment" ||
    fail "BOX_LAUNCH_TIMEOUT not in box help"

# --- all ----------------------------------------------------------------------
# The project shares the default project's images and profiles; `all`
# there sees only its own boxes.
api_wait POST /1.0/projects "{\"name\":\"$PROJ\",\"config\":{\"features.images\":\"false\",
 \"features.profiles\":\"false\",\"features.storage.volumes\":\"false\",
 \"features.networks\":\"false\"}}" >/dev/null || fail "create project $PROJ"
BOX_PROJECT=$PROJ run 0 "ready" "mint p1 in the test's project" -- new --name ${P}p1 --image box-test-busybox
BOX_PROJECT=$PROJ run 0 "ready" "mint p2 in the test's project" -- new --name ${P}p2 --image box-test-busybox
BOX_PROJECT=$PROJ run 0 "stopped ${P}p2" "down all" -- down all --force
expect_contains "$_out" "stopped ${P}p1" "down all: p1 too"
expect_eq "$(state ${P}p1 $PROJ)/$(state ${P}p2 $PROJ)" Stopped/Stopped "down all: both stopped"
expect_eq "$(state ${P}a)" Running "down all in a project leaves other projects' boxes alone"
BOX_PROJECT=$PROJ run 0 "already stopped" "down all again: already stopped is fine" -- down all --force
BOX_PROJECT=$PROJ run 0 "started ${P}p1" "start all" -- start all --force
expect_eq "$(state ${P}p1 $PROJ)/$(state ${P}p2 $PROJ)" Running/Running "start all: both running"
BOX_PROJECT=$PROJ run 0 "stopped ${P}p2" "down one" -- down ${P}p2 --force
BOX_PROJECT=$PROJ run 0 "restarted ${P}p1" "restart all" -- restart all --force
expect_contains "$_out" "${P}p2 is Stopped; left as it is" "restart all leaves a stopped box stopped (said)"
expect_eq "$(state ${P}p1 $PROJ)/$(state ${P}p2 $PROJ)" Running/Stopped "restart all: running restarted, stopped left"

# (an old box made one: removed at once, only when it is this test's own)
drop_all()
{
	case $(cfg all user.box.image)/$(cfg all user.box.origin.from) in
	box-test-busybox/ | */${P}a)
		fail "a box named all was made"
		api_wait PUT /1.0/instances/all/state '{"action":"stop","force":true}' >/dev/null
		api_wait DELETE /1.0/instances/all >/dev/null ;;
	esac
}
run 2 "'all' cannot name a box" "new --name all is refused" -- new --name all --image box-test-busybox
exists all && drop_all
run 2 "'all' cannot name a box" "clone --name all is refused" -- new --name all --from ${P}a
exists all && drop_all
run 0 "stopped" "stop a for rename" -- down ${P}a --force
run 2 "'all' cannot name a box" "rename to all is refused" -- rename ${P}a all
run 0 "exported" "export a" -- export ${P}a "$tmp/a.tar.gz"
run 2 "'all' cannot name a box" "import --name all is refused" -- import "$tmp/a.tar.gz" --name all
exists all && fail "import made a box named all" || ok "nothing named all was made"
run 0 "started" "start a again" -- start ${P}a

# --- root ----------------------------------------------------------------------
out=$("$BOX" root ${P}a -- sh -c 'id -u; echo "$HOME $USER"' </dev/null 2>&1); rc=$?
expect_eq "$rc/$out" "0/0
/root root" "box root runs as uid 0 with root's login environment"
out=$(echo 'id -u' | "$BOX" root ${P}a 2>&1)
expect_eq "$out" 0 "box root without a command: a root login shell (stdin fed)"
api_wait PATCH /1.0/instances/${P}a '{"config":{"user.box.user":"ghost"},"description":""}' >/dev/null
run 126 "no user 'ghost'" "exec as a user the box lacks fails (126)" -- exec ${P}a -- true
out=$("$BOX" root ${P}a -- id -un </dev/null 2>&1); rc=$?
expect_eq "$rc/$out" "0/root" "box root works when the box's user is missing"
"$BOX" root ${P}a -- sh -c 'command -v sudo >/dev/null' </dev/null && fail "the image has sudo" ||
    ok "box root needed no sudo (the image has none)"
"$BOX" root ${P}a -- sh -c 'sed -i /^root:/d /etc/passwd' </dev/null
out=$("$BOX" root ${P}a -- sh -c 'id -u; echo $HOME' </dev/null 2>&1); rc=$?
expect_eq "$rc/$out" "0/0
/root" "box root works on an image whose /etc/passwd has no root line"
run 2 "usage: box root" "box root with a stray argument" -- root ${P}a id

# --- the user a mint records ---------------------------------------------------
mkdir -p "$tmp/tpl/vb-nouser"
printf 'BOX_DESCRIPTION="a user the image lacks"\nBOX_IMAGE="box-test-busybox"\nBOX_USER="tester"\nBOX_CPU="1"\nBOX_MEMORY="256MiB"\n' \
    >"$tmp/tpl/vb-nouser/box.env"
printf '#cloud-config\nusers:\n  - name: tester\n' >"$tmp/tpl/vb-nouser/user-data.yaml"
BOX_TEMPLATES=$tmp/tpl run 0 "its user is root" "mint: an image without cloud-init and without the user" -- \
    new --name ${P}u --template vb-nouser
expect_contains "$_out" "the box has no user 'tester'" "the mint says the user is missing"
expect_eq "$(cfg ${P}u user.box.user)" root "root is recorded as the box's user"
out=$("$BOX" exec ${P}u -- id -u </dev/null 2>&1); rc=$?
expect_eq "$rc/$out" "0/0" "exec works in it (as root)"
expect_eq "$(cfg ${P}a user.box.user)" ghost "(a's user was changed by hand above)"
run 0 "ready" "mint: blank on busybox (the image has dev)" -- new --name ${P}d --image box-test-busybox
expect_eq "$(cfg ${P}d user.box.user)" dev "an image with the template's user keeps it"
expect_contains "$_out" "has a user 'dev' of its own" "and says so"

# --- import --force -------------------------------------------------------------
api_wait PATCH /1.0/instances/${P}a '{"config":{"user.box.user":"root"},"description":""}' >/dev/null
"$BOX" root ${P}a -- sh -c 'echo after-export > /root/marker' </dev/null
run 1 "already exists" "import onto a taken name: refused" -- import "$tmp/a.tar.gz" --name ${P}a
expect_contains "$_out" "--force" "the refusal names --force"
run 2 "no terminal" "import --force without a terminal: exit 2" -- import "$tmp/a.tar.gz" --name ${P}a --force
BOX_YES=1 run 2 "no terminal" "import --force: BOX_YES is not consent" -- import "$tmp/a.tar.gz" --name ${P}a --force
out=$(pty n "$BOX" import "$tmp/a.tar.gz" --name ${P}a --force 2>&1); rc=$?
expect_eq "$rc" 1 "import --force: 'n' at the prompt aborts"
expect_contains "$out" "replace box ${P}a" "the question names the box"
expect_eq "$("$BOX" root ${P}a -- cat /root/marker </dev/null)" after-export "declined: the box is untouched"
head -c 20000 "$tmp/a.tar.gz" >"$tmp/cut.tar.gz"
sha256sum "$tmp/cut.tar.gz" | cut -d' ' -f1 >"$tmp/cut.tar.gz.sha256"
out=$(pty y "$BOX" import "$tmp/cut.tar.gz" --name ${P}a --force 2>&1); rc=$?
expect_eq "$rc" 1 "import --force of a broken file fails"
expect_eq "$("$BOX" root ${P}a -- cat /root/marker </dev/null)" after-export "a failed replacement loses nothing"
out=$(pty y "$BOX" import "$tmp/a.tar.gz" --name ${P}a --force 2>&1); rc=$?
expect_eq "$rc" 0 "import --force: 'y' replaces the box"
expect_contains "$out" "removed the old ${P}a (the new one had imported cleanly)" "the old one went only after"
expect_eq "$(state ${P}a)" Running "the replacement is running under the name"
"$BOX" root ${P}a -- test -e /root/marker </dev/null && fail "the marker survived the replacement" ||
    ok "the box is the exported one (the later marker is gone)"
expect_eq "$(api GET /1.0/instances | grep -c -- "${P}a-import")" 0 "no temporary box left behind"

# --- doctor right after a mint, 20 times ------------------------------------------
bad=0
i=1
while [ $i -le 20 ]; do
	"$BOX" new --name ${P}m$i --image box-test-busybox </dev/null >"$tmp/m.out" 2>&1 ||
	    { bad=$((bad + 1)); fail "mint ${P}m$i: $(tail -2 "$tmp/m.out")"; }
	"$BOX" doctor ${P}m$i </dev/null >"$tmp/d.out" 2>&1
	if grep -q "box ${P}m$i:.*\(unreadable\|did not finish\|could not run\)" "$tmp/d.out" ||
	    ! grep -q "box ${P}m$i: 127.0.0.1:9 by address" "$tmp/d.out"; then
		bad=$((bad + 1))
		fail "doctor right after mint $i: $(grep "box ${P}m$i" "$tmp/d.out" | grep -v PASS | head -3)"
	fi
	left=$("$BOX" exec ${P}m$i -- sh -c 'ls -a /tmp | grep -c box-doctor' </dev/null 2>/dev/null)
	[ "$left" = 0 ] || { bad=$((bad + 1)); fail "doctor left files in ${P}m$i's /tmp: $left"; }
	api_wait PUT /1.0/instances/${P}m$i/state '{"action":"stop","force":true}' >/dev/null
	api_wait DELETE /1.0/instances/${P}m$i >/dev/null
	i=$((i + 1))
done
expect_eq "$bad" 0 "doctor right after a mint read the in-box report 20 times of 20"

# --- cloud-init that fails, or finishes with errors (Debian) ---------------------
if api GET /1.0/images/aliases/box-test-debian | grep -q '"type":"sync"'; then
	mkdir -p "$tmp/tpl/vb-err" "$tmp/tpl/vb-deg"
	printf 'BOX_DESCRIPTION="vb"\nBOX_IMAGE="box-test-debian"\nBOX_USER="dev"\nBOX_CPU="1"\nBOX_MEMORY="512MiB"\n' \
	    >"$tmp/tpl/vb-err/box.env"
	cp "$tmp/tpl/vb-err/box.env" "$tmp/tpl/vb-deg/box.env"
	cat >"$tmp/tpl/vb-err/user-data.yaml" <<'EOF'
#cloud-config
users:
  - name: dev
write_files:
  - path: /proc/vb-cannot/file
    content: "x"
EOF
	# cloud-init 22.4 (the test image's) has no "degraded" finish; this
	# stands in for a newer one whose package step met no mirror: its
	# `status` says done and exits 2, its log blames the module.
	cat >"$tmp/tpl/vb-deg/user-data.yaml" <<'EOF'
#cloud-config
users:
  - name: dev
write_files:
  - path: /usr/local/bin/cloud-init
    permissions: '0755'
    content: |
      #!/bin/sh
      [ "$1" = status ] || exec /usr/bin/cloud-init "$@"
      out=$(/usr/bin/cloud-init "$@"); rc=$?
      case $out in *"status: done"*) ;; *) printf '%s\n' "$out"; exit $rc ;; esac
      grep -q cc_package_update_upgrade_install /var/log/cloud-init.log ||
        echo "2026-01-01 00:00:00,000 - cc_package_update_upgrade_install.py[WARNING]: Failed to install packages: no mirror answered" >>/var/log/cloud-init.log
      printf 'status: done\n'
      [ "${2:-}" = --long ] && printf 'extended_status: degraded done\nrecoverable_errors:\nWARNING:\n\t- Failed to install packages\n'
      exit 2
EOF
	BOX_TEMPLATES=$tmp/tpl run 1 "failed in module write-files" "a failed module is named" -- \
	    new --name ${P}ce --template vb-err
	expect_contains "$_out" "would lack what the template asked for" "and what it means"
	exists ${P}ce && fail "${P}ce left behind" || ok "the failed box is removed"
	BOX_TEMPLATES=$tmp/tpl run 0 "cloud-init finished with errors in module" "a degraded cloud-init: said, box kept" -- \
	    new --name ${P}cd --template vb-deg
	expect_contains "$_out" "package_update_upgrade_install" "the module the log blames is named"
	expect_contains "$_out" "may lack what template vb-deg asked for" "the consequence is said under the last line"
	expect_contains "$_out" "minted ${P}cd" "minted"
	exists ${P}cd && ok "the degraded box is kept" || fail "${P}cd removed"
else
	fail "box-test-debian is not imported: the cloud-init checks were skipped (BOX_CI_DEBIAN=1 sh ci/setup.sh)"
fi

# --- the README's first command ------------------------------------------------------
first=$(sed -n '/^```sh/{n;p;q}' README.md)
expect_contains "$first" "./box new --name first --image box-test-busybox && ./box exec first -- uname -a" \
    "the README's first command mints from the local image and runs a command"
out=$("$BOX" new --name ${P}first --image box-test-busybox </dev/null 2>/dev/null &&
    "$BOX" exec ${P}first -- uname -a </dev/null 2>&1); rc=$?
expect_eq "$rc/$(echo "$out" | grep -c Linux)" "0/1" "its mint-and-exec tail works (under a test name)"

summary
