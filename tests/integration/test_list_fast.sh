#!/bin/sh
# box list's fast path (recursion=1 + the pool's volume list + the network's
# DHCP records on the host) never prints a wrong address:
#   1. busybox boxes on box-net (boxnet: filtered NICs, leases Incus pins)
#      are stopped, started, restarted, cloned (a new MAC, a new lease) and
#      deleted while box list --json runs over and over; every address it
#      prints is compared with the box's real eth0 address read from the
#      daemon's runtime state just before and just after that listing;
#   2. once settled, every running box shows exactly its real address;
#   3. records crafted under a fake INCUS_DIR (the daemon still reached by
#      INCUS_SOCKET): a lease for another address than the pinned one, a pin
#      for another MAC, a lease from before the last start and two leases for
#      one MAC show no address, and box info says why; no lease file at all
#      falls back to the daemon's full request, said once on stderr.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=${IT_LIST_PREFIX:-hl-lf-}
IT_PREFIX=$P
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
FAKE=/tmp/$P-incusdir
trap 'cleanup_prefix $P >/dev/null 2>&1; rm -rf "$FAKE"' EXIT INT TERM

api GET /1.0/profiles/box-net | json "j['metadata']['devices']['eth0']['network']" |
    grep -qx boxnet || { fail "the box-net profile (box setup-host) is missing"; summary; }

mk() {	# mk <name>: a tagged busybox box on box-net, started
	api_wait POST /1.0/instances "{\"name\":\"$1\",\"type\":\"container\",
	 \"source\":{\"type\":\"image\",\"alias\":\"box-test-busybox\"},
	 \"profiles\":[\"box-net\"],\"config\":{\"user.box\":\"1\",
	 \"user.box.template\":\"blank\",\"limits.memory\":\"32MiB\"},\"start\":true}" >/dev/null
}
for n in a b c d; do
	nft list table inet box_test_guard >/dev/null 2>&1 || { fail "egress guard missing"; summary; }
	mk $P$n || fail "launch $P$n"
done
for n in a b c d; do
	wait_ipv4 $P$n 60 >/dev/null || fail "$P$n got no address"
done

# --- 1 and 2: churn while listing -------------------------------------------
BOX=$BOX P=$P python3 - >/tmp/$P-churn.out 2>&1 <<'PY'
import json, os, subprocess, sys, threading, time
sys.path.insert(0, "tests/bench")
import incus_unix

BOX, P = os.path.abspath(os.environ["BOX"]), os.environ["P"]

def real():
    """name -> (set of eth0's global IPv4, last start); "?..." when unknown."""
    out = {}
    for i in incus_unix.call("GET", "/1.0/instances?recursion=1"):
        n = i["name"]
        if not n.startswith(P):
            continue
        s = {}
        if i["status"] == "Running":
            try:
                s = incus_unix.call("GET", "/1.0/instances/%s/state" % n)
            except RuntimeError as e:
                # Incus still says Running while the container dies, and
                # its state call fails: nothing to compare with.
                out[n] = ({"?" + str(e)}, i["last_used_at"])
                continue
        out[n] = ({a["address"] for a in ((s.get("network") or {}).get("eth0") or {}).get("addresses", [])
                   if a["family"] == "inet" and a["scope"] == "global"}, i["last_used_at"])
    return out

