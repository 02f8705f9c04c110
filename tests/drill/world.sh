# world.sh - the drill's hermetic world, sourced (POSIX sh) from the repo
# root.  Everything here is created by the test and removed by it; no packet
# is sent to an address that is not ours.
#
#   "the internet"  netns box-drill-inet: 203.0.113.10 (TEST-NET-3) on its
#                   loopback (this kernel has no dummy devices), reached from the host through the veth drinet0
#                   (198.51.100.1/30 <-> .2, TEST-NET-2) by a host route for
#                   203.0.113.0/24; an HTTP listener on :80 and a DNS server
#                   (dnsmasq) on :53 answering *.drill.test with
#                   203.0.113.10 and NXDOMAIN for everything else.
#                   For the egress test, two more addresses on its
#                   loopback ($W_OTHER, $W_ROT; the :80 listener serves
#                   them all) and names from a hosts directory the
#                   resolver rereads by itself: probe.test -> $W_INET
#                   (world_rotate ADDR moves it, e.g. to $W_ROT) and
#                   other.test -> $W_OTHER, each with its PTR; and a
#                   lying PTR: $W_LIAR claims probe.test.
#   "the LAN"       netns box-drill-lan: 192.168.77.10/24 behind the veth
#                   drlan0 (192.168.77.1), listeners on :80 and :22.
#   the host        a listener on 0.0.0.0:8099 (so box -> host probes have a
#                   real listener on every host address).
#   a second bridge the veth pair drsec0/drsec1 (both ends on the host),
#                   10.199.53.1/24 on drsec0: another host address in 10/8.
#   recorders       listeners that only record what arrives (probe.py record,
#                   they never answer): on the host udp+tcp :53 of the uplink
#                   address ($W_UPLINK) and of drsec0, udp [::]:$W_REC6_PORT
#                   (log $W_STATE/rec-host.rec), udp 127.0.0.1:53 only while
#                   a probe needs it (world_lo_up/down, rec-lo.rec); in the
#                   internet udp $W_INET:$W_REC_PORT (rec-inet.rec).  The
#                   internet has unreachable routes for the forged sources the
#                   drill sends ($W_FORGE, the nested 172.31.9.0/30), so even a
#                   stray answer to them dies there, never on the uplink.
# The veths are not named box*: the egress guard treats box* as test
# bridges, and these are not bridges.  They are not the uplink either, so
# the guard (which drops box* -> uplink) lets NAT from boxnet reach "the
# internet".
#
#   world_up / world_down    build (after clearing leftovers) / remove it
#   world_check              host -> internet HTTP + DNS, host -> LAN; 0 ok

W_NS_INET=box-drill-inet
W_NS_LAN=box-drill-lan
W_INET=203.0.113.10
W_LINK_HOST=198.51.100.1
W_LINK_NS=198.51.100.2
W_LAN_HOST=192.168.77.1
W_LAN=192.168.77.10
W_HOST_PORT=8099
W_NAME=www.drill.test
W_OTHER=203.0.113.20
W_ROT=203.0.113.11
W_LIAR=203.0.113.30	# its reverse zone claims $W_PROBE_NAME, which does not resolve to it
W_PROBE_NAME=probe.test
W_OTHER_NAME=other.test
W_MARK_INET=drill-internet-ok
W_MARK_HOST=drill-host-listener
W_STATE=${W_STATE:-/run/box-drill}
W_SEC=10.199.53.1
W_FORGE=198.18.0.99
W_NEST=172.31.9.0/30
W_REC_PORT=9054
W_REC6_PORT=9056
# the host's address on its default-route interface (empty: none)
W_UPLINK=$(ip -4 -o addr show scope global dev "$(ip -4 route show default |
    sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -1)" 2>/dev/null |
    awk '{ sub("/.*", "", $4); print $4; exit }')
W_PY=/usr/bin/python3
W_PROBE=tests/drill/probe.py

_w_say()
{
	printf 'world: %s\n' "$*" >&2
}

