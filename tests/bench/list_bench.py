#!/usr/bin/env python3
"""box list vs the raw requests vs incus list, on the same daemon.

For each N in the sizes given, make sure exactly N benchmark boxes
($BENCH_PREFIX NNN, tagged user.box=1, busybox; at most $BENCH_MAX_RUNNING of
them running, the rest stopped — a shared machine) exist, then time, in one
run and alternating so that drift hits all alike:

  box      ./box list --json             (box's schema, the fast reads)
  table    ./box list
  fast     curl: GET /1.0/instances?recursion=1 + GET the pool's volumes
           ?recursion=1, one curl each (the raw requests box makes)
  full     curl: GET /1.0/instances?recursion=2 (what incus list asks)
  incus    incus list -f json

and print medians and the ratios.  Also: box --version wall time, and box
list's peak RSS (from wait4).  Targets (issue 15): box/incus <= 0.2 at 50
boxes and <= 0.1 at 200, peak RSS <= 4 MiB at 200; --version <= 1 ms.
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import incus_unix  # noqa: E402

BOX = os.path.abspath(os.environ.get("BOX", "./box"))
PREFIX = os.environ.get("BENCH_PREFIX", "boxbench-")
MAX_RUNNING = int(os.environ.get("BENCH_MAX_RUNNING", "100000"))
FILTER = "filter=config.user.box+eq+1+or+config.user.claudebox+eq+1"
LIST = "/1.0/instances?recursion=2&" + FILTER
FAST = "/1.0/instances?recursion=1&" + FILTER
VOLS = "/1.0/storage-pools/default/volumes"
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
    want = ["%s%03d" % (PREFIX, i) for i in range(n)]
    have = sorted(i["name"] for i in incus_unix.call("GET", "/1.0/instances?recursion=1")
                  if i["name"].startswith(PREFIX))
    for name in have:
        if name in want:
            continue
        try:
            incus_unix.call("PUT", "/1.0/instances/%s/state" % name,
                            {"action": "stop", "force": True})
        except RuntimeError:
            pass	# already stopped
        incus_unix.call("DELETE", "/1.0/instances/" + name)
    for i, name in enumerate(want):
        if name in have:
            continue
        incus_unix.call("POST", "/1.0/instances", {
            "name": name, "type": "container",
            "source": {"type": "image", "alias": "box-test-busybox"},
            "profiles": ["default"],
            "config": {"user.box": "1", "user.box.template": "blank",
                       "limits.memory": "32MiB"},
            "start": i < MAX_RUNNING})


def med_ms(xs):
    return statistics.median(xs) * 1000


def main():
    sizes = [int(s) for s in (sys.argv[1:] or ["0", "50", "200"])]
    os.makedirs(os.path.dirname(PEAKRSS), exist_ok=True)
    subprocess.run(["musl-gcc", "-static", "-Os", "-o", PEAKRSS,
                    os.path.join(os.path.dirname(__file__), "peakrss.c")], check=True)
    curl, incus = which("curl"), which("incus")
    raw = [curl, "-s", "--unix-socket", incus_unix.SOCK]
    cmds = {
        "box": [BOX, "list", "--json"],
        "table": [BOX, "list"],
        "fast": raw + ["http://incus" + FAST, "http://incus" + VOLS],
        "full": raw + ["http://incus" + LIST],
        "incus": [incus, "list", "-f", "json"],
    }
    try:
        for n in sizes:
            t0 = time.time()
            ensure(n)
            running = sum(1 for i in incus_unix.call("GET", "/1.0/instances?recursion=1")
                          if i["name"].startswith(PREFIX) and i["status"] == "Running")
            print("N=%d, %d running (setup %.0f s)" % (n, running, time.time() - t0), flush=True)
            for a in cmds.values():	# warm the daemon and the page cache
                run(a)
            times = {k: [] for k in cmds}
            for _ in range(ROUNDS):
                for k, a in cmds.items():
                    times[k].append(run(a)[0])
            m = {k: med_ms(v) for k, v in times.items()}
            print("  median ms: " + "  ".join("%s %.2f" % (k, v) for k, v in m.items()))
            print("  ratios: box/incus %.3f  table/incus %.3f (targets <= 0.2 at 50, <= 0.1 at 200)  "
                  "box/fast %.2f  box/full %.3f"
                  % (m["box"] / m["incus"], m["table"] / m["incus"], m["box"] / m["fast"],
                     m["box"] / m["full"]))
            print("  box list --json peak RSS %.2f MiB, box list %.2f MiB, --json=full %.2f MiB "
                  "(target <= 4 MiB at 200)"
                  % (peak_rss([BOX, "list", "--json"]), peak_rss([BOX, "list"]),
                     peak_rss([BOX, "list", "--json=full"])), flush=True)
        v = [run([BOX, "--version"])[0] for _ in range(200)]
        print("box --version: median %.3f ms wall (spawn+exit included; target <= 1 ms)" % med_ms(v))
    finally:
        if os.environ.get("BENCH_KEEP") != "1":
            ensure(0)


if __name__ == "__main__":
    main()