def listing():
    p = subprocess.run([BOX, "list", "--json"], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        print("FAIL - box list --json: rc %d, stderr %r" % (p.returncode, p.stderr))
        return None
    return {r["name"]: r for r in json.loads(p.stdout) if r["name"].startswith(P)}

def act(method, path, body=None):
    incus_unix.call(method, path, body)

def churn():
    st = lambda n, a: act("PUT", "/1.0/instances/%s%s/state" % (P, n), {"action": a, "force": True, "timeout": 30})
    steps = [
        lambda: st("b", "stop"),
        lambda: st("b", "start"),
        lambda: st("d", "restart"),
        lambda: act("POST", "/1.0/instances", {"name": P + "e", "type": "container",
                    "source": {"type": "copy", "source": P + "a"}}),
        lambda: st("e", "start"),
        lambda: st("c", "stop"),
        lambda: act("DELETE", "/1.0/instances/" + P + "c"),
        lambda: st("a", "restart"),
        lambda: st("b", "restart"),
    ]
    for i, s in enumerate(steps):
        try:
            s()
        except RuntimeError as e:
            print("FAIL - churn step %d: %s" % (i, e))
        time.sleep(0.7)

done = threading.Event()
def runner():
    try:
        churn()
    finally:
        done.set()

t = threading.Thread(target=runner)
t.start()
lists = shown = wrong = binding = 0
while not done.is_set():
    r0 = real()
    l = listing()
    r1 = real()
    if l is None:
        wrong += 1
        continue
    lists += 1
    late = []
    for n, row in l.items():
        a = row["address"]
        if a is None:
            continue
        shown += 1
        (b0, _), (b1, boot) = r0.get(n, (set(), "")), r1.get(n, (set(), ""))
        if any(x.startswith("?") for x in b0 | b1):
            continue
        if a not in b0 and a not in b1:
            late.append((n, a, row["state"], sorted(b0), sorted(b1), boot))
    if late:
        # dnsmasq writes the lease a moment before the box's DHCP client
        # puts the address on eth0: right if, in the same boot, it is there
        # a moment later.
        time.sleep(0.5)
        r2 = real()
    for n, a, st, b0, b1, boot in late:
        b2, boot2 = r2.get(n, (set(), ""))
        if a in b2 and boot2 == boot:
            binding += 1
            continue
        wrong += 1
        print("WRONG %s printed %s (%s); real before %s, after %s, later %s"
              % (n, a, st, b0, b1, sorted(b2)))
t.join()
print("churn lists %d shown %d wrong %d binding %d" % (lists, shown, wrong, binding))

# Settled: every running box has its address, and box list shows exactly it.
end = time.time() + 60
while time.time() < end:
    r = real()
    if all(r[n][0] for n in r):
        break
    time.sleep(0.3)
l = listing() or {}
r = real()
print("settled names %s" % " ".join(sorted(l)))
bad = [(n, l[n]["address"], sorted(r.get(n, ((), ""))[0])) for n in l
       if [l[n]["address"]] != sorted(r.get(n, ((), ""))[0])]
print("settled mismatches %d %s" % (len(bad), bad))
print("clone differs %s" % (l.get(P + "e", {}).get("address") not in (None, l.get(P + "a", {}).get("address"))))
PY
cat /tmp/$P-churn.out | grep -v '^churn\|^settled\|^clone' | head -20
got=$(awk '/^churn/ {print ($3 >= 10 && $5 >= 10 && $7 == 0) ? "ok" : $0}' /tmp/$P-churn.out)
expect_eq "$got" "ok" "churn: listings taken, addresses shown, none wrong ($(grep ^churn /tmp/$P-churn.out))"
expect_eq "$(awk '/^settled names/ {$1 = $2 = ""; print substr($0, 3)}' /tmp/$P-churn.out)" \
    "${P}a ${P}b ${P}d ${P}e" "settled: the deleted box is gone, the clone is there"
expect_eq "$(awk '/^settled mismatches/ {print $3}' /tmp/$P-churn.out)" 0 \
    "settled: every running box shows exactly its real address ($(grep '^settled mis' /tmp/$P-churn.out))"
expect_eq "$(awk '/^clone differs/ {print $3}' /tmp/$P-churn.out)" True "the clone has a lease of its own"

# The table says the same as --json.
out=$($BOX list 2>&1)
a=$(api GET /1.0/instances/${P}a/state | json "[x['address'] for x in j['metadata']['network']['eth0']['addresses'] if x['family'] == 'inet'][0]")
expect_eq "$(echo "$out" | awk -v n=${P}a '$1 == n {print $2, $4}')" "RUNNING $a" "the table shows the address"
api_wait PUT /1.0/instances/${P}d/state '{"action":"stop","force":true}' >/dev/null
expect_eq "$($BOX list | awk -v n=${P}d '$1 == n {print $2, $4}')" "STOPPED -" "a stopped box shows its state and no address"

# --- 3: crafted records under a fake INCUS_DIR ------------------------------
mac() { api GET /1.0/instances/$1 | json "j['metadata']['config']['volatile.eth0.hwaddr']"; }
used() { api GET /1.0/instances/$1 | json "j['metadata']['last_used_at']"; }
epoch() { date -u -d "$1" +%s; }
ma=$(mac ${P}a) mb=$(mac ${P}b) me=$(mac ${P}e)
ta=$(epoch "$(used ${P}a)") tb=$(epoch "$(used ${P}b)") te=$(epoch "$(used ${P}e)")
# Other networks' records as they are (other boxes may be listed too).
rm -rf "$FAKE"; mkdir -p "$FAKE"
cp -r /var/lib/incus/networks "$FAKE/"
rm -f "$FAKE/networks/boxnet/dnsmasq.hosts/${P}"*
# a: leased 10.88.0.201 but pinned .200; b: its pin names another MAC;
# e: two leases.  The lease time is the record's 1h: expiry = grant + 3600.
cat >"$FAKE/networks/boxnet/dnsmasq.leases" <<EOF
$((ta + 3605)) $ma 10.88.0.201 * *
$((tb + 3605)) $mb 10.88.0.202 * *
$((te + 3605)) $me 10.88.0.203 * *
$((te + 3606)) $me 10.88.0.204 * *
EOF
echo "$ma,10.88.0.200" >"$FAKE/networks/boxnet/dnsmasq.hosts/${P}a.eth0"
echo "10:66:6a:00:00:01,10.88.0.202" >"$FAKE/networks/boxnet/dnsmasq.hosts/${P}b.eth0"
F="env INCUS_SOCKET=$INCUS_SOCK INCUS_DIR=$FAKE"
out=$($F $BOX list 2>&1)
expect_eq "$(echo "$out" | awk -v p=$P 'index($1, p) == 1 {print $1, $4}' | tr '\n' ' ')" \
    "${P}a - ${P}b - ${P}d - ${P}e - " "mismatched records show no address"
expect_contains "$($F $BOX info ${P}a 2>&1)" "no address shown: its lease is on 10.88.0.201 but Incus pinned 10.88.0.200" \
    "info says why: a lease off the pinned address"
expect_contains "$($F $BOX info ${P}b 2>&1)" "no address shown: the lease Incus pinned for it is another MAC's" \
    "info says why: a pin for another MAC"
expect_contains "$($F $BOX info ${P}e 2>&1)" "no address shown: its MAC holds 2 DHCP leases" \
    "info says why: two leases"
# a lease granted before the last start
echo "$((ta + 3590)) $ma 10.88.0.200 * *" >"$FAKE/networks/boxnet/dnsmasq.leases"
expect_contains "$($F $BOX info ${P}a 2>&1)" "no address shown: its lease on 10.88.0.200 is from before its last start" \
    "info says why: a lease from before the last start"
echo "$((ta + 3610)) $ma 10.88.0.200 * *" >"$FAKE/networks/boxnet/dnsmasq.leases"
expect_eq "$($F $BOX list 2>&1 | awk -v n=${P}a '$1 == n {print $4}')" "10.88.0.200" \
    "a fresh lease on the pinned address is shown"
# no lease file: the full request, said once
rm "$FAKE/networks/boxnet/dnsmasq.leases"
$F $BOX list --json >/tmp/$P.json 2>/tmp/$P.err; rc=$?
expect_eq "$rc" 0 "without the lease file list still works"
expect_eq "$(grep -c 'asking the daemon for every box' /tmp/$P.err)" 1 "the fallback is said once on stderr"
expect_eq "$(json "[r['address'] for r in j if r['name'] == '${P}a'][0]" </tmp/$P.json)" "$a" \
    "the fallback shows the real address"
out=$($F $BOX info ${P}a 2>&1)
expect_contains "$out" "asking the daemon for its full state" "info falls back, and says so"
expect_contains "$out" "ADDRESS    $a" "info's fallback shows the real address"

summary