# _w_start NAME CMD...: start CMD detached, its pid in $W_STATE/NAME.pid.
# The commands exec all the way down (ip netns exec, setsid without a fork),
# so $! is the server's own pid.
_w_start()
{
	_n=$1
	shift
	setsid "$@" </dev/null >"$W_STATE/$_n.log" 2>&1 &
	echo $! >"$W_STATE/$_n.pid"
}

# _w_stop NAME: kill the recorded pid, if it is still what we started.
_w_stop()
{
	[ -f "$W_STATE/$1.pid" ] || return 0
	_p=$(cat "$W_STATE/$1.pid")
	if [ -r "/proc/$_p/cmdline" ] &&
	    tr '\0' ' ' <"/proc/$_p/cmdline" | grep -q -e probe.py -e dnsmasq; then
		kill "$_p" 2>/dev/null
	fi
	rm -f "$W_STATE/$1.pid"
}

world_down()
{
	for _s in inet-http inet-dns lan-80 lan-22 host-8099 rec-host rec-inet rec-lo; do
		_w_stop $_s
	done
	ip link del drsec0 2>/dev/null
	ip route del 203.0.113.0/24 via $W_LINK_NS 2>/dev/null
	ip link del drinet0 2>/dev/null
	ip link del drlan0 2>/dev/null
	ip netns del $W_NS_INET 2>/dev/null
	ip netns del $W_NS_LAN 2>/dev/null
	return 0
}

_w_inet()
{
	ip netns add $W_NS_INET &&
	ip link add drinet0 type veth peer name eth0 netns $W_NS_INET &&
	ip addr add $W_LINK_HOST/30 dev drinet0 &&
	ip link set drinet0 up &&
	ip -n $W_NS_INET link set lo up &&
	ip -n $W_NS_INET addr add $W_LINK_NS/30 dev eth0 &&
	ip -n $W_NS_INET link set eth0 up &&
	ip -n $W_NS_INET addr add $W_INET/32 dev lo &&
	ip -n $W_NS_INET addr add $W_OTHER/32 dev lo &&
	ip -n $W_NS_INET addr add $W_ROT/32 dev lo &&
	ip -n $W_NS_INET route add default via $W_LINK_HOST &&
	ip route add 203.0.113.0/24 via $W_LINK_NS dev drinet0 || return 1
	_w_start inet-http ip netns exec $W_NS_INET $W_PY $W_PROBE serve 80 \
	    $W_MARK_INET
	mkdir -p "$W_STATE/hosts.d" &&
	world_rotate $W_INET &&
	echo "$W_OTHER $W_OTHER_NAME" >"$W_STATE/hosts.d/other" || return 1
	_w_start inet-dns ip netns exec $W_NS_INET dnsmasq --keep-in-foreground \
	    --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
	    --listen-address=$W_INET --pid-file= --log-facility=- \
	    --hostsdir="$W_STATE/hosts.d" \
	    --ptr-record=30.113.0.203.in-addr.arpa,$W_PROBE_NAME \
	    --address=/drill.test/$W_INET --address=/#/
	ip -n $W_NS_INET route add unreachable $W_FORGE/32 &&
	ip -n $W_NS_INET route add unreachable $W_NEST || return 1
	_w_start rec-inet ip netns exec $W_NS_INET $W_PY $W_PROBE record \
	    "$W_STATE/rec-inet.rec" udp:$W_INET:$W_REC_PORT
}

# world_rotate ADDR: probe.test answers ADDR from now on (the resolver
# rereads its hosts directory on its own; the file is replaced whole).
world_rotate()
{
	echo "$1 $W_PROBE_NAME" >"$W_STATE/probe.tmp" &&
	mv -f "$W_STATE/probe.tmp" "$W_STATE/hosts.d/probe"
}

# _w_sec: a second bridge's worth of host address, and the host recorders.
_w_sec()
{
	ip link add drsec0 type veth peer name drsec1 &&
	ip addr add $W_SEC/24 dev drsec0 &&
	ip link set drsec1 up &&
	ip link set drsec0 up || return 1
	set -- "udp:[::]:$W_REC6_PORT" udp:$W_SEC:53 tcp:$W_SEC:53
	[ -n "$W_UPLINK" ] && set -- "$@" udp:$W_UPLINK:53 tcp:$W_UPLINK:53
	_w_start rec-host $W_PY $W_PROBE record "$W_STATE/rec-host.rec" "$@"
}

