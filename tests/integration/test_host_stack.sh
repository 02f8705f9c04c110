#!/bin/sh
# box setup-host / teardown-host on the real daemon and kernel, read back
# independently (the API for Incus objects, `nft -j` for the firewall, the
# kernel's bridge port flags for a launched box), run twice for
# idempotence; and the nested-box guard in a network namespace that looks
# like the inside of a box.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

NS=boxit-nest
P=boxit-hs-
export BOX_DNS=127.0.0.1	# never a real resolver (the network rule)
unset BOX_SUBNET
cleanup()
{
	ip netns del $NS 2>/dev/null
	ip netns del ${NS}-kat1 2>/dev/null
	ip netns del ${NS}-kat2 2>/dev/null
	cleanup_prefix $P >/dev/null 2>&1
}
trap cleanup EXIT INT TERM
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
nft list table inet box_test_guard >/dev/null 2>&1 || { fail "egress guard missing"; summary; }

cfg() { api GET /1.0/networks/boxnet | json "j['metadata']['config'].get('$1', '')"; }
nft_box() {	# rule counts per chain of our tables, from the nft program
	nft -j list ruleset | json "' '.join(sorted('%s/%s:%d' % (c['family'], c['name'],
	  sum(1 for x in j['nftables'] if 'rule' in x and x['rule']['table'] == 'box'
	      and x['rule']['family'] == c['family'] and x['rule']['chain'] == c['name']))
	  for c in (x['chain'] for x in j['nftables'] if 'chain' in x) if c['table'] == 'box'))"
}
state() {	# everything setup-host owns, as text, for before/after comparison
	for o in networks/boxnet network-acls/box-isolate profiles/box-net; do
		api GET /1.0/$o | json "json.dumps({k: v for k, v in j['metadata'].items() if k != 'used_by'}, sort_keys=True)"
	done
	nft list table inet box; nft list table bridge box 2>/dev/null
}

# --- a first run, from whatever state, then read back -------------------------
# The pool box-net's root disk lands on depends on the daemon this runs
# against (Incus's "default", or box's own "box" left by an earlier
# `setup-host --pool btrfs:...`, which a run without --pool keeps): the
# dry run says which, and the real run must do what it said.
dj=$($BOX setup-host --dry-run --json 2>/dev/null)
pool=$(echo "$dj" | json "j['pool_name'] + ' ' + j['pool_driver']" 2>/dev/null)
pool_driver=${pool#* } pool=${pool%% *}
[ -n "$pool" ] && [ -n "$pool_driver" ] && ok "the dry run names the pool box-net will use: $pool ($pool_driver)" ||
    fail "the dry run names no pool for box-net: $dj"
out=$($BOX setup-host 2>&1); rc=$?
expect_eq "$rc" 0 "setup-host exits 0"
[ "$rc" = 0 ] || echo "$out"
expect_contains "$out" "host ready" "setup-host says the host is ready"
addr=$(cfg ipv4.address)
case $addr in 10.*.0.1/24) ok "bridge addressed explicitly ($addr)" ;; *) fail "bridge address '$addr'" ;; esac
expect_eq "$(cfg ipv4.nat)" "true" "bridge NAT on"
expect_eq "$(cfg ipv6.address)" "none" "bridge IPv6 off"
expect_eq "$(cfg dns.mode)" "none" "bridge registers no instance names"
expect_eq "$(cfg raw.dnsmasq)" "no-resolv
no-hosts
domain-needed
dhcp-ignore-names
max-cache-ttl=300
dhcp-ignore=tag:!known
script-on-renewal
dhcp-script=/usr/local/libexec/box/box-dhcp-hook
server=127.0.0.1
port=0
dhcp-option=option:dns-server,0.0.0.0" "dnsmasq pinned to BOX_DNS, never the host's resolvers or /etc/hosts; no DHCP names; only pinned clients; the lease hook; DHCP only (port=0: box's resolver is the default), naming the gateway as resolver"
expect_eq "$(cfg security.acls)" "box-isolate" "ACL on the network"
expect_eq "$(cfg security.acls.default.ingress.action)" "drop" "inbound dropped by default"
gw=${addr%/24}
acl=$(api GET /1.0/network-acls/box-isolate | json "' '.join(r['action'] + ':' + r.get('destination', '') for r in j['metadata']['egress'])")
expect_eq "$acl" "allow:$gw/32 drop:10.0.0.0/8 drop:172.16.0.0/12 drop:192.168.0.0/16 drop:169.254.0.0/16 drop:100.64.0.0/10" "ACL egress rules"
prof=$(api GET /1.0/profiles/box-net | json "json.dumps(j['metadata']['devices'], sort_keys=True)")
expect_eq "$prof" '{"eth0": {"name": "eth0", "network": "boxnet", "security.ipv4_filtering": "true", "security.ipv6_filtering": "true", "security.mac_filtering": "true", "security.port_isolation": "true", "type": "nic"}, "root": {"path": "/", "pool": "'"$pool"'", "type": "disk"}}' "box-net profile devices: an isolated NIC filtered to its MAC and lease, the root on pool $pool"
expect_eq "$(api GET "/1.0/storage-pools/$pool" | json "j['metadata']['driver']" 2>&1)" "$pool_driver" \
    "  pool $pool exists, its driver $pool_driver as the daemon reports it"
