#!/usr/bin/env python3
"""box list --json vs the raw request vs incus list, on the same daemon.

For each N in the sizes given, make sure exactly N benchmark boxes
(boxbench-NNN, tagged user.box=1, running busybox) exist, then time, in one
run and alternating so that drift hits all three alike:

  box   ./box list --json
  raw   curl --unix-socket ... the same request box makes
  incus incus list -f json

and print medians and the ratios box/raw and box/incus.  Also: box --version
wall time, and box list's peak RSS (from wait4) at the largest N.
Targets (issue 2): box/raw <= 1.2, box/incus <= 0.5, --version <= 1 ms,
peak RSS <= 4 MiB at 200 boxes.
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import incus_unix  # noqa: E402

BOX = os.path.abspath(os.environ.get("BOX", "./box"))
PREFIX = "boxbench-"
LIST = ("/1.0/instances?recursion=2&filter="
        "config.user.box+eq+1+or+config.user.claudebox+eq+1")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))
DEVNULL = os.open(os.devnull, os.O_WRONLY)
PEAKRSS = "build/bench/peakrss"


def run(argv):
    """Wall time (s) and rusage of one run, output discarded."""
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, DEVNULL, 1),
                                       (os.POSIX_SPAWN_DUP2, DEVNULL, 2)])
    _, status, ru = os.wait4(pid, 0)
    dt = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed" % argv)
    return dt, ru


def peak_rss(argv):
    """MiB, measured by the tiny static launcher (see peakrss.c)."""
    out = subprocess.run([PEAKRSS] + argv, check=True, capture_output=True)
    return int(out.stdout) / 1024


def which(p):
    for d in os.environ["PATH"].split(":"):
        if os.access(os.path.join(d, p), os.X_OK):
            return os.path.join(d, p)
    raise RuntimeError(p + " not found")


def ensure(n):
    have = sorted(i["name"] for i in incus_unix.call("GET", "/1.0/instances?recursion=1")
                  if i["name"].startswith(PREFIX))
    for name in have[n:]:
        incus_unix.call("PUT", "/1.0/instances/%s/state" % name,
                        {"action": "stop", "force": True})
        incus_unix.call("DELETE", "/1.0/instances/" + name)
    for i in range(len(have), n):
        incus_unix.call("POST", "/1.0/instances", {
            "name": "%s%03d" % (PREFIX, i), "type": "container",
            "source": {"type": "image", "alias": "box-test-busybox"},
            "profiles": ["default"],
            "config": {"user.box": "1", "user.box.template": "blank",
                       "limits.memory": "32MiB"},
            "start": True})


def med_ms(xs):
    return statistics.median(xs) * 1000


def main():
    sizes = [int(s) for s in (sys.argv[1:] or ["0", "50", "200"])]
    os.makedirs(os.path.dirname(PEAKRSS), exist_ok=True)
    subprocess.run(["musl-gcc", "-static", "-Os", "-o", PEAKRSS,
                    os.path.join(os.path.dirname(__file__), "peakrss.c")], check=True)
    curl, incus = which("curl"), which("incus")
    cmds = {
        "box": [BOX, "list", "--json"],
        "raw": [curl, "-s", "--unix-socket", incus_unix.SOCK, "http://incus" + LIST],
        "incus": [incus, "list", "-f", "json"],
    }
    try:
        for n in sizes:
            t0 = time.time()
            ensure(n)
            print("N=%d (setup %.0f s)" % (n, time.time() - t0), flush=True)
            for a in cmds.values():	# warm the daemon and the page cache
                run(a)
            times = {k: [] for k in cmds}
            for _ in range(ROUNDS):
                for k, a in cmds.items():
                    times[k].append(run(a)[0])
            m = {k: med_ms(v) for k, v in times.items()}
            print("  median ms: box %.2f  raw %.2f  incus %.2f" % (m["box"], m["raw"], m["incus"]))
            print("  ratios: box/raw %.2f (target <= 1.2)  box/incus %.2f (target <= 0.5)"
                  % (m["box"] / m["raw"], m["box"] / m["incus"]))
            print("  box list --json peak RSS %.2f MiB, box list %.2f MiB (target <= 4 MiB at 200)"
                  % (peak_rss([BOX, "list", "--json"]), peak_rss([BOX, "list"])))
            tl = [run([BOX, "list"])[0] for _ in range(ROUNDS)]
            print("  box list (table) median %.2f ms" % med_ms(tl))
        v = [run([BOX, "--version"])[0] for _ in range(200)]
        print("box --version: median %.3f ms wall (spawn+exit included; target <= 1 ms)" % med_ms(v))
    finally:
        if os.environ.get("BENCH_KEEP") != "1":
            ensure(0)


if __name__ == "__main__":
    main()
