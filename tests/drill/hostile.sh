# hostile.sh - the drill's adversarial probes (issue 10), sourced by
# drill.sh after its helpers (pass/fail/note, probes, v, judged, inbox,
# host_probe) and world.sh.  A box that attacks, from inside real boxes:
#   X1  host port 53 (udp, tcp) of the uplink address, of a second bridge
#       (drsec0), of boxtest0's dnsmasq; a raw frame to 127.0.0.1:53
#       through the gateway's MAC
#   X3  a name only in the host's /etc/hosts, through the gateway
#   X4  forged ARP for a sibling's and for the gateway's address
#   X5  forged IPv4 sources (outside the subnet; a sibling's) toward the
#       internet
#   X6  a box's own global IPv6 address: nothing from it reaches boxnet (a
#       capture there), nor the host's address on boxnet, nor a sibling's
#       link-local.  Nothing asks the host to forward IPv6: it has an IPv6
#       default route on its uplink, so the forward chain's IPv6 drop is
#       read back by doctor, not probed here.
#   X7  a box changing its MAC, its IPv4 address: the internet stops
#       answering it
#   X8  NAT inside a box (a namespace with masquerade) keeps working
# The isolation verdicts come from a recorder on the far side (world.sh),
# the host's or a sibling's neighbour table or a capture on boxnet, never
# from the sender; X7 and X8 by whether the internet answers.  Each probe
# has a negative control that opens its hole (the control box $N on the
# scratch profile $NOF: box-net with the NIC filtering keys false, port
# isolation kept; inserted accept rules; a deleted chain; a sysctl; a PATCH;
# for X4, X5 and X7 also box's port bindings flushed: table bridge box
# prerouting holds against $N alone, which is a probe of its own)
# and the defence is put back and shown to hold, alone where layers stack.

N=drill-nf
NOF=drill-nofilter
TOK=drill$$
HOSTS_LINE="198.18.0.77 drill-hostsonly.test"
HOSTS_NAME=drill-hostsonly.test
V6_NET=2001:db8:88
nadv=0
nctl=0
n_ok=0
rl_before=
v6_before=
hosts_saved=
n_pid=
BLL=
NLL=

adv() { nadv=$((nadv + 1)); judged "$@"; }
ctl_ok() { nctl=$((nctl + 1)); reached "$@"; }

# far ID: what the recorders heard of probe ID's token wins over what the
# sender saw; a datagram nobody heard is silence.
far()
{
	_l=$(cat "$W_STATE"/rec-*.rec 2>/dev/null | awk -v t="$TOK-$1" '$4 == t { print; exit }')
	if [ -n "$_l" ]; then
		echo "reply heard by the listener: $_l"
		return
	fi
	case $(v "$1") in
	sent*) echo "silent (no listener heard it)" ;;
	*) v "$1" ;;
	esac
}

# peer_of ID: the source address the recorder saw for probe ID
peer_of()
{
	cat "$W_STATE"/rec-*.rec 2>/dev/null | awk -v t="$TOK-$1" '$4 == t { print $3; exit }'
}

# host_mac IP: the MAC in the host's neighbour entry for IP on boxnet
host_mac()
{
	ip neigh show "$1" dev boxnet 2>/dev/null | awk '/lladdr/ { print $3; exit }'
}

# inner_fw: the name of table inet box's forward-hook chain, if any
inner_fw()
{
	nft list table inet box 2>/dev/null | awk '$1 == "chain" { c = $2 } /hook forward/ { print c; exit }'
}

# --- setup (after setup-host, before the drill's own boxes) -------------------