# one "this host's uplink" drop per prefix of the default route's interface
updev=$(ip -4 route show default | awk '{print $5; exit}')
nup=$(ip -4 -o addr show dev "$updev" 2>/dev/null | wc -l)
fwd=$((21 + nup))
expect_eq "$(nft_box)" "bridge/forward:4 bridge/prerouting:10 inet/egress:0 inet/expose-snat:1 inet/forward:$fwd inet/input:7" "firewall as the kernel holds it (nft -j)"
# The rules by content, through the nft program's own reader: the known
# answer, with this host's subnet put in.
net=${gw%.1}.0
# (nft -t: sets without their elements, which are the boxes' bindings; the
# uplink's drops, which the namespaces of the known answer lack, left out)
# known VARIANT: the known answer for the subnet or the brname variant
# (contract.nft holds both: the brname chain forward after its marker line)
known()
{
	python3 - tests/integration/contract.nft "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
cut = [i for i, l in enumerate(lines) if l.startswith("# --- variant brname")][0]
keep = lambda ls: "\n".join(l for l in ls if not l.startswith("#"))
body, br = keep(lines[:cut]).rstrip("\n") + "\n", keep(lines[cut:])
chain = re.compile(r"\tchain forward \{\n.*?\n\t\}\n", re.S)
if sys.argv[2] == "brname":
    at = body.index("table bridge box {")
    body = body[:at] + chain.sub(lambda m: chain.search(br).group(0), body[at:], count=1)
elif sys.argv[2] == "brname-alone":
    body = br.rstrip("\n") + "\n"
sys.stdout.write(body)
PY
}
variant=$($BOX firewall show --json | json "j['sibling_drop']")
want=$(known "$variant" | sed "s/10\.88\.0\./${net%.0}./g")
expect_eq "$(nft -t list table inet box | grep -v "(this host's uplink)\"\$"; nft -t list table bridge box)" "$want" "every rule as nft reads it back equals the known answer for the $variant variant (tests/integration/contract.nft)"
expect_eq "$(nft list chain inet box forward | grep -c "(this host's uplink)\"\$")" "$nup" "one uplink drop per prefix of $updev"
expect_eq "$(cat /proc/sys/net/ipv4/conf/boxnet/route_localnet)" 0 "route_localnet off on boxnet (no VM door needs it)"
fw=$($BOX firewall show --json)
expect_eq "$(echo "$fw" | json "str(j['ok']) + ' ' + str(j['rules_held']) + '/' + str(j['rules_wanted']) + ' ' + j['sibling_drop']")" "True $((43 + nup))/$((43 + nup)) subnet" "box firewall show reads every rule back by content (kernel refuses ibrname here)"

# --- the contract table is what nft sends for the same text --------------------
# In throwaway namespaces: nft -f loads the known answer, box reads it as its
# own; box applies into an empty namespace (no bridge there: the rules match
# it by name, so they hold before it exists) and nft lists exactly the text.
ip netns add ${NS}-kat1; ip netns add ${NS}-kat2
known "$variant" >/tmp/boxit-kat.$$.nft
ip netns exec ${NS}-kat1 nft -f /tmp/boxit-kat.$$.nft
out=$(ip netns exec ${NS}-kat1 $BOX firewall show --subnet 10.88.0.0/24 2>&1); rc=$?
expect_eq "$rc" 0 "nft -f of the ruleset text: box finds every contract rule, by content"
expect_contains "$out" "43 of 43 contract rules held" "...all 43"
out=$(ip netns exec ${NS}-kat2 $BOX firewall apply --subnet 10.88.0.0/24 2>&1); rc=$?
expect_eq "$rc" 0 "firewall apply --subnet in a namespace without the bridge (the boot path)"
expect_eq "$(ip netns exec ${NS}-kat2 nft list ruleset)" "$(cat /tmp/boxit-kat.$$.nft)" "what box sends lists exactly as the ruleset text ($variant variant)"
# the other variant's text: on a kernel that refuses meta ibrname, nft
# compiles the brname chain (its bytecode printed) and the kernel refuses
# that rule alone; on one that takes it, the subnet text loads too
if [ "$variant" = subnet ]; then
	known brname-alone >/tmp/boxit-kat.$$.br
	out=$(ip netns exec ${NS}-kat1 nft --debug=netlink -c -f /tmp/boxit-kat.$$.br 2>&1); rc=$?
	expect_eq "$rc $(echo "$out" | grep -c 'Could not process rule: Operation not supported')" "1 1" "the brname variant's text: the kernel refuses one rule"
	expect_contains "$(echo "$out" | grep -A1 'Operation not supported' | tail -1)" 'meta ibrname "boxnet" meta obrname "boxnet" drop' "...the ibrname rule"
	expect_contains "$(echo "$out" | tr -d '\n')" "[ meta load bri_iifname => reg 1 ]  [ cmp eq reg 1 0x6e786f62 0x00007465 0x00000000 0x00000000 ]  [ meta load bri_oifname => reg 1 ]" "...which nft compiled to the bytecode test_contract.c knows"
	rm -f /tmp/boxit-kat.$$.br
else
	known subnet >/tmp/boxit-kat.$$.br
	ip netns exec ${NS}-kat1 nft -c -f /tmp/boxit-kat.$$.br >/dev/null 2>&1
	expect_eq "$?" 0 "the subnet variant's text loads too"
	rm -f /tmp/boxit-kat.$$.br
fi
rm -f /tmp/boxit-kat.$$.nft
out=$(ip netns exec ${NS}-kat2 env INCUS_SOCKET=/nonexistent $BOX firewall apply 2>&1); rc=$?
expect_eq "$rc" 1 "no --subnet, no bridge, no daemon: apply refuses"
expect_contains "$out" "--subnet" "...and names --subnet"
ip netns del ${NS}-kat1; ip netns del ${NS}-kat2

# --- read back by content: a tampered rule is named --------------------------------
h=$(nft -a list chain inet box input | sed -n 's/.*udp dport 53 accept comment "box: DNS to the gateway" # handle //p')
nft replace rule inet box input handle "$h" iifname boxnet ip daddr "$gw" udp dport 54 accept comment '"box: DNS to the gateway"'
out=$($BOX firewall show 2>&1); rc=$?
expect_eq "$rc" 1 "DNS moved to port 54: firewall show exits 1"
expect_contains "$out" 'rule "box: DNS to the gateway" is CHANGED' "...naming the rule (same count, same comment)"
h=$(nft -a list chain inet box input | sed -n 's/.*comment "box: a box never reaches the host" # handle //p')
nft replace rule inet box input handle "$h" iifname boxnet accept comment '"box: a box never reaches the host"'
dj=$($BOX doctor --json 2>/dev/null); rc=$?
expect_eq "$rc" 1 "the last drop turned into an accept: doctor exits 1"
expect_contains "$(echo "$dj" | json "' | '.join(c['text'] for c in j['checks'] if c['id'] == 'firewall.rule' and c['status'] == 'fail')")" 'rule "box: a box never reaches the host" is CHANGED' "doctor FAILs naming the flipped verdict"
nft insert rule inet box input iifname boxnet udp dport 53 accept
out=$($BOX firewall show 2>&1)
expect_contains "$out" "a rule that is not box's" "a rule inserted into our chain is named"
$BOX firewall apply >/dev/null 2>&1
expect_eq "$($BOX firewall show --json | json "str(j['ok'])")" "True" "firewall apply puts the contract back"
nft delete table inet box
dj=$($BOX doctor --json 2>/dev/null)
expect_contains "$(echo "$dj" | json "' | '.join(c['text'] for c in j['checks'] if c['status'] == 'fail')")" "table inet box is ABSENT" "a flushed table: doctor notices"
$BOX doctor --fix >/dev/null 2>&1
expect_eq "$($BOX firewall show --json | json "str(j['ok'])")" "True" "doctor --fix re-applies it"

# --- the boot unit: before Incus, a root-owned copy, the subnet it needs -----------
unit=$(cat /etc/systemd/system/box-firewall.service 2>/dev/null)
expect_contains "$unit" "ExecStart=/usr/local/libexec/box/box-firewall firewall apply --subnet $net/24" "the unit runs the root-owned copy with the subnet"
expect_contains "$unit" "Before=network-pre.target incus.service" "the unit runs before Incus"
expect_contains "$unit" "RequiredBy=incus.service incus-startup.service" "Incus does not start without it (fail closed)"
expect_eq "$(stat -c '%U:%G %a' /usr/local/libexec/box /usr/local/libexec/box/box-firewall | tr '\n' ' ')" "root:root 755 root:root 755 " "the copy and its directory belong to root, writable by root alone"
cmp -s "$BOX" /usr/local/libexec/box/box-firewall && ok "the copy is this binary" || fail "the copy differs from $BOX"
case $unit in *"/home/"*|*"$(pwd)"*) fail "the unit names a path under a home or this checkout" ;; *) ok "the unit names no home or checkout path" ;; esac
# box's resolver's unit (the default): no systemd runs here, so nothing
# starts it; its content is checked against the template setup-host fills
# in, and its ExecStart against the command line of the resolver
# setup-host started detached in its place.
runit=$(cat /etc/systemd/system/box-resolver.service 2>/dev/null)
expect_eq "$runit" "$(sed -e 's|@BOX@|/usr/local/libexec/box/box-firewall|' -e "s|@GATEWAY@|$gw|" -e 's|@UPSTREAMS@|--upstream 127.0.0.1|' host/box-resolver.service)" \
    "box-resolver.service is the template with the boot copy, the gateway and BOX_DNS filled in"
