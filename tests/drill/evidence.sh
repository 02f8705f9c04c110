# evidence.sh - issue 21 in the drill: nothing a box says is evidence.
# Sourced by drill.sh after hostile.sh (its pass/fail/note, inbox, $D, adv,
# ctl_ok), run last, on $A and $B.  A hostile agent in the box
# (tests/drill/agent.c, built static here), and the host's own layers
# opened behind box's back; each probe with a control that shows the
# attack landing where the defence is not:
#   V1  a swapper in $A's /tmp (inotify: renames its own script over every
#       .box-* file), the host input chain's drop deleted: box verify
#       reports the host breach (exit 1) and puts nothing into /tmp.
#       Control: the push-run path (this binary pushed into /tmp, run, its
#       report read back) by hand: the swapper's script says "dropped".
#   V2  $B PATCHes itself Ready on the guest API, and one of its NIC-filter
#       rules is deleted: doctor still probes it and FAILs box.filter.
#       Control: the daemon's record says Ready (113): the status a
#       status-text check took for "not running" and skipped.
#   V3  the same box frozen: doctor probes it (its network, from this
#       host's process in its namespace) and FAILs box.filter.  Control: an
#       exec into it (what a push-run probe needs) does not run.
#   V4  a report flood: the swapper, run as doctor, writes 520 passing
#       findings; $B's FAIL still prints in `box doctor`, FAILs first, and
#       $A holds no more than its share.  Control: by hand, the push-run
#       path takes the 520 findings in.
#   V5  the ACL's 10/8 drop removed behind doctor's back: the kernel no
#       longer holds it (read from nft), and doctor FAILs acl.egress;
#       doctor --fix puts it back, the kernel holds it, doctor passes.

EV_AG=

# djson BOX... : box doctor --json on those boxes; the exit in $RUN/dj.rc
djson() { $BOX doctor --json "$@" 2>/dev/null; echo $? >"$RUN/dj.rc"; }
# dstat ID SUBJECT < JSON: that finding's status ("" when absent)
dstat()
{
	$PY -c '
import json, sys
j = json.load(sys.stdin)
for c in j["checks"]:
    if c["id"] == sys.argv[1] and sys.argv[2] in ("", c.get("subject")):
        print(c["status"]); break' "$1" "$2" 2>/dev/null
}
dtext()
{
	$PY -c '
import json, sys
j = json.load(sys.stdin)
for c in j["checks"]:
    if c["id"] == sys.argv[1] and sys.argv[2] in ("", c.get("subject")):
        print(c["text"]); break' "$1" "$2" 2>/dev/null
}

# the verify targets: every one the world's
ev_verify_env()
{
	export BOX_VERIFY_INET_ADDR=$W_INET:80 BOX_VERIFY_INET_NAME=$W_NAME:80
	export BOX_VERIFY_ALLOWED=$W_NAME:80 BOX_VERIFY_REFUSED=other.drill.test:80
	export BOX_VERIFY_LAN_GATEWAY=$W_LAN:80 BOX_VERIFY_LAN_ADDR=$W_LAN:22
	export BOX_VERIFY_FORGE_SRC=$W_FORGE BOX_VERIFY_FORGE_PORT=$W_REC_PORT
	export BOX_VERIFY_HOST_PORT=$W_HOST_PORT BOX_VERIFY_SIBLING_PORT=8088
	export BOX_VERIFY_SIBLING=$BIP
}

# vres TAG ADDR PORT: verify's result and observation for that target
vres()
{
	$PY -c '
import json, sys
for p in json.load(open(sys.argv[1]))["probes"]:
    if p["target"] == sys.argv[2] and str(p["port"]) == sys.argv[3]:
        print(p["result"], p["observed"]); break
else: print("absent")' "$RUN/$1.json" "$2" "$3" 2>/dev/null || echo "no report"
}

# the input chain's "a box never reaches the host" drop, deleted
input_drop_delete()
{
	_h=$(nft -a list chain inet box input 2>/dev/null | sed -n 's/.*"box: a box never reaches the host".*# handle \([0-9]*\).*/\1/p')
	[ -n "$_h" ] && nft delete rule inet box input handle "$_h"
}

