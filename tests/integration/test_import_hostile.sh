#!/bin/sh
# box import treats an export as hostile (issue 10).  From a real export of
# a small busybox instance of the test's own, crafted exports are made the
# way an attacker would: unpacked, index.yaml and backup/container/
# backup.yaml edited to ask for a privileged box, raw.lxc, a host
# directory, a macvlan NIC (on a veth this test made, its peer in a netns
# of its own), a proxy, a unix-char device, a GPU - in the instance and in
# a snapshot - and repacked.  Each must be refused with exit 1, the message
# naming every offending key and device, and nothing created: no instance
# of that name, no storage volume.  YAML the reader will not guess at and
# an archive with two backup.yaml are refused the same way.  The untouched
# repack imports (when the box host stack is there: see ensure_stack).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

P=hi-imp-
VETH=hi-imp-v0
NS=hi-imp-ns
case $BOX in /*) ;; *) BOX=$PWD/$BOX ;; esac
T0=$(date +%s)
tmp=$(mktemp -d /tmp/hi-imp.XXXXXX)
cleanup()
{
	cleanup_prefix $P >/dev/null 2>&1
	ip link del "$VETH" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$tmp"
}
cleanup_prefix $P || { fail "cleanup of leftovers"; summary; }
trap cleanup EXIT INT TERM

# The stack the clean import needs (box-net, boxnet).  This test never
# builds it behind a shared host's back: only with IT_IMPORT_SETUP_HOST=1
# (a CI run where the host-stack test tore it down) does it run
# setup-host, as test_lifecycle.sh does.
ensure_stack()
{
	api GET /1.0/profiles/box-net | grep -q '"type":"sync"' &&
	    api GET /1.0/networks/boxnet | grep -q '"type":"sync"' && return 0
	[ "${IT_IMPORT_SETUP_HOST:-0}" = 1 ] || return 1
	BOX_SUBNET=10.88.0.0/24 BOX_DNS=127.0.0.1 "$BOX" setup-host \
	    >"$tmp/setup.log" 2>&1
}

nft list table inet box_test_guard >/dev/null 2>&1 ||
    { fail "egress guard missing (sh ci/egress-guard.sh install)"; summary; }
# The vet runs over the upload's own bytes, so every refusal below needs
# the stack an upload goes to.
ensure_stack || { fail "no host stack (box-net/boxnet): the vet is never reached"; summary; }

# --- the base: a busybox instance of ours, started once, a snapshot ----------
# No profile and no NIC: it needs nothing of the host stack, and a box
# export has always been started once (no volatile.apply_template left).
api_wait POST /1.0/instances '{"name":"'${P}base'","type":"container",
 "source":{"type":"image","alias":"box-test-busybox"},"profiles":[],
 "devices":{"root":{"type":"disk","path":"/","pool":"default"}},
 "config":{"user.box":"1","limits.cpu":"1"}}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"start"}' >/dev/null &&
    api_wait PUT /1.0/instances/${P}base/state '{"action":"stop","force":true}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/snapshots '{"name":"snap0"}' >/dev/null &&
    api_wait POST /1.0/instances/${P}base/backups '{"name":"b","compression_algorithm":"gzip"}' >/dev/null &&
    curl -sS --unix-socket "$INCUS_SOCK" -o "$tmp/base.tar.gz" \
        "http://incus/1.0/instances/${P}base/backups/b/export" ||
    { fail "making the base export"; summary; }
ok "a real export of ${P}base ($(stat -c %s "$tmp/base.tar.gz") bytes)"
mkdir "$tmp/x" && tar -C "$tmp/x" -xzf "$tmp/base.tar.gz" ||
    { fail "unpacking the base export"; summary; }

# The parent a crafted macvlan NIC names: a veth of ours, never a host NIC.
ip netns add "$NS" && ip link add "$VETH" type veth peer name hi-imp-v1 &&
    ip link set hi-imp-v1 netns "$NS" ||
    { fail "making the test's own veth"; summary; }

# craft OUT SPEC: a copy of the unpacked export with SPEC (JSON) applied to
# index.yaml's config: and backup/container/backup.yaml, repacked by GNU
# tar.  SPEC keys: ct_cfg, ct_dev, sn_cfg, sn_dev (maps to add to the
# instance's / snapshot snap0's config and devices); only: "index" or
# "backup" edits one file alone; raw: text appended to backup.yaml.
craft()
{
	rm -rf "$tmp/c" && cp -a "$tmp/x" "$tmp/c" &&
	python3 - "$tmp/c/backup" "$2" <<'EOF' && tar -C "$tmp/c" -czf "$1" backup
import json, sys
root, spec = sys.argv[1], json.loads(sys.argv[2])

def q(v):
    return json.dumps(v)

def add(lines, section, base, field, items):
    # the first "<field>:" of the first item of <section> (at indent base)
    i = lines.index(" " * base + section + ":")
    ind = base + 2
    for j in range(i + 1, len(lines)):
        l = lines[j]
        if l.strip() and len(l) - len(l.lstrip(" ")) <= base and not l.lstrip().startswith("- "):
            raise SystemExit("no %s in %s" % (field, section))
        body = l[ind:] if section == "container" else l[ind:]
        if l.startswith(" " * ind + field + ":") or l.startswith(" " * base + "- " + field + ":"):
            if l.rstrip().endswith("{}"):
                lines[j] = l.rstrip()[:-2].rstrip()
            out = []
            for k, v in items.items():
                if isinstance(v, dict):
                    out.append(" " * (ind + 2) + k + ":")
                    out += [" " * (ind + 4) + a + ": " + q(b) for a, b in v.items()]
                else:
                    out.append(" " * (ind + 2) + k + ": " + q(v))
            lines[j + 1:j + 1] = out
            return
    raise SystemExit("no %s in %s" % (field, section))

def edit(path, base):
    lines = open(path).read().split("\n")
    for sec, pre in (("container", "ct"), ("snapshots", "sn")):
        for field in ("config", "devices"):
            items = spec.get(pre + "_" + ("cfg" if field == "config" else "dev"))
            if items:
                add(lines, sec, base, field, items)
    text = "\n".join(lines)
    if path.endswith("backup.yaml") and "raw" in spec:
        text += spec["raw"]
    open(path, "w").write(text)

if spec.get("only") != "backup":
    edit(root + "/index.yaml", 2)
if spec.get("only") != "index":
    edit(root + "/container/backup.yaml", 0)
EOF
}

# refused OUT NAME DESC NEEDLE...: exit 1, each needle in the message,
# nothing of NAME created.
refused()
{
	_f=$1 _n=$2 _d=$3
	shift 3
	_out=$("$BOX" import "$_f" --name "$_n" </dev/null 2>&1)
	_rc=$?
	expect_eq "$_rc" 1 "$_d: exit 1"
	for _w in "$@"; do
		expect_contains "$_out" "$_w" "$_d: names $_w"
	done
	ci_exists "/1.0/instances/$_n" && fail "$_d: $_n was created" ||
	    ok "$_d: no instance $_n"
	ci_exists "/1.0/storage-pools/default/volumes/container/$_n" &&
	    fail "$_d: a volume $_n was left" || ok "$_d: no volume $_n"
}

MSG="the export asks for what a box may not have"

craft "$tmp/priv.tar.gz" '{"ct_cfg":{"security.privileged":"true"}}'
refused "$tmp/priv.tar.gz" ${P}priv "privileged" "$MSG" \
    "security.privileged (instance)"

craft "$tmp/rawlxc.tar.gz" '{"ct_cfg":{"raw.lxc":"lxc.apparmor.profile=unconfined"}}'
refused "$tmp/rawlxc.tar.gz" ${P}rawlxc "raw.lxc" "raw.lxc (instance)"

craft "$tmp/disk.tar.gz" '{"ct_dev":{"data":{"type":"disk","source":"/srv","path":"/mnt"}}}'
refused "$tmp/disk.tar.gz" ${P}disk "a host directory" \
    'device "data" (disk /mnt from the host)'

craft "$tmp/macvlan.tar.gz" '{"ct_dev":{"eth1":{"type":"nic","nictype":"macvlan","parent":"'$VETH'"}}}'
refused "$tmp/macvlan.tar.gz" ${P}macvlan "a macvlan NIC" \
    'device "eth1" (nic macvlan)'

craft "$tmp/proxy.tar.gz" '{"ct_dev":{"p":{"type":"proxy","listen":"tcp:0.0.0.0:2222","connect":"tcp:127.0.0.1:22"}}}'
refused "$tmp/proxy.tar.gz" ${P}proxy "a proxy" \
    'device "p" (proxy tcp:0.0.0.0:2222)'

craft "$tmp/char.tar.gz" '{"ct_dev":{"kvm":{"type":"unix-char","source":"/dev/kvm","path":"/dev/kvm"}}}'
refused "$tmp/char.tar.gz" ${P}char "a unix-char device" 'device "kvm" (unix-char)'

craft "$tmp/gpu.tar.gz" '{"ct_dev":{"g":{"type":"gpu"}}}'
refused "$tmp/gpu.tar.gz" ${P}gpu "a gpu" 'device "g" (gpu)'

# a snapshot's config comes back on restore
craft "$tmp/snap.tar.gz" '{"sn_cfg":{"security.privileged":"true","raw.idmap":"both 0 0"},
 "sn_dev":{"eth1":{"type":"nic","nictype":"macvlan","parent":"'$VETH'"},"g":{"type":"gpu"}}}'
refused "$tmp/snap.tar.gz" ${P}snap "a snapshot" "security.privileged (snapshot snap0)" \
    "raw.idmap (snapshot snap0)" 'device "eth1" (nic macvlan, snapshot snap0)' \
    'device "g" (gpu, snapshot snap0)'

# everything at once: one message names each
craft "$tmp/all.tar.gz" '{"ct_cfg":{"security.privileged":"true","raw.lxc":"x"},
 "ct_dev":{"data":{"type":"disk","source":"/","path":"/mnt"},
  "eth1":{"type":"nic","nictype":"macvlan","parent":"'$VETH'"},
  "p":{"type":"proxy","listen":"tcp:0.0.0.0:2222","connect":"tcp:127.0.0.1:22"},
  "kvm":{"type":"unix-char","path":"/dev/kvm"},"g":{"type":"gpu"}},
 "sn_cfg":{"raw.idmap":"both 0 0"},"sn_dev":{"g":{"type":"gpu"}}}'
refused "$tmp/all.tar.gz" ${P}all "all at once" "security.privileged (instance)" \
    "raw.lxc (instance)" 'device "data" (disk /mnt from the host)' \
    'device "eth1" (nic macvlan)' 'device "p" (proxy' 'device "kvm" (unix-char)' \
    'device "g" (gpu)' "raw.idmap (snapshot snap0)" 'device "g" (gpu, snapshot snap0)'

# one file edited alone: the daemon reads each, so box reads each
craft "$tmp/idx.tar.gz" '{"only":"index","ct_cfg":{"security.privileged":"true"}}'
refused "$tmp/idx.tar.gz" ${P}idx "index.yaml alone" "security.privileged (instance)"
craft "$tmp/bak.tar.gz" '{"only":"backup","ct_cfg":{"linux.kernel_modules":"nbd"}}'
refused "$tmp/bak.tar.gz" ${P}bak "backup.yaml alone" "linux.kernel_modules (instance)"

# YAML box will not guess at (an anchor and an alias yaml.v2 would expand)
craft "$tmp/anchor.tar.gz" '{"only":"backup","raw":"extra: &a x\nmore: *a\n"}'
refused "$tmp/anchor.tar.gz" ${P}anchor "a YAML anchor" "YAML box will not guess at"

# a second backup.yaml after the first (GNU tar would keep the last)
rm -rf "$tmp/c" && cp -a "$tmp/x" "$tmp/c" && mkdir -p "$tmp/d/backup/container" &&
    printf 'container:\n  config:\n    security.privileged: "true"\n' \
        >"$tmp/d/backup/container/backup.yaml" &&
    tar -C "$tmp/c" -cf "$tmp/dup.tar" backup &&
    tar -C "$tmp/d" -rf "$tmp/dup.tar" backup/container/backup.yaml &&
    gzip -f "$tmp/dup.tar"
refused "$tmp/dup.tar.gz" ${P}dup "two backup.yaml" "appears twice"

# --- issue 22: files -----------------------------------------------------------
# Each probe beside its control (the same file with the one thing right).
PIN='"type":"nic","network":"boxnet","name":"eth0","security.port_isolation":"true","security.mac_filtering":"true","security.ipv4_filtering":"true","security.ipv6_filtering":"true","ipv4.address":"10.88.0.9"'
# vetted (exit 0 or a failure after the vet): no refusal by the vet
vetted()
{
	_out=$("$BOX" import "$1" --name "$2" </dev/null 2>&1)
	case $_out in
	*"$MSG"* | *"the export holds"* | *"unpacks to more than"*)
	    fail "$3: refused by the vet: $_out" ;;
	*) ok "$3: the vet lets it by" ;;
	esac
	cleanup_prefix "$2" >/dev/null 2>&1
}

# a snapshot eth0 of type, network and address takes the filters off
craft "$tmp/snapnic.tar.gz" '{"sn_dev":{"eth0":{"type":"nic","network":"boxnet","ipv4.address":"10.88.0.9"}}}'
refused "$tmp/snapnic.tar.gz" ${P}snapnic "a snapshot eth0 without the filters" \
    'device "eth0" (nic on network boxnet, snapshot snap0)'
craft "$tmp/snappin.tar.gz" '{"sn_dev":{"eth0":{'"$PIN"'}}}'
SNAPPIN_OUT=$("$BOX" import "$tmp/snappin.tar.gz" --name ${P}snappin </dev/null 2>&1)
case $SNAPPIN_OUT in
*'device "eth0"'*) fail "control: the contract's NIC plus a pin is refused: $SNAPPIN_OUT" ;;
*) ok "control: a snapshot eth0 that is the contract's NIC plus a pin is not refused" ;;
esac
cleanup_prefix ${P}snappin >/dev/null 2>&1

# a snapshot's door would come back on restore
craft "$tmp/snapdoor.tar.gz" '{"sn_dev":{"expose-8080":{"type":"proxy","listen":"tcp:127.0.0.1:18080","connect":"tcp:127.0.0.1:8080","bind":"host"}}}'
refused "$tmp/snapdoor.tar.gz" ${P}snapdoor "a snapshot door" \
    'device "expose-8080" (a door, snapshot snap0: a file carries no doors)'

# hardlinks and links out of the rootfs, device nodes
relink()
{
	# relink OUT MEMBER TYPE TARGET: the clean repack plus one member
	python3 - "$tmp/clean0.tar.gz" "$1" "$2" "$3" "$4" <<'PYEOF'
import sys, tarfile
src, out, name, typ, target = sys.argv[1:]
with tarfile.open(src, "r:gz") as a, tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT) as b:
    for m in a.getmembers():
        b.addfile(m, a.extractfile(m) if m.isreg() else None)
    t = tarfile.TarInfo(name)
    t.type = {"hard": tarfile.LNKTYPE, "sym": tarfile.SYMTYPE, "chr": tarfile.CHRTYPE}[typ]
    t.linkname = target
    if typ == "chr":
        t.devmajor, t.devminor = 1, 3
    b.addfile(t)
PYEOF
	[ $? -eq 0 ] || fail "crafting $1"
}
craft "$tmp/clean0.tar.gz" '{}'
relink "$tmp/hard.tar.gz" backup/container/rootfs/hl hard backup/container/backup.yaml
refused "$tmp/hard.tar.gz" ${P}hard "a rootfs hardlink to backup.yaml" \
    "a hard link out of the box's root filesystem"
relink "$tmp/hardok.tar.gz" backup/container/rootfs/hl hard backup/container/rootfs/bin/busybox
vetted "$tmp/hardok.tar.gz" ${P}hardok "control: a hardlink inside the rootfs"
relink "$tmp/symout.tar.gz" backup/container/rootfs/etc/sl sym ../../backup.yaml
refused "$tmp/symout.tar.gz" ${P}symout "a symlink climbing out of the rootfs" \
    "a symbolic link out of the box's root filesystem"
relink "$tmp/symcfg.tar.gz" backup/container/notes sym /etc/shadow
refused "$tmp/symcfg.tar.gz" ${P}symcfg "a symlink outside the rootfs" \
    "a link or FIFO outside the box's root filesystem"
relink "$tmp/chr.tar.gz" backup/container/rootfs/dev/mem chr ""
refused "$tmp/chr.tar.gz" ${P}chr "a device node" "a device node"

# size: 96 MiB of zeros in a small file, against a 64 MiB cap
python3 - "$tmp/clean0.tar.gz" "$tmp/big.tar.gz" <<'PYEOF'
import io, sys, tarfile
class Zeros(io.RawIOBase):
    def __init__(s, n): s.n = n
    def readable(s): return True
    def readinto(s, b):
        k = min(len(b), s.n); b[:k] = bytes(k); s.n -= k; return k
with tarfile.open(sys.argv[1], "r:gz") as a, tarfile.open(sys.argv[2], "w:gz", compresslevel=1) as b:
    for m in a.getmembers():
        b.addfile(m, a.extractfile(m) if m.isreg() else None)
    t = tarfile.TarInfo("backup/container/rootfs/big"); t.size = 96 << 20
    b.addfile(t, io.BufferedReader(Zeros(t.size)))
PYEOF
[ $? -eq 0 ] || fail "making the 96 MiB export"
ok "a $(($(stat -c %s "$tmp/big.tar.gz") / 1024)) KiB export holding 96 MiB"
export BOX_IMPORT_MAX_MB=64
refused "$tmp/big.tar.gz" ${P}big "96 MiB unpacked over a 64 MiB cap" \
    "unpacks to more than 64 MiB"
unset BOX_IMPORT_MAX_MB

# the sidecar: a FIFO there must not hang the import
cp "$tmp/clean0.tar.gz" "$tmp/fifo.tar.gz" && mkfifo "$tmp/fifo.tar.gz.sha256"
_t=$(date +%s)
_out=$(timeout 20 "$BOX" import "$tmp/fifo.tar.gz" --name ${P}fifo </dev/null 2>&1)
_rc=$?
[ "$_rc" -ne 124 ] && ok "a FIFO sidecar does not hang import ($(($(date +%s) - _t)) s)" ||
    fail "import hung on a FIFO sidecar"
expect_contains "$_out" "not a regular file" "the FIFO sidecar is named"
cleanup_prefix ${P}fifo >/dev/null 2>&1
# one open: a symlink to an export is not followed
ln -s "$tmp/clean0.tar.gz" "$tmp/link.tar.gz"
_out=$("$BOX" import "$tmp/link.tar.gz" --name ${P}link </dev/null 2>&1)
expect_eq "$?" 1 "a symlinked export: exit 1"
expect_contains "$_out" "is a symbolic link" "a symlinked export is refused"
cleanup_prefix ${P}link >/dev/null 2>&1

# stamps outside their grammar: a CSI, a newline
craft "$tmp/stamp.tar.gz" '{"ct_cfg":{"user.box.template":"\u001b[2Jx","user.box.role":"a\nFAKE RUNNING"}}'
refused "$tmp/stamp.tar.gz" ${P}stamp "stamps with a CSI and a newline" \
    "user.box.template (instance: not a name)" "user.box.role (instance: not a name)"

# --- the clean repack imports --------------------------------------------------
craft "$tmp/clean.tar.gz" '{}'
if ensure_stack; then
	_out=$("$BOX" import "$tmp/clean.tar.gz" --name ${P}clean </dev/null 2>&1)
	expect_eq "$?" 0 "the untouched repack imports"
	expect_contains "$_out" "ready" "it says so"
	cfg=$(api GET /1.0/instances/${P}clean | json "' '.join(sorted(j['metadata']['config']))")
	case " $cfg " in
	*" security."* | *" raw."*) fail "the clean import holds $cfg" ;;
	*) ok "the clean import holds no security.* or raw.* key" ;;
	esac
	expect_eq "$(api GET /1.0/instances/${P}clean | json "','.join(j['metadata']['profiles'])")" \
	    box-net "the clean import is on box-net alone"
	expect_eq "$(api GET /1.0/instances/${P}clean/snapshots | json "len(j['metadata'])")" 1 \
	    "its snapshot came with it"
	# provenance is this host's; the file's word a claim
	expect_eq "$(api GET /1.0/instances/${P}clean | json "j['metadata']['config'].get('user.box.origin')")" \
	    import "origin is this host's (import)"
	# the sanitiser: hostile values set through the daemon reach no terminal raw
	api PATCH /1.0/instances/${P}clean '{"config":{"user.box.template":"t\u001b[2J\u001b]0;owned\u0007\nFAKE RUNNING","user.box.origin.from":"x\u202ey\u009b31m"}}' >/dev/null
	expect_contains "$(api GET /1.0/instances/${P}clean)" '\u001b[2J' "control: the daemon holds the raw ESC"
	for _v in list info; do
		if [ $_v = list ]; then "$BOX" list >"$tmp/$_v.out" 2>&1; else "$BOX" info ${P}clean >"$tmp/$_v.out" 2>&1; fi
		_raw=$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(sum(1 for c in b if (c < 32 and c != 10) or c == 127) + b.count(b"\xe2\x80\xae") + b.count(b"\xc2\x9b"))' "$tmp/$_v.out")
		expect_eq "$_raw" 0 "box $_v: no raw control byte or bidi override on its output"
		grep -q '^FAKE RUNNING' "$tmp/$_v.out" && fail "box $_v: a newline forged a row" ||
		    ok "box $_v: no forged row"
		expect_contains "$(cat "$tmp/$_v.out")" 't\x1b[2J' "box $_v: the ESC shown escaped"
	done
	# an error naming a value the box holds: an egress policy no reader takes
	api PATCH /1.0/instances/${P}clean '{"config":{"user.box.egress":"allow:\u001b]0;owned\u0007\u202ex\nFAKE RUNNING"}}' >/dev/null
	"$BOX" verify ${P}clean >"$tmp/err.out" 2>&1
	expect_eq "$?" 1 "box verify of a box with an unreadable policy: exit 1"
	_raw=$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(sum(1 for c in b if (c < 32 and c != 10) or c == 127) + b.count(b"\xe2\x80\xae"))' "$tmp/err.out")
	expect_eq "$_raw" 0 "the error: no raw control byte or bidi override"
	grep -q '^FAKE RUNNING' "$tmp/err.out" && fail "the error: a newline forged a line" ||
	    ok "the error: no forged line"
	expect_contains "$(cat "$tmp/err.out")" '\x1b]0;owned\x07\u202ex\nFAKE' "the error: the policy shown escaped"
	api PATCH /1.0/instances/${P}clean '{"config":{"user.box.egress":""}}' >/dev/null
	# restore re-asserts the shape: a snapshot made behind box's back with
	# an eth0 of type, network and address and a door
	api PATCH /1.0/instances/${P}clean '{"config":{"user.box.template":"blank","user.box.origin.from":""}}' >/dev/null
	api_wait PUT /1.0/instances/${P}clean/state '{"action":"stop","force":true}' >/dev/null
	api_wait PATCH /1.0/instances/${P}clean '{"devices":{"eth0":{"type":"nic","network":"boxnet","ipv4.address":"10.88.0.250"},
	 "expose-7":{"type":"proxy","listen":"tcp:127.0.0.1:38107","connect":"tcp:127.0.0.1:7","bind":"host"}}}' >/dev/null &&
	    api_wait POST /1.0/instances/${P}clean/snapshots '{"name":"bad"}' >/dev/null ||
	    fail "making the snapshot with a bare eth0 and a door"
	api GET /1.0/instances/${P}clean | python3 -c '
import json, sys
m = json.load(sys.stdin)["metadata"]
for k in ("eth0", "expose-7"):
    m["devices"].pop(k, None)
print(json.dumps({k: m[k] for k in ("config", "devices", "profiles", "description", "architecture", "ephemeral", "stateful")}))' >"$tmp/put.json"
	api_wait PUT /1.0/instances/${P}clean "$(cat "$tmp/put.json")" >/dev/null &&
	    api_wait PUT /1.0/instances/${P}clean/state '{"action":"start"}' >/dev/null ||
	    fail "putting the box back to its shape"
	expect_contains "$(api GET /1.0/instances/${P}clean/snapshots/bad)" '"ipv4.address":"10.88.0.250"' \
	    "control: the snapshot holds the bare eth0"
	_out=$("$BOX" restore ${P}clean bad --force 2>&1)
	expect_eq "$?" 0 "restore of that snapshot: exit 0"
	expect_contains "$_out" "removed the snapshot's NIC eth0" "restore says it removed the bare eth0"
	expect_contains "$_out" "closed door expose-7" "restore says it closed the door"
	expect_eq "$(api GET /1.0/instances/${P}clean | json "','.join(sorted(k for k in j['metadata']['devices'] if k == 'eth0' or k.startswith('expose-')))")" \
	    "" "after restore: no local eth0, no door"
	expect_eq "$(api GET /1.0/instances/${P}clean | json "j['metadata']['expanded_devices']['eth0'].get('security.port_isolation')")" \
	    true "after restore: eth0 is the profile's, isolated"
	expect_eq "$(api GET /1.0/instances/${P}clean | json "j['metadata']['status']")" Running "after restore: running again"
else
	fail "no stack (box-net/boxnet absent): the clean import was not tried"
fi

echo "# $(($(date +%s) - T0)) s"
summary
