#!/bin/sh
# box's guard (src/host/guard/) measured from inside a real box.  The box
# sends a UDP probe every millisecond (tests/integration/gdprobe.c, pushed
# in static) to three targets the contract forbids, all made here:
#   the LAN      192.168.79.10 in the namespace boxit-gd-lan (behind the
#                veth gdlan0; Incus's own ACL drops it too)
#   benchmarking 198.18.79.10 on that namespace's loopback (only box's
#                `inet box` drops 198.18.0.0/15: the target a single edited
#                rule of box's opens)
#   the host     192.168.79.1, the host's end of gdlan0 (the input path)
# and recorders there note every probe that arrives.  While the guard runs,
# the test rewrites the firewall the way other software does - the whole
# ruleset flushed (20 times: the issue's figure), table inet box flushed,
# one rule deleted, one verdict turned to accept, the table deleted - and
# measures from the probes that got through the window each edit opened:
# median and worst, against the issue's target (<= 100 ms), plus the
# stalls of the probe itself (a busy machine).  A chain's policy changed
# (which closes rather than opens) and table bridge box deleted are judged
# by reading back.  After every heal the tables read back equal, by
# content (nft's own listing, set elements included), to what they were
# before the edit.  Control for each edit: the guard stopped, the same
# edit lets the probes through and they stay through until `box firewall
# apply`.
#
# The ruleset flush is a real one, but in one transaction with the test
# harness's egress guard (inet box_test_guard) put back, so that table is
# never missing; Incus's own tables go with the flush, as they would on a
# real host, and are put back (their saved text) after the flush trials.
# A guard that ran before is stopped for the test and started again after
# with its own command line; the host is left as found.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=boxit-gd-
B=${P}a
NS=boxit-gd-lan
VH=gdlan0
HADDR=192.168.79.1
LADDR=192.168.79.10
BADDR=198.18.79.10
D="/usr/bin/python3 tests/drill/dr.py"
N=${IT_GUARD_N:-20}		# ruleset flushes
NK=${IT_GUARD_NK:-5}		# trials of each other edit
TARGET_MS=100			# the issue's: at most a 100 ms window
T=$(mktemp -d /tmp/boxit-gd.XXXXXX)
GP=$T/gdprobe
export BOX_GUARD=0 BOX_GUARD_LOG=$T/guard.log
unset BOX_SUBNET

stack_before=$(api GET /1.0/networks/boxnet | json "j['type']")
guard_before=
guard_argv=
if [ -s /run/box-guard.pid ]; then
	_p=$(cat /run/box-guard.pid)
	if tr '\0' ' ' <"/proc/$_p/cmdline" 2>/dev/null | grep -q ' guard run'; then
		guard_before=$_p
		guard_argv=$T/guard.argv
		cp "/proc/$_p/cmdline" "$guard_argv"
	fi
fi
recs=""
gsup=