expect_contains "$runit" "Restart=always" "...restarted when it dies"
rpid=$(cat /run/box-resolver.pid 2>/dev/null)
expect_eq "$(tr '\0' ' ' </proc/${rpid:-0}/cmdline 2>/dev/null)" "$(echo "$runit" | sed -n 's/^ExecStart=//p') " \
    "the detached resolver (no systemd here) runs exactly the unit's ExecStart"

# --- idempotence, and the expose doors survive a re-run ------------------------
api_wait PUT /1.0/network-acls/box-isolate "$(api GET /1.0/network-acls/box-isolate | json "json.dumps({'description': j['metadata']['description'], 'egress': j['metadata']['egress'], 'ingress': [{'action': 'allow', 'destination': '$gw/32', 'protocol': 'tcp', 'destination_port': '38000', 'state': 'enabled', 'description': 'box expose test'}]})")" >/dev/null
before=$(state)
out=$($BOX setup-host 2>&1); rc=$?
expect_eq "$rc" 0 "second setup-host exits 0"
so=$($BOX setup-host 2>/dev/null)
expect_eq "$so" "" "setup-host's progress is all on stderr (stdout empty)"
expect_contains "$out" "acl       ok (unchanged)" "second run changes no ACL"
expect_contains "$out" "profile   ok (unchanged)" "second run changes no profile"
after=$(state)
expect_eq "$after" "$before" "second run: identical Incus objects and nft tables"
expect_eq "$(nft_box)" "bridge/forward:4 bridge/prerouting:10 inet/egress:0 inet/expose-snat:1 inet/forward:$fwd inet/input:7" "no duplicate rules after a re-run"
n=$(api GET /1.0/network-acls/box-isolate | json "len(j['metadata']['ingress'])")
expect_eq "$n" 1 "an expose door in the ACL survives setup-host"