adv_setup()
{
	# the host's /etc/hosts gets one unique line; restored byte for byte
	# a run that died before its restore left its copy: put it back first
	[ -f "$W_STATE/hosts.orig" ] && cat "$W_STATE/hosts.orig" >/etc/hosts
	cp -p /etc/hosts "$W_STATE/hosts.orig" || return 1
	hosts_saved=1
	[ -z "$(tail -c1 /etc/hosts)" ] || echo >>/etc/hosts
	echo "$HOSTS_LINE" >>/etc/hosts
	# the control box's profile: box-net as the daemon holds it, with every
	# NIC filtering key false and port isolation kept; its address pinned
	# (ipv4.address), since dnsmasq answers only pinned clients and Incus
	# pins an unfiltered NIC's MAC only with an address
	$D call DELETE /1.0/profiles/$NOF >/dev/null 2>&1
	_p=$($D get /1.0/profiles/box-net "json.dumps({'name': '$NOF', 'description': 'box drill: negative control, NO NIC filtering (port isolation kept)', 'config': m['config'], 'devices': {k: (dict(d, **{'security.mac_filtering': 'false', 'security.ipv4_filtering': 'false', 'security.ipv6_filtering': 'false', 'security.port_isolation': 'true', 'ipv4.address': '${PFX}240'}) if d.get('type') == 'nic' else d) for k, d in m['devices'].items()}})") &&
	    $D call POST /1.0/profiles "$_p" >/dev/null || return 1
	note "box-net's NIC: $($D get /1.0/profiles/box-net "' '.join('%s=%s' % (k, v) for k, v in sorted(m['devices']['eth0'].items()) if k.startswith('security.'))")"
	# launched now, in the background; adv_run waits for it
	$D launch $N "$IMAGE" $NOF >"$RUN/n.launch" 2>&1 &
	n_pid=$!
}

adv_restore()
{
	[ -n "$rl_before" ] && sysctl -qw net.ipv4.conf.boxnet.route_localnet="$rl_before" 2>/dev/null
	if [ -n "$v6_before" ]; then
		ip -6 addr del $V6_NET::1/64 dev boxnet 2>/dev/null
		sysctl -qw net.ipv6.conf.boxnet.disable_ipv6="$v6_before" 2>/dev/null
	fi
	if [ -n "$hosts_saved" ] && [ -f "$W_STATE/hosts.orig" ]; then
		cat "$W_STATE/hosts.orig" >/etc/hosts && rm -f "$W_STATE/hosts.orig"
		hosts_saved=
n_pid=
BLL=
NLL=
	fi
	[ -n "${FREE:-}" ] && ip neigh del "$FREE" dev boxnet 2>/dev/null
	if [ "${DRILL_KEEP:-0}" != 1 ]; then
		$D delete $N >/dev/null 2>&1
		$D call DELETE /1.0/profiles/$NOF >/dev/null 2>&1
	fi
	return 0
}

# --- the adversarial section ----------------------------------------------------

# x1 PREFIX: the host-input probe lines, tokens tagged PREFIX
x1_lines()
{
	echo "$1ulo rawudp self 127.0.0.1 53 $TOK-$1ulo"
	echo "$1usec udptok $W_SEC 53 $TOK-$1usec"
	echo "$1tsec tcptok $W_SEC 53 $TOK-$1tsec $T"
	if [ -n "$W_UPLINK" ]; then
		echo "$1uup udptok $W_UPLINK 53 $TOK-$1uup"
		echo "$1tup tcptok $W_UPLINK 53 $TOK-$1tup $T"
	fi
	if [ -n "$BT0" ]; then
		echo "$1ubt dnsask $BT0 $W_NAME"
		echo "$1tbt tcp $BT0 53 $T"
	fi
}

# x1_judge PREFIX ID PROBER WORDS: judge the host-input set
x1_judge()
{
	_f=$1 _id=$2 _who=$3 _how=$4
	$_how "$_id" "$_who -> host $W_SEC:53/udp (drsec0, a recorder there)$5" $_who "$(far ${_f}usec)"
	$_how "$_id" "$_who -> host $W_SEC:53/tcp$5" $_who "$(far ${_f}tsec)"
	if [ -n "$W_UPLINK" ]; then
		$_how "$_id" "$_who -> host uplink $W_UPLINK:53/udp$5" $_who "$(far ${_f}uup)"
		$_how "$_id" "$_who -> host uplink $W_UPLINK:53/tcp$5" $_who "$(far ${_f}tup)"
	fi
	if [ -n "$BT0" ]; then
		$_how "$_id" "$_who -> boxtest0's dnsmasq $BT0:53/udp$5" $_who "$(v ${_f}ubt)"
		$_how "$_id" "$_who -> boxtest0's dnsmasq $BT0:53/tcp$5" $_who "$(v ${_f}tbt)"
	fi
}

