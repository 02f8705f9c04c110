#!/bin/sh
# box new / export / import against the incus client doing the same, in one
# run, alternating so drift hits both alike (issue 5):
#
#   mint    box new --name N --image box-test-busybox
#           vs incus launch box-test-busybox N --profile box-net, then the
#           same readiness wait box does (a command runs; cloud-init looked
#           for).  Target: box/incus <= 1.1 (median of BENCH_ROUNDS).
#   export  box export N F  vs  incus export N F  (a stopped box holding
#           BENCH_MB MiB of incompressible data).  Target: box throughput >=
#           incus's.
#   import  box import F --name M  vs  the same job by hand: incus import,
#           incus config unset volatile.eth0.hwaddr, incus start, the
#           address wait.  Target: box throughput >= incus's.
# Needs root, the daemon, box-test-busybox and the box-net profile.
set -eu
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
BOX=${BOX:-$(pwd)/box}
case $BOX in /*) ;; *) BOX=$(pwd)/$BOX ;; esac
ROUNDS=${BENCH_ROUNDS:-5}
MB=${BENCH_MB:-64}
P=${BENCH_PREFIX:-boxbench-}lc-
ONLY=${BENCH_LIFECYCLE:-mint export import}	# which parts to time
tmp=$(mktemp -d /tmp/boxbench-lc.XXXXXX)
trap 'cleanup_prefix $P >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
cleanup_prefix $P
nft list table inet box_test_guard >/dev/null 2>&1 || { echo "egress guard missing"; exit 1; }
api GET /1.0/profiles/box-net | grep -q '"type":"sync"' || { echo "no box-net profile (box setup-host)"; exit 1; }

now() { date +%s%N; }
ms() { echo $((($2 - $1) / 1000000)); }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

incus_ready()
{
	until incus exec "$1" -- true </dev/null >/dev/null 2>&1; do sleep 0.2; done
	incus exec "$1" -- sh -c 'command -v cloud-init || echo absent' </dev/null >/dev/null 2>&1
}

: >"$tmp/box.ms"
: >"$tmp/incus.ms"
i=0
case " $ONLY " in *" mint "*) ;; *) i=$ROUNDS ;; esac
while [ $i -lt "$ROUNDS" ]; do
	t=$(now)
	"$BOX" new --name ${P}b$i --image box-test-busybox >/dev/null 2>&1
	ms "$t" "$(now)" >>"$tmp/box.ms"
	t=$(now)
	incus launch box-test-busybox ${P}i$i --profile box-net </dev/null >/dev/null 2>&1
	incus_ready ${P}i$i
	ms "$t" "$(now)" >>"$tmp/incus.ms"
	i=$((i + 1))
done
b=$(median <"$tmp/box.ms") c=$(median <"$tmp/incus.ms")
[ -z "$b" ] || echo "mint   box new ${b} ms, incus launch + wait ${c} ms (median of $ROUNDS): box/incus $(awk "BEGIN {printf \"%.2f\", $b / $c}") (target <= 1.10)"
cleanup_prefix $P

# export / import on a box holding incompressible data
"$BOX" new --name ${P}src --image box-test-busybox >/dev/null 2>&1
api_wait POST /1.0/instances/${P}src/exec "{\"command\":[\"sh\",\"-c\",\"head -c $((MB * 1048576)) /dev/urandom >/root/blob\"],\"wait-for-websocket\":false,\"interactive\":false}" >/dev/null
"$BOX" down ${P}src --force >/dev/null 2>&1
: >"$tmp/bx" ; : >"$tmp/ix"; : >"$tmp/bi"; : >"$tmp/ii"
bexp() { t=$(now); "$BOX" export ${P}src "$tmp/b$1.tar.gz" >/dev/null 2>&1; ms "$t" "$(now)" >>"$tmp/bx"; }
iexp() { t=$(now); incus export ${P}src "$tmp/i$1.tar.gz" </dev/null >/dev/null 2>&1; ms "$t" "$(now)" >>"$tmp/ix"; }
bimp() { t=$(now); "$BOX" import "$tmp/b$1.tar.gz" --name ${P}bi$1 >/dev/null 2>&1; ms "$t" "$(now)" >>"$tmp/bi"; }
# the same job by hand: import, clear the copied MAC (or it will not start
# beside its source), start, wait for an address
iimp()
{
	t=$(now)
	incus import "$tmp/i$1.tar.gz" ${P}ii$1 </dev/null >/dev/null 2>&1
	incus config unset ${P}ii$1 volatile.eth0.hwaddr </dev/null >/dev/null 2>&1
	incus start ${P}ii$1 </dev/null >/dev/null 2>&1
	wait_ipv4 ${P}ii$1 60 >/dev/null 2>&1 || echo "incus side: no address" >&2
	ms "$t" "$(now)" >>"$tmp/ii"
}
# each box import's stages, from its progress lines (BOX_PROGRESS_TRACE)
i=0
while [ $i -lt "$ROUNDS" ]; do
	# alternate who goes first: the daemon's gzip dominates and drifts
	case " $ONLY " in
	*" export "*) if [ $((i % 2)) -eq 0 ]; then bexp "$i"; iexp "$i"; else iexp "$i"; bexp "$i"; fi ;;
	*) [ -e "$tmp/b0.tar.gz" ] || { bexp 0; iexp 0; }
	   [ $i -eq 0 ] || { cp "$tmp/b0.tar.gz" "$tmp/b$i.tar.gz"; cp "$tmp/b0.tar.gz.sha256" "$tmp/b$i.tar.gz.sha256"; cp "$tmp/i0.tar.gz" "$tmp/i$i.tar.gz"; } ;;
	esac
	if [ $((i % 2)) -eq 0 ]; then bimp "$i"; iimp "$i"; else iimp "$i"; bimp "$i"; fi
	cleanup_prefix ${P}bi >/dev/null; cleanup_prefix ${P}ii >/dev/null
	i=$((i + 1))
done
size=$(stat -c %s "$tmp/b0.tar.gz")
bx=$(median <"$tmp/bx") ix=$(median <"$tmp/ix") bi=$(median <"$tmp/bi") ii=$(median <"$tmp/ii")
[ "$(wc -l <"$tmp/bx")" -lt 2 ] ||
echo "export box ${bx} ms, incus ${ix} ms for $((size / 1048576)) MiB: box/incus throughput $(awk "BEGIN {printf \"%.2f\", $ix / $bx}") (target >= 1.00)"
spread() { sort -n "$1" | awk 'NR == 1 {a = $1} {b = $1} END {print a "-" b}'; }
echo "import box ${bi} ms (checksum, upload, re-home, start, address), incus import + unset MAC + start + address ${ii} ms: box/incus throughput $(awk "BEGIN {printf \"%.2f\", $ii / $bi}") (target >= 1.00; median of $(wc -l <"$tmp/bi") alternating, box $(spread "$tmp/bi") ms, incus $(spread "$tmp/ii") ms)"
echo "  import rounds (box incus, ms): $(paste -d' ' "$tmp/bi" "$tmp/ii" | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