ev_swapper()
{
	echo "=== V1: a swapper in $A's /tmp; box verify"
	ev_verify_env
	$D push $A "$EV_AG" /root/agent 0755 >/dev/null 2>&1 &&
	    inbox $A 10 'setsid /root/agent swap /tmp >/root/agent.log 2>&1 </dev/null &' >/dev/null ||
	    { fail "V1 starting the swapper in $A"; return; }
	sleep 1
	input_drop_delete || { fail "V1 deleting the input chain's drop"; return; }
	# the control: the push-run path, by hand, with the same binary
	_cp=/tmp/.box-verify.ctl$$
	_plan=$(printf 'verify-plan 1\nt 2000\np h1\nk tcp\na %s\nport %s\n' "$W_LINK_HOST" "$W_HOST_PORT")
	$D push $A "$BOX" $_cp 0755 >/dev/null 2>&1
	sleep 1
	$D exec $A 30 -- env "BOX_VERIFY_PLAN=$_plan" BOX_INBOX_REPORT=$_cp.json $_cp verify --inside >/dev/null 2>&1
	_ctl=$($D exec $A 10 -- cat $_cp.json 2>/dev/null)
	$D exec $A 10 -- rm -f $_cp $_cp.json >/dev/null 2>&1
	nctl=$((nctl + 1))
	case $_ctl in
	*"v dropped (the swapper)"*) pass "V1 control: the push-run path is fooled: the box's report says $W_LINK_HOST:$W_HOST_PORT dropped while it is open" ;;
	*) fail "V1 control: the push-run path was not fooled (${_ctl:-no report}): this probe shows nothing" ;;
	esac
	_before=$(inbox $A 10 "ls -a /tmp | grep -v -e '^\.agent\.tmp\$' -e '^\.box-verify\.ctl'")
	_t=$(date +%s%N)
	$BOX verify $A --json >"$RUN/v1.json" 2>"$RUN/v1.err"; _rc=$?
	note "box verify $A took $((($(date +%s%N) - _t) / 1000000)) ms ($($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["probes"]))' "$RUN/v1.json" 2>/dev/null) probes)"
	nadv=$((nadv + 1))
	case "$_rc $(vres v1 $W_LINK_HOST $W_HOST_PORT)" in
	"1 breach"*) pass "V1 hostile swapper, hole open: box verify exits 1, $W_LINK_HOST:$W_HOST_PORT a breach ($(vres v1 $W_LINK_HOST $W_HOST_PORT))" ;;
	*) fail "V1 hostile swapper, hole open: box verify exit $_rc, $(vres v1 $W_LINK_HOST $W_HOST_PORT)" ;;
	esac
	_after=$(inbox $A 10 "ls -a /tmp | grep -v -e '^\.agent\.tmp\$' -e '^\.box-verify\.ctl'")
	reached "V1" "box verify put no file into $A's /tmp" "$([ "$_before" = "$_after" ] && echo same || echo "changed: $_after")" same
	$BOX firewall apply >/dev/null 2>&1 || fail "V1 box firewall apply (restoring)"
	$BOX verify $A --json >"$RUN/v1b.json" 2>"$RUN/v1b.err"
	reached "V1" "hole closed, the swapper still there: $W_LINK_HOST:$W_HOST_PORT held" "$(vres v1b $W_LINK_HOST $W_HOST_PORT)" held
}