# heard ID WHAT VERDICT: a control; the hole shows when it was heard/answered
heard()
{
	ctl_ok "$1" "$2" "$3" "reply" "connected"
}

x1_controls()	# ID WHO PREFIX: the control lines, as "heard"
{
	_f=$3
	heard "$1" "$2 -> host $W_SEC:53/udp" "$(far ${_f}usec)"
	heard "$1" "$2 -> host $W_SEC:53/tcp" "$(far ${_f}tsec)"
	if [ -n "$W_UPLINK" ]; then
		heard "$1" "$2 -> host uplink $W_UPLINK:53/udp" "$(far ${_f}uup)"
		heard "$1" "$2 -> host uplink $W_UPLINK:53/tcp" "$(far ${_f}tup)"
	fi
	if [ -n "$BT0" ]; then
		heard "$1" "$2 -> boxtest0's dnsmasq $BT0:53/udp (it answers)" "$(v ${_f}ubt)"
		heard "$1" "$2 -> boxtest0's dnsmasq $BT0:53/tcp" "$(v ${_f}tbt)"
	fi
}

adv_hostinput()
{
	BT0=$(ip -4 -o addr show dev boxtest0 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
	[ -n "$W_UPLINK" ] || note "no IPv4 uplink address: the uplink probes are left out"
	[ -n "$BT0" ] || note "no boxtest0: its dnsmasq is not probed"
	world_lo_up || fail "X1: the recorder on 127.0.0.1:53 did not start"
	probes $A "$(x1_lines p)"
	x1_judge p X1 $A adv ""
	adv "X1" "$A -> 127.0.0.1:53/udp, a raw frame to the gateway's MAC (route_localnet=$(sysctl -n net.ipv4.conf.boxnet.route_localnet))" $A "$(far pulo)"
	# control: the old hole, "port 53 whatever the address"
	nft insert rule inet box input iifname boxnet udp dport 53 accept &&
	    nft insert rule inet box input iifname boxnet tcp dport 53 accept ||
	    fail "inserting the old port-53 hole into inet box input failed"
	probes $A "$(x1_lines c)"
	x1_controls "ctl-X1" "old hole (boxnet :53 to any address accepted): $A" c
	rl_before=$(sysctl -n net.ipv4.conf.boxnet.route_localnet)
	# 127.0.0.1 has two layers: the kernel's martian drop (route_localnet
	# off) and the input chain; each alone, then neither
	[ "$rl_before" = 0 ] &&
	    adv "layer" "route_localnet off alone (the port-53 hole open): $A -> 127.0.0.1:53/udp (raw frame)" $A "$(far culo)"
	sysctl -qw net.ipv4.conf.boxnet.route_localnet=1
	probes $A "clo rawudp self 127.0.0.1 53 $TOK-clo"
	heard "ctl-X1" "old hole + route_localnet=1: $A -> 127.0.0.1:53/udp (raw frame)" "$(far clo)"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
	probes $A "ilo rawudp self 127.0.0.1 53 $TOK-ilo"
	adv "layer" "input chain alone (route_localnet=1): $A -> 127.0.0.1:53/udp (raw frame)" $A "$(far ilo)"
	sysctl -qw net.ipv4.conf.boxnet.route_localnet="$rl_before"
	rl_before=
	probes $A "$(x1_lines r)"
	x1_judge r layer $A adv " — after firewall apply"
	adv "layer" "$A -> 127.0.0.1:53/udp (raw frame) — after firewall apply" $A "$(far rulo)"
	world_lo_down
}

adv_arp()
{
	_bmac=$(inbox $B 5 "cat /sys/class/net/eth0/address")
	_amac=$(inbox $A 5 "cat /sys/class/net/eth0/address")
	_nmac=$(inbox $N 5 "cat /sys/class/net/eth0/address")
	_gmac=$(cat /sys/class/net/boxnet/address)
	probes $B "nb http http://$W_INET/ 5
ng neigh $GW"
	reached "X4" "baseline: the host's neighbour entry for $B ($BIP) is $B's MAC" "$(host_mac "$BIP")" "$_bmac"
	reached "X4" "baseline: $B's neighbour entry for the gateway is boxnet's MAC" "$(v ng)" "$_gmac"
	probes $A "a1 arp $BIP
a2 arp $GW"
	note "$A ($_amac): $(v a1); $(v a2)"
	_m=$(host_mac "$BIP")
	if [ "$_m" = "$_bmac" ]; then
		adv "X4" "forged ARP from $A claiming $B's $BIP: the host's entry still $B's MAC" $A "dropped"
	else
		adv "X4" "forged ARP from $A claiming $B's $BIP" $A "connected — the host's entry for $BIP MOVED to ${_m:-nothing} ($A is $_amac)"
	fi
	_l=$(ip neigh show | grep -i " lladdr $_amac " | grep -v -e "^$AIP " -e "^$BIP ")
	adv "X4" "forged ARP from $A claiming the gateway $GW: no host entry learnt $A's MAC for another address" $A \
	    "$([ -z "$_l" ] && echo dropped || echo "connected — the host learnt: $_l")"
	probes $B "ng2 neigh $GW"
	reached "X4" "$B's entry for the gateway is still boxnet's MAC" "$(v ng2)" "$_gmac"
	# the same claim from the box without NIC filtering: box's own port
	# bindings (table bridge box prerouting) hold it alone
	ip neigh del "$BIP" dev boxnet 2>/dev/null
	probes $B "nb2 http http://$W_INET/ 5"
	probes $N "na0 arp $BIP"
	_m=$(host_mac "$BIP")
	adv "layer" "port bindings alone (no NIC filter): $N's forged ARP claiming $BIP: the host's entry still $B's MAC" $N \
	    "$([ "$_m" = "$_bmac" ] && echo dropped || echo "connected — the host's entry MOVED to ${_m:-nothing}")"
	# control: no NIC filtering and no port bindings
	nft flush chain bridge box prerouting
	probes $N "na1 arp $BIP"
	ctl_ok "ctl-X4" "no NIC filtering, no port bindings: $N's forged ARP moves the host's entry for $BIP to $N's MAC" "$(host_mac "$BIP")" "$_nmac"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
	ip neigh del "$BIP" dev boxnet 2>/dev/null
	probes $B "nb3 http http://$W_INET/ 5"
	reached "X4" "restored: $B reaches the internet again, the host's entry is $B's MAC" "$(v nb3) $(host_mac "$BIP")" "body $W_MARK_INET $_bmac"
}

adv_forge()
{
	probes $A "f1 rawudp $W_FORGE $W_INET $W_REC_PORT $TOK-f1
f2 rawudp $BIP $W_INET $W_REC_PORT $TOK-f2"
	sleep 0.5
	adv "X5" "$A -> the internet from the forged source $W_FORGE (a recorder on $W_INET:$W_REC_PORT)" $A "$(far f1)"
	adv "X5" "$A -> the internet from its sibling's address $BIP" $A "$(far f2)"
	_fw=$(inner_fw)
	note "table inet box's forward chain: ${_fw:-none}"
	# each layer alone: the NIC filter without box's forward chain ...
	[ -n "$_fw" ] && nft delete chain inet box "$_fw"
	probes $A "f3 rawudp $W_FORGE $W_INET $W_REC_PORT $TOK-f3"
	sleep 0.5
	adv "layer" "NIC filter alone (no forward chain): $A -> the internet from $W_FORGE" $A "$(far f3)"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
	# ... and the forward chain without the NIC filter
	probes $N "f4 rawudp $W_FORGE $W_INET $W_REC_PORT $TOK-f4"
	sleep 0.5
	adv "layer" "forward chain alone (no NIC filter): $N -> the internet from $W_FORGE" $N "$(far f4)"
	# ... and the port bindings without either: a sibling's address
	_fw=$(inner_fw)
	[ -n "$_fw" ] && nft delete chain inet box "$_fw"
	probes $N "f6b rawudp $BIP $W_INET $W_REC_PORT $TOK-f6b"
	sleep 0.5
	adv "layer" "port bindings alone (no NIC filter, no forward chain): $N -> the internet from $B's address $BIP" $N "$(far f6b)"
	# control: none of them
	nft flush chain bridge box prerouting
	probes $N "f5 rawudp $W_FORGE $W_INET $W_REC_PORT $TOK-f5
f6 rawudp $BIP $W_INET $W_REC_PORT $TOK-f6"
	sleep 0.5
	heard "ctl-X5" "no filter, no forward chain: $N -> the internet from $W_FORGE" "$(far f5)"
	ctl_ok "ctl-X5" "...and it left un-NATed: the recorder saw the source" "$(peer_of f5)" "$W_FORGE"
	heard "ctl-X5" "no filter: $N -> the internet from $B's address $BIP" "$(far f6)"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
}

# v6_on NAME ADDR: give NAME a global address of its own (on-link /64, the
# host's would-be $V6_NET::1 in it).  No route beyond it: the host has an
# IPv6 default route on its uplink, so nothing here asks it to forward.
v6_on()
{
	inbox "$1" 10 "ip -6 addr add $2/64 dev eth0 nodad" || note "$1: adding $2 failed"
}
v6_off()
{
	inbox "$1" 10 "ip -6 addr del $2/64 dev eth0" >/dev/null 2>&1
}

# v6_probe NAME PREFIX: from NAME to the host and to B's link-local, with a
# capture on boxnet for frames from the forged /64
v6_probe()
{
	$PY $W_PROBE sniff6 boxnet 5 $V6_NET:: >"$RUN/$2sn" 2>&1 &
	_sp=$!
	sleep 0.3
	probes "$1" "$2h udptok $V6_NET::1 $W_REC6_PORT $TOK-$2h
$2s udptok $BLL%eth0 $W_REC6_PORT $TOK-$2s"
	wait $_sp
	inbox $B 5 "cat /run/drill-rec6.rec" >"$W_STATE/rec-b.rec" 2>/dev/null
}
sn() { case $(cat "$RUN/$1sn") in none) echo "silent (no frame from $V6_NET::/64 on boxnet)" ;; seen*) echo "reply $(cat "$RUN/$1sn") frames reached boxnet" ;; *) cat "$RUN/$1sn" ;; esac; }

