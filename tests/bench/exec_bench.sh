#!/bin/sh
# box exec vs incus exec, in one run, alternating so both see the same
# daemon and machine state:
#   latency     `box exec B -- true` vs `incus exec B -- true`, median of
#               EXEC_BENCH_N (30) rounds each; target ratio <= 0.5
#   throughput  100 MB on stdout (head -c in the box) into a pipe, median of
#               EXEC_BENCH_TP (5) rounds each; target ratio >= 1.0
# box runs the command the way it always does: as the box's user through a
# login shell, so its figure includes that work; incus runs `true` bare.
# Needs root, the daemon and the test image (sh ci/setup.sh).
set -eu
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

B=boxit-exec-bench
trap 'cleanup_prefix boxit-exec-bench >/dev/null 2>&1' EXIT
cleanup_prefix boxit-exec-bench >/dev/null 2>&1
launch "$B" box-test-busybox '{"user.box":"1"}'
"$BOX" exec "$B" -- true </dev/null	# warm up both paths
incus exec "$B" -- true </dev/null

python3 - "$BOX" "$B" "${EXEC_BENCH_N:-30}" "${EXEC_BENCH_TP:-5}" <<'EOF'
import statistics, subprocess, sys, time

box, inst, n, tp = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
MB = 100
cmds = {
    "box": [box, "exec", inst, "--"],
    "incus": ["incus", "exec", inst, "--"],
}

def run(argv, out=subprocess.DEVNULL):
    t = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out)
    if r.returncode != 0:
        sys.exit("%s exited %d" % (" ".join(argv), r.returncode))
    return time.perf_counter() - t

lat = {"box": [], "incus": []}
for i in range(n):
    for k in (("box", "incus") if i % 2 == 0 else ("incus", "box")):
        lat[k].append(run(cmds[k] + ["true"]))
mb = {"box": lat["box"], "incus": lat["incus"]}
med = {k: statistics.median(v) * 1000 for k, v in lat.items()}
ratio = med["box"] / med["incus"]
print("exec latency (`-- true`, median of %d): box %.1f ms, incus %.1f ms, "
      "ratio %.2f (target <= 0.5): %s" % (n, med["box"], med["incus"], ratio,
      "PASS" if ratio <= 0.5 else "MISS"))

thr = {"box": [], "incus": []}
gen = ["head", "-c", str(MB << 20), "/dev/zero"]
for i in range(tp):
    for k in (("box", "incus") if i % 2 == 0 else ("incus", "box")):
        # a pipe to a reader, as in `box exec b -- cmd | consumer`
        t = time.perf_counter()
        p = subprocess.Popen(cmds[k] + gen, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE)
        got = 0
        while True:
            b = p.stdout.read1(1 << 20)
            if not b:
                break
            got += len(b)
        p.wait()
        dt = time.perf_counter() - t
        if got != MB << 20 or p.returncode != 0:
            sys.exit("%s: %d bytes, exit %d" % (k, got, p.returncode))
        thr[k].append(MB / dt)
mt = {k: statistics.median(v) for k, v in thr.items()}
r2 = mt["box"] / mt["incus"]
print("stdout throughput (%d MB, median of %d): box %.0f MB/s, incus %.0f MB/s, "
      "ratio %.2f (target >= 1.0): %s" % (MB, tp, mt["box"], mt["incus"], r2,
      "PASS" if r2 >= 1.0 else "MISS"))
EOF