# drift is converged, every key, and said
api_wait PATCH /1.0/networks/boxnet '{"config":{"dns.mode":"managed","ipv6.address":"fd42:b0c5:7e57:1::1/64","ipv6.nat":"true","raw.dnsmasq":"no-resolv\nserver=127.0.0.1\nport=0"}}' >/dev/null
out=$($BOX setup-host 2>&1)
expect_eq "$(cfg dns.mode)" "none" "drifted dns.mode converged back"
expect_eq "$(cfg ipv6.address)" "none" "an IPv6 address on an existing boxnet is removed"
expect_eq "$(cfg ipv6.nat)" "false" "...and its IPv6 NAT"
expect_contains "$(cfg raw.dnsmasq)" "no-hosts" "no-hosts put back into raw.dnsmasq"
expect_contains "$out" "corrected: ipv6.address (was 'fd42:b0c5:7e57:1::1/64')" "setup-host says what it corrected"
api_wait PUT /1.0/profiles/box-net '{"description":"tampered","config":{},"devices":{"eth0":{"type":"nic","network":"boxnet","name":"eth0","security.port_isolation":"true"},"root":{"type":"disk","pool":"'"$pool"'","path":"/"}}}' >/dev/null
$BOX setup-host >/dev/null 2>&1
expect_eq "$(api GET /1.0/profiles/box-net | json "j['metadata']['devices']['eth0'].get('security.mac_filtering', 'unset')")" "true" "a profile without NIC filtering is converged back"