adv_v6()
{
	note "host IPv6: forwarding $(sysctl -n net.ipv6.conf.all.forwarding), boxnet disable_ipv6 $(sysctl -n net.ipv6.conf.boxnet.disable_ipv6)"
	BLL=$(inbox $B 10 "ip -6 -o addr show dev eth0 scope link" | awk '{ sub("/.*", "", $4); print $4; exit }')
	NLL=$(inbox $N 10 "ip -6 -o addr show dev eth0 scope link" | awk '{ sub("/.*", "", $4); print $4; exit }')
	for _b in $B $N; do
		inbox $_b 10 "setsid drill-probe record /run/drill-rec6.rec 'udp:[::]:$W_REC6_PORT' </dev/null >/dev/null 2>&1 & sleep 0.5" >/dev/null
	done
	v6_on $A $V6_NET::a
	v6_probe $A 6a
	adv "X6" "$A with its own $V6_NET::a: nothing from it reaches the host's bridge" $A "$(sn 6a)"
	adv "X6" "$A -> the host [$V6_NET::1]:$W_REC6_PORT" $A "$(far 6ah)"
	adv "X6" "$A -> $B's link-local [${BLL:-none}]:$W_REC6_PORT (a recorder in $B)" $A "$(far 6as)"
	v6_on $N $V6_NET::b
	v6_probe $N 6n
	ctl_ok "ctl-X6" "no NIC filtering: $N's $V6_NET::b frames reach the host's bridge" "$(sn 6n)" reply
	# the host's side open too: boxnet with IPv6 and an address, and table
	# inet box's drops opened for IPv6
	v6_before=$(sysctl -n net.ipv6.conf.boxnet.disable_ipv6)
	sysctl -qw net.ipv6.conf.boxnet.disable_ipv6=0
	ip -6 addr add $V6_NET::1/64 dev boxnet nodad
	nft insert rule inet box input iifname boxnet meta nfproto ipv6 accept ||
	    fail "inserting an IPv6 accept into inet box input failed"
	v6_probe $N 6o
	heard "ctl-X6" "no filter, boxnet IPv6 on, input accepts IPv6: $N -> the host [$V6_NET::1]:$W_REC6_PORT" "$(far 6oh)"
	v6_probe $A 6f
	adv "layer" "NIC filter alone (boxnet IPv6 on, input accepts IPv6): $A -> the host" $A "$(far 6fh)"
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
	v6_probe $N 6c
	adv "layer" "input chain alone (boxnet IPv6 on, no filter): $N -> the host" $N "$(far 6ch)"
	ip -6 addr del $V6_NET::1/64 dev boxnet 2>/dev/null
	sysctl -qw net.ipv6.conf.boxnet.disable_ipv6="$v6_before"
	v6_before=
	v6_off $A $V6_NET::a
	v6_off $N $V6_NET::b
}