# guard_pids: the supervisor (its pid file, and the one we started) and
# its children
guard_pids()
{
	for _s in $(cat /run/box-guard.pid 2>/dev/null) $gsup; do
		[ -d "/proc/$_s" ] || continue
		echo "$_s" $(cat /proc/"$_s"/task/*/children 2>/dev/null)
	done
}

guard_stop()
{
	_ps=$(guard_pids)
	[ -n "$_ps" ] || return 0
	kill $_ps 2>/dev/null
	_i=0
	for _p in $_ps; do
		while [ -d "/proc/$_p" ] && [ $_i -lt 200 ]; do
			sleep 0.05; _i=$((_i + 1))
		done
	done
	for _p in $_ps; do
		[ -d "/proc/$_p" ] && kill -9 "$_p" 2>/dev/null
	done
	gsup=
	rm -f /run/box-guard.pid
	return 0
}

# guard_start: ours (./box), supervised as setup-host's is; waits for its
# "start" record (it subscribed before it logs it)
guard_start()
{
	_n=$(grep -c "	start	" "$BOX_GUARD_LOG" 2>/dev/null)
	setsid "$BOX" guard run </dev/null >>"$T/guard.out" 2>&1 &
	gsup=$!
	# (it asks Incus for the port bindings before it says "start": slow
	# on a busy daemon)
	_i=0
	while [ "$(grep -c "	start	" "$BOX_GUARD_LOG" 2>/dev/null)" = "${_n:-0}" ]; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || { cat "$T/guard.out"; return 1; }
		sleep 0.05
	done
	[ -n "$(guard_pids)" ]
}

cleanup()
{
	guard_stop
	for _r in $recs; do kill "$_r" 2>/dev/null; done
	restore_foreign
	cleanup_prefix $P >/dev/null 2>&1
	ip link del $VH 2>/dev/null
	ip route del $BADDR/32 2>/dev/null
	ip netns del $NS 2>/dev/null
	if [ "$stack_before" = sync ]; then
		$BOX firewall apply >/dev/null 2>&1
	else
		$BOX teardown-host --yes >/dev/null 2>&1
	fi
	if [ -n "$guard_argv" ]; then
		# the guard that ran before, as it was started (its own log)
		env -u BOX_GUARD_LOG -u BOX_GUARD python3 -c 'import os, sys
a = open(sys.argv[1], "rb").read().split(b"\0")[:-1]
os.setsid()
os.execv(a[0], a)' "$guard_argv" </dev/null >>/var/log/box-guard.out 2>&1 &
		_i=0
		until [ -n "$(guard_pids)" ] || [ $_i -ge 100 ]; do
			sleep 0.05; _i=$((_i + 1))
		done
	fi
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

# restore_foreign: put back the foreign tables a flush took (the saved
# text; a table present again - Incus re-made it - is left as it is)
restore_foreign()
{
	for _f in "$T"/foreign.*.nft; do
		[ -f "$_f" ] || continue
		_t=$(sed -n '1s/^table \([a-z]*\) \([^ ]*\) {$/\1 \2/p' "$_f")
		[ -n "$_t" ] || continue
		nft list table $_t >/dev/null 2>&1 || nft -f "$_f"
	done
}

# readback: box's two tables as nft lists them, set elements included,
# without what changes by itself (the conntrack cap's dynamic set, the
# handles, counters)
readback()
{
	{ nft -s list table inet box; nft -s list table bridge box; } 2>&1 |
	    python3 -c '
import re, sys
out, skip = [], False
for l in sys.stdin:
	if re.match(r"\s*set box_conns \{", l):
		skip = True
	if not skip:
		out.append(l)
	elif re.match(r"\s*\}\s*$", l):
		skip = False
print("".join(out), end="")'
}

nft list table inet box_test_guard >/dev/null 2>&1 || { fail "egress guard missing"; summary; }
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }

# --- the world ---------------------------------------------------------------
if musl-gcc -static -O2 -o "$GP" tests/integration/gdprobe.c >"$T/cc" 2>&1; then
	ok "build gdprobe (static)"
else
	cat "$T/cc"; fail "build gdprobe"; summary
fi
ip netns del $NS 2>/dev/null; ip link del $VH 2>/dev/null
if ip netns add $NS &&
    ip link add $VH type veth peer name eth0 netns $NS &&
    ip addr add $HADDR/24 dev $VH && ip link set $VH up &&
    ip -n $NS link set lo up &&
    ip -n $NS addr add $LADDR/24 dev eth0 && ip -n $NS link set eth0 up &&
    ip -n $NS addr add $BADDR/32 dev lo &&
    ip -n $NS route add default via $HADDR &&
    ip route add $BADDR/32 via $LADDR dev $VH &&
    ip -o route get $LADDR | grep -q " dev $VH " &&
    ip -o route get $BADDR | grep -q " dev $VH "; then
	ok "the LAN namespace, routed through $VH only"
else
	fail "building the LAN namespace"; summary
fi
# recorders, line-buffered into files
_rec()	# NAME CMD...
{
	_n=$1; shift
	"$@" >"$T/rec-$_n" 2>"$T/rec-$_n.err" &
	recs="$recs $!"
}
_rec h "$GP" recv $HADDR:9078
_rec l ip netns exec $NS "$GP" recv $LADDR:9079
_rec b ip netns exec $NS "$GP" recv $BADDR:9080
sleep 0.3
for _n in h l b; do
	grep -q ready "$T/rec-$_n.err" || { fail "recorder $_n: $(cat "$T/rec-$_n.err")"; summary; }
done

# --- the stack and a box ------------------------------------------------------
if [ -n "$guard_before" ]; then
	guard_stop && ok "the guard that ran (pid $guard_before) stopped for the test" ||
	    { fail "stopping the running guard"; summary; }
fi
if [ "$stack_before" != sync ]; then
	out=$(BOX_DNS=$LADDR $BOX setup-host 2>&1) || { echo "$out"; fail "setup-host"; summary; }
fi
$BOX firewall apply >/dev/null 2>&1 || fail "firewall apply before the test"
$D launch $B box-test-busybox box-net || { fail "launching $B"; summary; }
BIP=$($D ipv4 $B 10. 60) || { fail "$B got no lease"; summary; }
# the lease hook binds its port (table bridge box's sets) within seconds
i=0
while ! nft list set bridge box box_pins 2>/dev/null | grep -q "$BIP" && [ $i -lt 40 ]; do
	sleep 0.25; i=$((i + 1))
done
nft list set bridge box box_pins | grep -q "$BIP" && ok "$B ($BIP) bound in box_pins" ||
    fail "$B's binding never reached box_pins"
$D push $B "$GP" /gdprobe 0755 || { fail "pushing gdprobe into $B"; summary; }
base=$(readback)
printf '%s\n' "$base" >"$T/base"
$BOX firewall show >/dev/null 2>&1 && ok "the contract in force before any edit (firewall show)" ||
    fail "the contract is not in force before the test"
for f in inet.incus bridge.incus; do
	nft -s list table ${f%%.*} ${f#*.} >"$T/foreign.$f.nft" 2>/dev/null || rm -f "$T/foreign.$f.nft"
done
nft -s list table inet box_test_guard >"$T/egress.nft" || { fail "saving the egress guard"; summary; }

# --- the edits -----------------------------------------------------------------
handle()	# the handle of inet box forward's 198.18.0.0/15 drop
{
	nft -a list chain inet box forward | sed -n 's/.*198\.18\.0\.0\/15 drop .*# handle \([0-9]*\)$/\1/p'
}
edit()
{
	case $1 in
	flush-ruleset)
		{ echo "flush ruleset"; cat "$T/egress.nft"; } | nft -f - ;;
	flush-table) nft flush table inet box ;;
	delete-rule) nft delete rule inet box forward handle "$(handle)" ;;
	accept) nft replace rule inet box forward handle "$(handle)" \
	    iifname boxnet ip daddr 198.18.0.0/15 accept ;;
	delete-table) nft delete table inet box ;;
	policy) nft chain inet box forward '{ policy drop ; }' ;;
	delete-bridge) nft delete table bridge box ;;
	esac
}

# trials KIND N GUARD: N edits of KIND, 0.3 s quiet before each and 0.8 s
# after (GUARD 0: the control, 1.5 s after, then firewall apply); a line
# "KIND GUARD i t0 t1 tend rb" each into $T/trials (rb: the read-back by
# content equals the one before the test, 1/0; - for the control)
trials()
{
	_i=1
	while [ $_i -le $2 ]; do
		sleep 0.3
		_t0=$("$GP" now)
		edit $1 || fail "$1: the edit itself failed"
		_t1=$("$GP" now)
		if [ "$3" = 1 ]; then
			sleep 0.8
			_te=$("$GP" now)
			readback >"$T/rb"
			cmp -s "$T/rb" "$T/base" && _rb=1 || {
				_rb=0
				diff "$T/base" "$T/rb" | head -20 >>"$T/rbdiff.$1"
			}
		else
			sleep 1.5
			_te=$("$GP" now)
			_rb=-
			$BOX firewall apply >/dev/null 2>&1 || fail "$1 control: firewall apply"
		fi
		echo "$1 $3 $_i $_t0 $_t1 $_te $_rb" >>"$T/trials"
		_i=$((_i + 1))
	done
}

# a phase: the box probes every ms for SECS while CMD runs
phase()	# NAME SECS CMD...
{
	_ph=$1 _s=$2; shift 2
	$D exec $B $((_s + 60)) -- /gdprobe send "$_s" 1000 \
	    $LADDR:9079 $BADDR:9080 $HADDR:9078 >"$T/send.$_ph" 2>&1 &
	_sp=$!
	sleep 0.5
	"$@"
	wait $_sp || fail "$_ph: the probe in $B: $(cat "$T/send.$_ph")"
}

ANALYSE=$T/analyse.py
cat >"$ANALYSE" <<'EOF'
import glob, statistics, sys
T, kind, guard = sys.argv[1], sys.argv[2], sys.argv[3]
got = []
for f in glob.glob(T + "/rec-?"):
	for l in open(f):
		p = l.split()
		if len(p) == 4:
			got.append(int(p[1]))
got.sort()
gaps, spans = [], []
for f in glob.glob(T + "/send.*"):
	for l in open(f):
		p = l.split()
		if len(p) == 3 and p[0] == "gap":
			gaps.append((int(p[1]), int(p[2])))
		if len(p) == 3 and p[0] == "span":
			spans.append((int(p[1]), int(p[2])))
import bisect
out = []
for l in open(T + "/trials"):
	k, g, i, t0, t1, te, rb = l.split()
	if k != kind or g != guard:
		continue
	t0, t1, te = int(t0), int(t1), int(te)
	if not any(a <= t0 - 300000000 and te <= b for a, b in spans):
		print("unmeasured: the probe was not sending all through trial %s" % i)
		continue
	lo, hi = bisect.bisect_left(got, t0 - 300000000), bisect.bisect_right(got, te)
	before = [s for s in got[lo:hi] if s < t0]
	after = [s for s in got[lo:hi] if s >= t0]
	w = (after[-1] - after[0]) / 1e6 + 1 if after else 0.0
	# the probe's own pauses that overlap the edit's first 150 ms
	stall = max([u for a, u in gaps if a <= t0 + 150000000 and a + u * 1000 >= t0] or [0]) / 1e3
	tail = (te - after[-1]) / 1e6 if after else -1
	out.append((w, len(after), len(before), stall, tail, (t1 - t0) / 1e6, rb, (te - t0) / 1e6))
for o in out:
	print("trial window %.1f ms, %d probes through, %d before the edit, probe stall %.1f ms, last through %.0f ms before the end, edit took %.1f ms, readback %s, observed %.0f ms" % o)
ws = [o[0] for o in out]
if ws:
	print("summary %d %.1f %.1f %d %.1f %d" % (len(ws), statistics.median(ws), max(ws),
	    sum(o[2] for o in out), max(o[3] for o in out), min(o[1] for o in out)))
EOF
# judge KIND: median, worst against the target; nothing before an edit
judge()
{
	python3 "$ANALYSE" "$T" "$1" 1 >"$T/an.$1"
	sed 's/^/# /' "$T/an.$1" | grep -v '^# summary'
	grep -q '^unmeasured' "$T/an.$1" && fail "$1: $(grep -c '^unmeasured' "$T/an.$1") trials unmeasured (the probe was not sending)"
	set -- "$1" $(sed -n 's/^summary //p' "$T/an.$1")
	[ $# -eq 7 ] || { fail "$1: no trial measured"; return; }
	echo "# $1: $2 trials, window median $3 ms, worst $4 ms (target <= $TARGET_MS ms); probe stalls up to $6 ms"
	expect_eq "$5" 0 "$1: no probe got through before an edit (the contract held)"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $TARGET_MS else 1)" "$3" &&
	    ok "$1: median window $3 ms <= $TARGET_MS ms" ||
	    fail "$1: median window $3 ms > $TARGET_MS ms"
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $TARGET_MS else 1)" "$4" &&
	    ok "$1: worst window $4 ms <= $TARGET_MS ms" ||
	    fail "$1: worst window $4 ms > $TARGET_MS ms"
	expect_eq "$(grep -c "^$1 1 .* 1\$" "$T/trials")" "$2" "$1: after every heal the tables read back equal to the contract by content"
	[ -f "$T/rbdiff.$1" ] && sed 's/^/# rb /' "$T/rbdiff.$1" | head -20
	$BOX firewall show >/dev/null 2>&1 && ok "$1: firewall show: the contract in force" ||
	    fail "$1: firewall show after the trials"
}
# control KIND: the guard stopped, the edit opened it and it stayed open
control()
{
	python3 "$ANALYSE" "$T" "$1" 0 >"$T/an0.$1"
	sed 's/^/# control: /' "$T/an0.$1" | grep -v 'summary'
	python3 - "$T/an0.$1" "$1" <<'EOF'
import re, sys
for l in open(sys.argv[1]):
	m = re.match(r"trial window ([\d.]+) ms, (\d+) .* last through (-?\d+) ms before the end.*observed (\d+) ms", l)
	if m:
		w, n, tail, obs = float(m[1]), int(m[2]), int(m[3]), int(m[4])
		sys.exit(0 if n > 0 and tail >= 0 and tail < 100 and w > obs - 300 else 1)
sys.exit(1)
EOF
	[ $? -eq 0 ] && ok "control $1: the guard stopped, the probes got through and kept getting through until firewall apply" ||
	    fail "control $1: the guard stopped, the edit did not open the box to the end (setup did not take?)"
}

# --- control first: it also proves the probes reach where they are aimed -------
phase control-flush 4 trials flush-ruleset 1 0
control flush-ruleset
restore_foreign
guard_start && ok "our guard runs (pid $(guard_pids))" || { fail "starting the guard"; summary; }

# --- the ruleset flushed N times -------------------------------------------------
phase flush $((N * 2 + 3)) trials flush-ruleset "$N" 1
judge flush-ruleset
restore_foreign
expect_eq "$(nft list tables | sort | tr '\n' ' ')" "$(printf 'table bridge box\ntable bridge incus\ntable inet box\ntable inet box_test_guard\ntable inet incus\n' | sort | tr '\n' ' ')" "the foreign tables back after the flushes"

# --- each other edit, with its control ---------------------------------------------
for k in flush-table delete-rule accept delete-table; do
	guard_stop || fail "stopping our guard"
	phase control-$k 4 trials $k 1 0
	control $k
	guard_start || { fail "starting the guard again"; summary; }
	phase $k $((NK * 2 + 3)) trials $k "$NK" 1
	judge $k
done

# --- closing edits, judged by reading back ------------------------------------------
for k in policy delete-bridge; do
	for i in $(seq "$NK"); do
		t0=$("$GP" now)
		edit $k || fail "$k: the edit"
		j=0
		until readback | cmp -s - "$T/base" || [ $j -ge 200 ]; do
			sleep 0.005; j=$((j + 1))
		done
		t1=$("$GP" now)
		readback | cmp -s - "$T/base" && echo $(( (t1 - t0) / 1000000 )) >>"$T/rb.$k" ||
		    echo never >>"$T/rb.$k"
		sleep 0.3
	done
	expect_eq "$(grep -c never "$T/rb.$k")" 0 "$k: read back equal to the contract after each of $NK edits"
	echo "# $k: read back clean after $(tr '\n' ' ' <"$T/rb.$k")ms (polled from the edit's start)"
done

# --- the guard keeps box's resolver running -----------------------------------------
# setup-host starts the resolver detached here (no systemd), leaving its
# argv beside its pid file: what the guard starts it again from.  The
# resolver's upstreams as they were (else the LAN namespace: nothing
# answers there, and no query leaves the machine).
GW=$(ip -4 -o addr show dev boxnet | awk '{ sub("/.*", "", $4); print $4; exit }')
rsv_pid()
{
	_p=$(cat /run/box-resolver.pid 2>/dev/null)
	[ -n "$_p" ] && { tr '\0' ' ' <"/proc/$_p/cmdline"; } 2>/dev/null |
	    grep -q ' resolver run ' && echo "$_p"
}
rsv_ok() { python3 tests/integration/dnsq.py q "$GW" box.invalid 2>/dev/null | grep -q 'box resolver: answering'; }
# rsv_wait SECS: until box's resolver answers the host's probe; the ms it took
rsv_wait()
{
	_t0=$("$GP" now)
	_i=0
	until rsv_ok; do
		_i=$((_i + 1))
		[ $_i -lt $(($1 * 20)) ] || return 1
		sleep 0.05
	done
	echo $(( ($("$GP" now) - _t0) / 1000000 ))
}
ups=
_p=$(rsv_pid) && ups=$(tr '\0' '\n' <"/proc/$_p/cmdline" | sed -n '/^--upstream$/{n;p;}' | tr '\n' ' ')
if out=$(BOX_DNS=${ups:-$LADDR} $BOX setup-host 2>&1) && [ -s /run/box-resolver.pid.argv ]; then
	ok "setup-host started the resolver detached, its argv beside its pid file"
else
	printf '%s\n' "$out" | tail -5; fail "setup-host: the resolver's argv file"
fi
guard_stop || fail "stopping our guard"
r1=$(rsv_pid)
[ -n "$r1" ] && rsv_ok && ok "box's resolver runs (pid $r1) and answers the host's probe" ||
    fail "box's resolver is not running before the test"
# the revives of this part: the log's count from here (the measuring part
# above ran a guard too, beside setup-host's resolver)
nrev0=$(grep -c '	revive	' "$BOX_GUARD_LOG" 2>/dev/null)
kill -9 "$r1" 2>/dev/null
sleep 3
expect_eq "$(rsv_pid):$(rsv_ok && echo answers)" ":" "control: the guard stopped, a killed resolver stays dead (3 s)"
guard_start || { fail "starting the guard"; summary; }
if ms=$(rsv_wait 5); then
	ok "the guard started the dead resolver again: it answers $ms ms after the guard started"
else
	fail "the guard did not start the dead resolver again within 5 s"
fi
for i in 1 2 3; do
	r2=$(rsv_pid)
	kill -9 "$r2" 2>/dev/null
	if ms=$(rsv_wait 5); then
		echo "# killed the resolver (pid $r2): it answered again after $ms ms (pid $(rsv_pid))"
	else
		fail "killed the resolver (pid $r2): not back within 5 s"
	fi
done
[ "$(rsv_pid)" != "$r2" ] && [ -n "$(rsv_pid)" ] && ok "the guard kept the resolver running over 3 kills (pid now $(rsv_pid))" ||
    fail "the resolver after 3 kills"
expect_eq "$(tr '\0' ' ' <"/proc/$(rsv_pid)/cmdline" 2>/dev/null | sed 's/ $//')" "$(tr '\0' ' ' </run/box-resolver.pid.argv | sed 's/ $//')" "started again with setup-host's command line"
expect_eq "$(( $(grep -c '	revive	' "$BOX_GUARD_LOG") - ${nrev0:-0} ))" 4 "the guard logged each start again (revive, 4)"
j=$($BOX doctor --json 2>/dev/null)
expect_contains "$(echo "$j" | json "' | '.join(c['text'] for c in j['checks'] if c['id'] == 'guard.revive')")" "the resolver was not running" "doctor: the last revive said (guard.revive)"
expect_eq "$(echo "$j" | json "' '.join(c['status'] for c in j['checks'] if c['id'] == 'guard.revive.often')")" warn "doctor: WARNs that a daemon keeps dying (4 revives in 10 min)"
expect_eq "$(echo "$j" | json "' '.join(c['status'] for c in j['checks'] if c['id'] == 'resolver.own')")" pass "doctor: box's resolver answers (resolver.own)"

# --- what the guard logged -----------------------------------------------------------
echo "# the guard's own windows (notification to clean): $(awk -F'\t' '$2 == "heal" { print $3 }' "$BOX_GUARD_LOG" | sort -n | tr '\n' ' ')"
expect_eq "$(awk -F'\t' '$2 == "close" || $2 == "fail"' "$BOX_GUARD_LOG" | wc -l)" 0 "the guard never failed closed here (every batch took)"
summary
