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
domain-needed
dhcp-ignore-names
server=127.0.0.1" "dnsmasq pinned to BOX_DNS, never the host's resolvers; no DHCP names"
expect_eq "$(cfg security.acls)" "box-isolate" "ACL on the network"
expect_eq "$(cfg security.acls.default.ingress.action)" "drop" "inbound dropped by default"
gw=${addr%/24}
acl=$(api GET /1.0/network-acls/box-isolate | json "' '.join(r['action'] + ':' + r.get('destination', '') for r in j['metadata']['egress'])")
expect_eq "$acl" "allow:$gw/32 drop:10.0.0.0/8 drop:172.16.0.0/12 drop:192.168.0.0/16 drop:169.254.0.0/16 drop:100.64.0.0/10" "ACL egress rules"
prof=$(api GET /1.0/profiles/box-net | json "json.dumps(j['metadata']['devices'], sort_keys=True)")
expect_eq "$prof" '{"eth0": {"name": "eth0", "network": "boxnet", "security.port_isolation": "true", "type": "nic"}, "root": {"path": "/", "pool": "default", "type": "disk"}}' "box-net profile devices"
expect_eq "$(nft_box)" "bridge/forward:2 inet/expose-snat:1 inet/input:5" "firewall as the kernel holds it (nft -j)"
expect_eq "$(cat /proc/sys/net/ipv4/conf/boxnet/route_localnet)" 1 "route_localnet on boxnet"
fw=$($BOX firewall show --json)
expect_eq "$(echo "$fw" | json "str(j['input_ok']) + str(j['snat_ok']) + j['sibling_drop']")" "TrueTruesubnet" "box firewall show reads it back (kernel refuses ibrname here)"

# --- idempotence, and the expose doors survive a re-run ------------------------
api_wait PUT /1.0/network-acls/box-isolate "$(api GET /1.0/network-acls/box-isolate | json "json.dumps({'description': j['metadata']['description'], 'egress': j['metadata']['egress'], 'ingress': [{'action': 'allow', 'destination': '$gw/32', 'protocol': 'tcp', 'destination_port': '38000', 'state': 'enabled', 'description': 'box expose test'}]})")" >/dev/null
before=$(state)
out=$($BOX setup-host 2>&1); rc=$?
expect_eq "$rc" 0 "second setup-host exits 0"
expect_contains "$out" "acl       ok (unchanged)" "second run changes no ACL"
expect_contains "$out" "profile   ok (unchanged)" "second run changes no profile"
after=$(state)
expect_eq "$after" "$before" "second run: identical Incus objects and nft tables"
expect_eq "$(nft_box)" "bridge/forward:2 inet/expose-snat:1 inet/input:5" "no duplicate rules after a re-run"
n=$(api GET /1.0/network-acls/box-isolate | json "len(j['metadata']['ingress'])")
expect_eq "$n" 1 "an expose door in the ACL survives setup-host"

# drift is converged
api_wait PATCH /1.0/networks/boxnet '{"config":{"dns.mode":"managed"}}' >/dev/null
$BOX setup-host >/dev/null 2>&1
expect_eq "$(cfg dns.mode)" "none" "drifted bridge key converged back"

# --- a box on the stack: the kernel's isolated flag ------------------------------
api_wait POST /1.0/instances "{\"name\":\"${P}a\",\"type\":\"container\",\"source\":{\"type\":\"image\",\"alias\":\"box-test-busybox\"},\"profiles\":[\"box-net\"],\"config\":{\"user.box\":\"1\"},\"start\":true}" >/dev/null ||
    fail "launching a box on box-net"
veth=$(api GET /1.0/instances/${P}a/state | json "j['metadata']['network']['eth0']['host_name']")
iso=$(bridge -j -d link show dev "$veth" | json "j[0].get('isolated')")
expect_eq "$iso" "true" "the box's bridge port is isolated in the kernel"
a=$(wait_ipv4 ${P}a 30)
case $a in "${gw%.1}".*) ok "box leased $a on boxnet" ;; *) fail "box address '$a' not on boxnet" ;; esac

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
out=$($BOX teardown-host --yes 2>&1); rc=$?
expect_eq "$rc" 0 "teardown on a clean host is a no-op"

summary