# --- a box on the stack: the kernel's isolated flag ------------------------------
api_wait POST /1.0/instances "{\"name\":\"${P}a\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"box-test-busybox\"},\"profiles\":[\"box-net\"],\"config\":{\"user.box\":\"1\"},\"start\":true}" >/dev/null ||
    fail "launching a box on box-net"
veth=$(api GET /1.0/instances/${P}a/state | json "j['metadata']['network']['eth0']['host_name']")
iso=$(bridge -j -d link show dev "$veth" | json "j[0].get('isolated')")
expect_eq "$iso" "true" "the box's bridge port is isolated in the kernel"
a=$(wait_ipv4 ${P}a 30)
case $a in "${gw%.1}".*) ok "box leased $a on boxnet" ;; *) fail "box address '$a' not on boxnet" ;; esac
# Its NIC filter, read back from the kernel by content (in-box probes stay
# on the box's own loopback).
export BOX_DOCTOR_PROBE_ADDR=127.0.0.1:9 BOX_DOCTOR_PROBE_NAME=localhost
filt() { $BOX doctor ${P}a --json 2>/dev/null | json "' | '.join(c['status'] + ': ' + c['text'] for c in j['checks'] if c['id'] == 'box.filter')"; }
expect_contains "$(filt)" "pass: the kernel filters port $veth to MAC" "doctor reads the box's NIC filter back from the kernel"
expect_contains "$(filt)" "and address $a, no IPv6" "...bound to the lease it holds"
h=$(nft -a list chain bridge incus fwd.${P}a.eth0 | sed -n 's/.* ip saddr != .* drop # handle //p')
nft delete rule bridge incus fwd.${P}a.eth0 handle "$h"
expect_contains "$(filt)" "fail: chain fwd.${P}a.eth0 lacks \"iifname $veth ip saddr != its address drop\"" "a removed source filter is named"
api_wait PUT /1.0/instances/${P}a/state '{"action":"restart","force":true,"timeout":30}' >/dev/null
veth=$(api GET /1.0/instances/${P}a/state | json "j['metadata']['network']['eth0']['host_name']")
wait_ipv4 ${P}a 30 >/dev/null
expect_contains "$(filt)" "pass: the kernel filters port $veth" "a restart has Incus write the filter again"