# _w_ready LOG: a recorder has bound all its sockets
_w_ready()
{
	grep -q '^# ready' "$W_STATE/$1" 2>/dev/null
}

# world_lo_up / world_lo_down: a recorder on 127.0.0.1:53 (udp), only for
# the moments a probe needs it: the host's own software may ask
# 127.0.0.1:53 (a dnsmasq with server=127.0.0.1), and a recorder that never
# answers would stall it.
world_lo_up()
{
	rm -f "$W_STATE/rec-lo.rec"
	_w_start rec-lo $W_PY $W_PROBE record "$W_STATE/rec-lo.rec" udp:127.0.0.1:53
	_i=0
	until _w_ready rec-lo.rec; do
		_i=$((_i + 1))
		[ $_i -lt 30 ] || { _w_say "recorder on 127.0.0.1:53: $(tail -1 "$W_STATE/rec-lo.log" 2>/dev/null)"; return 1; }
		sleep 0.1
	done
}
world_lo_down() { _w_stop rec-lo; }

_w_lan()
{
	ip netns add $W_NS_LAN &&
	ip link add drlan0 type veth peer name eth0 netns $W_NS_LAN &&
	ip addr add $W_LAN_HOST/24 dev drlan0 &&
	ip link set drlan0 up &&
	ip -n $W_NS_LAN link set lo up &&
	ip -n $W_NS_LAN addr add $W_LAN/24 dev eth0 &&
	ip -n $W_NS_LAN link set eth0 up &&
	ip -n $W_NS_LAN route add default via $W_LAN_HOST || return 1
	_w_start lan-80 ip netns exec $W_NS_LAN $W_PY $W_PROBE serve 80 drill-lan-80
	_w_start lan-22 ip netns exec $W_NS_LAN $W_PY $W_PROBE serve 22 drill-lan-22
}

world_up()
{
	world_down
	mkdir -p "$W_STATE"
	rm -f "$W_STATE"/rec-*.rec
	_w_inet || { _w_say "building the internet namespace failed"; return 1; }
	_w_lan || { _w_say "building the LAN namespace failed"; return 1; }
	_w_sec || { _w_say "building the second bridge (drsec0) failed"; return 1; }
	_w_start host-8099 $W_PY $W_PROBE serve $W_HOST_PORT $W_MARK_HOST
	_i=0
	until world_check 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || { world_check; return 1; }
		sleep 0.1
	done
}

# world_routed: both worlds are reached through our own veths, so no probe
# can leave through the uplink.
world_routed()
{
	ip -o route get $W_INET 2>/dev/null | grep -q ' dev drinet0 ' &&
	ip -o route get $W_LAN 2>/dev/null | grep -q ' dev drlan0 '
}

world_check()
{
	world_routed || { _w_say "the world is not routed through its veths"; return 1; }
	_r=$($W_PY $W_PROBE http "http://$W_INET/" 2)
	[ "$_r" = "body $W_MARK_INET" ] || { _w_say "host -> internet http: $_r"; return 1; }
	_r=$($W_PY $W_PROBE dnsq $W_INET $W_NAME)
	[ "$_r" = "addr $W_INET" ] || { _w_say "internet dns: $_r"; return 1; }
	_r=$($W_PY $W_PROBE tcp $W_LAN 80 2)
	[ "$_r" = connected ] || { _w_say "host -> LAN: $_r"; return 1; }
	_r=$($W_PY $W_PROBE http "http://127.0.0.1:$W_HOST_PORT/" 2)
	[ "$_r" = "body $W_MARK_HOST" ] || { _w_say "host listener: $_r"; return 1; }
	for _l in rec-host.rec rec-inet.rec; do
		_w_ready $_l || { _w_say "recorder $_l not ready: $(tail -1 "$W_STATE/${_l%.rec}.log" 2>/dev/null)"; return 1; }
	done
}