# stops ID WHAT PROBER VERDICT: the probe must stop working
stops()
{
	case $4 in
	body*|connected*) adv "$1" "$2" "$3" "connected — it STILL WORKS ($4)" ;;
	*) adv "$1" "$2" "$3" "dropped ($4)" ;;
	esac
}

# free_ip: an address of the subnet nobody holds (no lease, no neighbour)
free_ip()
{
	for _o in 250 249 248 247 246 245 244 243; do
		_ip=$PFX$_o
		grep -rqs -w -F "$_ip" /var/lib/incus/networks/boxnet/ && continue
		[ -z "$(ip neigh show "$_ip" dev boxnet)" ] || continue
		echo "$_ip"
		return
	done
}

# macip NAME PREFIX: change NAME's MAC, then (separately) its address
macip()
{
	_mac=$(inbox "$1" 5 "cat /sys/class/net/eth0/address")
	_ip=$($D ipv4 "$1" "$PFX" 5)
	inbox "$1" 5 "ip link set eth0 address 02:00:00:dd:00:$2" >/dev/null
	ip neigh del "$_ip" dev boxnet 2>/dev/null
	probes "$1" "$2m http http://$W_INET/ 4"
	inbox "$1" 5 "ip link set eth0 address $_mac" >/dev/null
	ip neigh del "$_ip" dev boxnet 2>/dev/null
	inbox "$1" 5 "ip addr add $FREE/24 dev eth0" >/dev/null
	probes "$1" "$2i tcpfrom $FREE $W_INET 80 $T"
	inbox "$1" 5 "ip addr del $FREE/24 dev eth0" >/dev/null
	ip neigh del "$FREE" dev boxnet 2>/dev/null
	probes "$1" "$2r http http://$W_INET/ 5"
}