# --- dry run ---------------------------------------------------------------------------
dj=$($BOX setup-host --dry-run --json 2>&1)
expect_eq "$(echo "$dj" | json "j['subnet']['reason'] + ' ' + j['network'] + ' ' + j['acl'] + ' ' + j['profile']")" "existing ok ok ok" "dry run on a converged host: nothing to do"

# --- the nested guard, in a namespace that looks like the inside of a box -------------
ip netns add $NS
ip -n $NS link set lo up
ip -n $NS link add eth0 type veth peer name eth0p
ip -n $NS link set eth0 up; ip -n $NS link set eth0p up
ip -n $NS addr add 10.88.0.5/24 dev eth0
ip -n $NS route add default via 10.88.0.1 dev eth0
inns() { ip netns exec $NS env INCUS_SOCKET=/nonexistent/sock "$@"; }
dj=$(inns $BOX setup-host --dry-run --json 2>&1); rc=$?
expect_eq "$rc" 0 "nested dry run exits 0"
expect_eq "$(echo "$dj" | json "j['subnet']['network'] + ' ' + j['subnet']['reason']")" "10.89.0.0 autopick" "inside a box: 10.89.0.0/24 is picked"
expect_contains "$(echo "$dj" | json "j['subnet']['default_claimed_by']")" "default gateway (10.88.0.1 via eth0)" "the claimant is named"
out=$(inns $BOX setup-host --dry-run 2>&1)
expect_contains "$out" "WARNING" "the pick is announced loudly"
before=$(ip netns exec $NS nft list ruleset)
out=$(inns env BOX_SUBNET=10.88.0.0/24 $BOX setup-host 2>&1); rc=$?
expect_eq "$rc" 1 "a pin onto the claimed subnet is refused"
expect_contains "$out" "nothing was changed" "the refusal says nothing changed"
expect_eq "$(ip netns exec $NS nft list ruleset)" "$before" "the refused run changed no firewall"
dj=$(inns env BOX_SUBNET=10.90.0.0/24 $BOX setup-host --dry-run --json 2>&1)
expect_eq "$(echo "$dj" | json "j['subnet']['network'] + ' ' + j['subnet']['reason']")" "10.90.0.0 pinned" "a pin onto a free subnet is honoured"
out=$(inns env BOX_SUBNET=10.88.1.5/24 $BOX setup-host --dry-run 2>&1); rc=$?
expect_eq "$rc" 2 "a malformed pin is a usage error"
ip -n $NS link add eth1 type veth peer name eth1p
ip -n $NS addr add 10.64.0.1/10 dev eth1
out=$(inns $BOX setup-host --dry-run 2>&1); rc=$?
expect_eq "$rc" 1 "every candidate claimed: refused"
expect_contains "$out" "BOX_SUBNET" "the refusal says how to pin"
ip netns del $NS

# --- teardown ----------------------------------------------------------------------------
out=$($BOX teardown-host </dev/null 2>&1); rc=$?
expect_eq "$rc" 2 "teardown without a terminal or --yes refuses"
expect_eq "$(api GET /1.0/networks/boxnet | json "j['type']")" "sync" "the refusal removed nothing"
out=$($BOX teardown-host --yes 2>&1); rc=$?
expect_eq "$rc" 0 "teardown-host --yes exits 0"
[ "$rc" = 0 ] || echo "$out"
for o in networks/boxnet network-acls/box-isolate profiles/box-net instances/${P}a; do
	expect_eq "$(api GET /1.0/$o | json "str(j.get('error_code'))")" 404 "$o is gone"
done
expect_eq "$(nft_box)" "" "no box nft table remains"
[ ! -e /etc/systemd/system/box-firewall.service ] && [ ! -e /usr/local/libexec/box/box-firewall ] &&
    ok "teardown removed the unit and the boot copy" || fail "the unit or the boot copy survived teardown"
[ ! -e /etc/systemd/system/box-resolver.service ] && [ ! -e /run/box-resolver.pid ] && ! kill -0 "${rpid:-0}" 2>/dev/null &&
    ok "teardown stopped box's resolver and removed its unit" || fail "box's resolver or its unit survived teardown"
out=$($BOX teardown-host --yes 2>&1); rc=$?
expect_eq "$rc" 0 "teardown on a clean host is a no-op"

summary