# the box's fwd.* NIC-filter rule for its source address, deleted
filter_rule_delete()	# NAME
{
	_veth=$($D veth "$1")
	set -- $(nft -a list table bridge incus | awk -v v="\"$_veth\"" '/chain /{c=$2} index($0, v) && /ip saddr !=/ && c ~ /^fwd\./ {print c, $NF; exit}')
	[ $# = 2 ] && nft delete rule bridge incus "$1" handle "$2"
}

ev_ready_frozen_flood()
{
	echo "=== V2-V4: $B Ready, then frozen, its NIC filter cut; a report flood from $A"
	j=$(djson $B)
	reached "V2" "before: doctor passes $B's NIC filter" "$(echo "$j" | dstat box.filter "box $B")" pass
	$D push $B "$EV_AG" /root/agent 0755 >/dev/null 2>&1 &&
	    $D exec $B 10 -- /root/agent ready >/dev/null 2>&1 ||
	    { fail "V2 the agent in $B did not set Ready"; return; }
	ctl_ok "V2" "control: the daemon's record says $B is Ready (the status a status-text check skipped as not running)" \
	    "$($D get /1.0/instances/$B "str(m['status']) + ' ' + str(m['status_code'])")" "Ready 113"
	filter_rule_delete $B || { fail "V2 deleting $B's NIC-filter rule"; return; }
	j=$(djson $B)
	nadv=$((nadv + 1))
	reached "V2" "$B Ready, a NIC-filter rule deleted: doctor FAILs box.filter" "$(echo "$j" | dstat box.filter "box $B")" fail
	reached "V2" "...having keyed on the code and the live init" "$(echo "$j" | dtext box.state "box $B" | grep -o '(code 113), its init')" "(code 113), its init"
	reached "V2" "box list shows the Ready box's address" "$($BOX list --json | $PY -c 'import json, sys; print([b["address"] for b in json.load(sys.stdin) if b["name"] == sys.argv[1]][0])' $B 2>&1)" "$BIP"

	# V4: the flood, while B's FAIL stands
	$D push $A "$BOX" /tmp/.box-doctor.ctl$$ 0755 >/dev/null 2>&1
	sleep 1
	$D exec $A 60 -- env BOX_DOCTOR_INSIDE=1 BOX_INBOX_REPORT=/tmp/.box-doctor.ctl$$.report /tmp/.box-doctor.ctl$$ doctor >/dev/null 2>&1
	_n=$($D exec $A 10 -- sh -c "grep -c '^c ' /tmp/.box-doctor.ctl$$.report" 2>/dev/null | tr -d ' ')
	$D exec $A 10 -- rm -f /tmp/.box-doctor.ctl$$ /tmp/.box-doctor.ctl$$.report >/dev/null 2>&1
	ctl_ok "V4" "control: by hand, the push-run path takes the swapper's flood in (findings in its report)" "${_n:-none}" 520
	_out=$($BOX doctor 2>&1)
	nadv=$((nadv + 1))
	case $_out in
	*"FAIL  box $B: "*) pass "V4 the flood on, every box checked: $B's FAIL prints ($(printf '%s\n' "$_out" | grep -c "^FAIL") FAIL line(s), $(printf '%s\n' "$_out" | grep -c "box $A:") for $A)" ;;
	*) fail "V4 $B's FAIL is not on the screen: $(printf '%s\n' "$_out" | tail -2 | tr '\n' ' ')" ;;
	esac
	reached "V4" "FAILs print first" "$(printf '%s\n' "$_out" | sed -n 2p | cut -c1-4)" FAIL
	reached "V4" "no finding was left off" "$(printf '%s\n' "$_out" | grep -c 'more finding(s) not shown')" 0
	_na=$(printf '%s\n' "$_out" | grep -c "box $A:")
	reached "V4" "$A holds no more than its share (48)" "$([ "$_na" -le 48 ] && echo "within ($_na)" || echo "over ($_na)")" "within"
	inbox $A 10 'kill $(pidof agent) 2>/dev/null' >/dev/null

	# V3: frozen
	$D call PUT /1.0/instances/$B/state '{"action":"freeze","timeout":30}' >/dev/null 2>&1
	reached "V3" "$B frozen (the daemon's record)" "$($D get /1.0/instances/$B "str(m['status_code'])")" 110
	nctl=$((nctl + 1))
	if $D exec $B 10 -- true >/dev/null 2>&1; then
		fail "V3 control: an exec ran in the frozen $B"
	else
		pass "V3 control: an exec into the frozen $B does not run (a push-run probe sees nothing)"
	fi
	j=$(djson $B)
	nadv=$((nadv + 1))
	reached "V3" "$B frozen, its NIC filter cut: doctor FAILs box.filter" "$(echo "$j" | dstat box.filter "box $B")" fail
	reached "V3" "...and probed its network from this host" "$(echo "$j" | dstat box.routing "box $B")" pass
	$D call PUT /1.0/instances/$B/state '{"action":"unfreeze","timeout":30}' >/dev/null 2>&1
}

ev_acl()
{
	echo "=== V5: the ACL's 10/8 drop removed behind doctor's back"
	_k() { nft list table inet incus 2>/dev/null | grep -c 'ip daddr 10.0.0.0/8 .*drop'; }
	_k0=$(_k)
	_acl=$($D get /1.0/network-acls/box-isolate "json.dumps({'description': m['description'], 'config': m['config'], 'ingress': m['ingress'], 'egress': [r for r in m['egress'] if r.get('destination') != '10.0.0.0/8']})")
	$D call PUT /1.0/network-acls/box-isolate "$_acl" >/dev/null 2>&1 || { fail "V5 removing the ACL's 10/8 drop"; return; }
	_k1=$(_k)
	ctl_ok "V5" "control, ground truth: the kernel lost the ACL's 10/8 drop ($_k0 -> $_k1 rule(s) in table inet incus)" "$([ "$_k1" -lt "$_k0" ] && echo lost || echo "kept ($_k0 -> $_k1)")" lost
	j=$(djson $A)
	nadv=$((nadv + 1))
	reached "V5" "doctor FAILs acl.egress" "$(echo "$j" | dstat acl.egress "")" fail
	$BOX doctor --fix >/dev/null 2>&1
	reached "V5" "doctor --fix: the kernel holds it again" "$(_k)" "$_k0"
	reached "V5" "...and doctor passes acl.egress" "$(djson $A | dstat acl.egress "")" pass
}

ev_run()
{
	EV_AG=$RUN/agent
	musl-gcc -static -Os -o "$EV_AG" tests/drill/agent.c >"$RUN/agent.cc" 2>&1 ||
	    { cat "$RUN/agent.cc"; fail "V building the agent (musl-gcc)"; return; }
	[ "$a_ok" = 1 ] && [ "$b_ok" = 1 ] || { fail "V not judged: a baseline did not pass"; return; }
	ev_swapper
	ev_ready_frozen_flood
	ev_acl
}