adv_macip()
{
	FREE=$(free_ip)
	[ -n "$FREE" ] || { fail "X7: no free address in ${PFX}243-250"; return; }
	macip $A 0a
	stops "X7" "$A with a MAC of its own choosing -> the internet" $A "$(v 0am)"
	stops "X7" "$A from a free address $FREE of the subnet -> the internet" $A "$(v 0ai)"
	reached "X7" "restored: $A's own MAC and address reach the internet" "$(v 0ar)" "body $W_MARK_INET"
	# without NIC filtering box's port bindings hold alone ...
	macip $N 0c
	stops "layer" "port bindings alone (no NIC filter): $N with a MAC of its own choosing -> the internet" $N "$(v 0cm)"
	stops "layer" "port bindings alone (no NIC filter): $N from a free address $FREE -> the internet" $N "$(v 0ci)"
	reached "X7" "restored: $N's own MAC and address reach the internet" "$(v 0cr)" "body $W_MARK_INET"
	# ... control: neither
	nft flush chain bridge box prerouting
	macip $N 0b
	ctl_ok "ctl-X7" "no NIC filtering, no port bindings: $N with another MAC still reaches the internet" "$(v 0bm)" "body $W_MARK_INET"
	ctl_ok "ctl-X7" "no NIC filtering, no port bindings: $N from $FREE still reaches the internet" "$(v 0bi)" connected
	$BOX firewall apply >/dev/null 2>&1 || fail "box firewall apply (restoring) failed"
	reached "X7" "restored: $N reaches the internet" "$(v 0br)" "body $W_MARK_INET"
}

# adv_nat: a namespace inside the box behind a masquerade (nested Docker's
# shape).  The Debian test image has no nft: the host's own (same release)
# is pushed in with its libraries.
adv_nat()
{
	inbox $A 5 "mkdir -p /usr/local/lib/drill-nft" >/dev/null
	for _f in /usr/sbin/nft $(ldd /usr/sbin/nft | awk '/=>/ { print $3 }' | grep -v -e '/libc\.so' -e '/libtinfo\.so'); do
		$D push $A "$(readlink -f "$_f")" "/usr/local/lib/drill-nft/${_f##*/}" 0755 ||
		    { fail "X8: pushing $_f into $A failed"; return; }
	done
	_nft="LD_LIBRARY_PATH=/usr/local/lib/drill-nft /usr/local/lib/drill-nft/nft"
	_in="nsenter --net=/run/netns/drillin"
	out=$(inbox $A 20 "set -e
ip netns add drillin
ip link add drin0 type veth peer name eth0 netns drillin
ip addr add 172.31.9.1/30 dev drin0
ip link set drin0 up
$_in ip link set lo up
$_in ip addr add 172.31.9.2/30 dev eth0
$_in ip link set eth0 up
$_in ip route add default via 172.31.9.1
sysctl -qw net.ipv4.ip_forward=1
printf 'table ip drillnat {\n chain post {\n  type nat hook postrouting priority srcnat; policy accept;\n  ip saddr $W_NEST oifname eth0 masquerade\n }\n}\n' | $_nft -f -
echo ready" 2>&1)
	[ "$(printf '%s\n' "$out" | tail -1)" = ready ] || note "X8 setup in $A: $out"
	nadv=$((nadv + 1))
	reached "X8" "NAT inside $A: a namespace behind a masquerade reaches the internet" \
	    "$(inbox $A 15 "$_in drill-probe http http://$W_INET/ 5")" "body $W_MARK_INET"
	inbox $A 5 "$_nft delete table ip drillnat" >/dev/null
	ctl_ok "ctl-X8" "without the masquerade, the namespace's own source gets no answer" \
	    "$(inbox $A 15 "$_in drill-probe http http://$W_INET/ 3")" "fail"
	inbox $A 10 "ip netns del drillin; sysctl -qw net.ipv4.ip_forward=0" >/dev/null 2>&1
}

adv_run()
{
	echo "=== adversarial: a hostile box"
	[ -n "$n_pid" ] && wait "$n_pid" || { cat "$RUN/n.launch"; fail "launching the control box $N failed"; return; }
	NIP=$($D ipv4 $N "$PFX" 60) || NIP=
	$D push $N $W_PROBE /usr/local/bin/drill-probe 0755 || fail "pushing the probe into $N failed"
	if [ -n "$NIP" ]; then
		probes $N "nbase http http://$W_INET/ 5"
		reached "baseline" "$N ($NIP, profile $NOF: no NIC filtering) -> the internet" "$(v nbase)" "body $W_MARK_INET" &&
		    [ "$(v nbase)" = "body $W_MARK_INET" ] && n_ok=1
	else
		fail "baseline $N: no lease"
	fi
	adv_hostinput
	adv_arp
	adv_forge
	adv_v6
	adv_macip
	adv_nat
}

# --- hooks in the drill's own controls -----------------------------------------

# adv_open_arp STAGE: the sibling control box $C (no port isolation, no
# filter) claims the gateway's address; $B's entry for it must move when no
# sibling layer stands (STAGE ctl), and not when table bridge box is back
adv_open_arp()
{
	_gmac=$(cat /sys/class/net/boxnet/address)
	_cmac=$(inbox $C 5 "cat /sys/class/net/eth0/address")
	probes $B "ow$1 http http://$W_INET/ 5
og$1 neigh $GW"
	[ "$(v og$1)" = "$_gmac" ] || note "$B's entry for $GW before: $(v og$1)"
	probes $C "oa$1 arp $GW"
	probes $B "ob$1 neigh $GW"
	if [ "$1" = ctl ]; then
		ctl_ok "ctl-X4" "no sibling layer: $C's forged ARP moves $B's entry for the gateway to $C's MAC" "$(v ob$1)" "$_cmac"
	else
		nadv=$((nadv + 1))
		reached "layer" "table bridge box alone: $C's forged ARP for the gateway leaves $B's entry on boxnet's MAC" "$(v ob$1)" "$_gmac" "none"
	fi
	inbox $B 5 "ip neigh del $GW dev eth0" >/dev/null 2>&1
}

# adv_open_v6: with no sibling layer standing (table bridge box removed,
# bridged IPv6 not handed to inet box), $C (no port isolation, no filter)
# -> $N's link-local (no filter): the control for X6's sibling probe; and
# -> $B's: $B's own NIC filter alone (it cannot answer the neighbour
# solicitation from its link-local, so nothing is sent to it)
adv_open_v6()
{
	if [ -z "$BLL" ] || [ -z "$NLL" ]; then
		fail "ctl-X6: no link-local address known for $B/$N (X6 did not run)"
		return
	fi
	_b6=/proc/sys/net/bridge/bridge-nf-call-ip6tables _b6v=
	[ -w "$_b6" ] && _b6v=$(cat "$_b6") && echo 0 >"$_b6"
	probes $C "o6n udptok $NLL%eth0 $W_REC6_PORT $TOK-o6n
o6b udptok $BLL%eth0 $W_REC6_PORT $TOK-o6b"
	[ -n "$_b6v" ] && echo "$_b6v" >"$_b6"
	inbox $B 5 "cat /run/drill-rec6.rec" >"$W_STATE/rec-b.rec" 2>/dev/null
	inbox $N 5 "cat /run/drill-rec6.rec" >"$W_STATE/rec-n.rec" 2>/dev/null
	heard "ctl-X6" "no sibling layer, no filter: $C -> $N's link-local [$NLL]:$W_REC6_PORT (a recorder in $N)" "$(far o6n)"
	nadv=$((nadv + 1))
	reached "layer" "$B's NIC filter alone (no isolation on $C, no bridge box): $C -> $B's link-local" "$(far o6b)" "silent"
}

# adv_hosts: X3 against box's own resolver (the default), once dnsmasq has
# restarted after the hosts line (the drill's dns.mode controls restart
# it); the control on dnsmasq's DNS without no-hosts
adv_hosts()
{
	_raw=$($D get /1.0/networks/boxnet "m['config'].get('raw.dnsmasq', '')")
	note "boxnet raw.dnsmasq: $(printf '%s' "$_raw" | tr '\n' ' ')"
	probes $A "hs1 dnsq $GW $HOSTS_NAME"
	adv "X3" "$A looks up '$HOSTS_NAME' (only in the host's /etc/hosts) through the gateway" $A "$(v hs1)"
	# the control: dnsmasq's DNS (the fallback; box's resolver reads no
	# hosts file at all), without no-hosts
	out=$(BOX_RESOLVER=dnsmasq BOX_DNS=$W_INET $BOX setup-host 2>&1) || { echo "$out"; fail "BOX_RESOLVER=dnsmasq box setup-host (the control) failed"; }
	_raw=$($D get /1.0/networks/boxnet "m['config'].get('raw.dnsmasq', '')")
	_ctl=$(printf '%s\n' "$_raw" | grep -v -x 'no-hosts')
	if [ "$_ctl" != "$_raw" ]; then
		$D call PATCH /1.0/networks/boxnet "$($PY -c '
import json, sys; print(json.dumps({"config": {"raw.dnsmasq": sys.argv[1]}}))' "$_ctl")" >/dev/null ||
		    fail "PATCH boxnet raw.dnsmasq without no-hosts failed"
	fi
	k=0
	while :; do
		probes $A "hs2 dnsq $GW $HOSTS_NAME"
		case $(v hs2) in "addr "*) break ;; esac
		k=$((k + 1)); [ $k -lt 15 ] || break; sleep 1
	done
	ctl_ok "ctl-X3" "raw.dnsmasq without no-hosts: $A resolves '$HOSTS_NAME'" "$(v hs2)" "addr ${HOSTS_LINE%% *}"
	out=$(BOX_DNS=$W_INET $BOX setup-host 2>&1) || { echo "$out"; fail "box setup-host (restoring) failed"; }
	k=0
	while :; do
		probes $A "hs3 dnsq $GW $HOSTS_NAME
hs4 dns $W_NAME"
		[ "$(v hs4)" = "addr $W_INET" ] && break
		k=$((k + 1)); [ $k -lt 30 ] || break; sleep 1
	done
	adv "layer" "box setup-host again: '$HOSTS_NAME'" $A "$(v hs3)"
}
