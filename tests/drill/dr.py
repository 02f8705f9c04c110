#!/usr/bin/env python3
"""dr.py - the drill's hands on the Incus REST API (over the unix socket).

  exec NAME SECS -- ARGV...   run ARGV in NAME (no terminal, stdin empty,
                              output recorded by the daemon); prints its
                              stdout, its stderr to stderr; exits with its
                              status (124 when it outlived SECS)
  push NAME SRC DST MODE      copy the local file SRC to DST in NAME
  ipv4 NAME PREFIX SECS       wait for a global IPv4 of NAME starting with
                              PREFIX (e.g. "10.88.0."); print it
  veth NAME                   the host side of NAME's eth0
  launch NAME IMAGE PROFILE   create and start a container from a local
                              image alias, tagged user.box=1
  delete NAME                 force-stop and delete (absent is fine)
  get PATH EXPR               print EXPR evaluated over GET PATH's metadata (m)
  call METHOD PATH [JSON]     one request; wait for its operation; exit 1 on
                              failure (the daemon's words on stderr)
Never makes the daemon pull anything: images are local aliases only.
"""
import http.client
import json
import os
import socket
import sys
import time

SOCK = os.environ.get("INCUS_SOCK", "/var/lib/incus/unix.socket")


class UConn(http.client.HTTPConnection):
    def __init__(self, timeout):
        super().__init__("incus", timeout=timeout)

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(SOCK)
        self.sock = s


def call(method, path, body=None, headers=None, raw=False, timeout=120):
    c = UConn(timeout)
    h = dict(headers or {})
    if body is not None and not isinstance(body, (bytes, bytearray)):
        body = json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    if raw:
        return r.status, data
    return json.loads(data)


def finish(j, secs=120):
    """The result of a reply: sync metadata, or the finished operation."""
    if j.get("type") == "error":
        raise RuntimeError("%s (%s)" % (j.get("error"), j.get("error_code")))
    if j.get("type") != "async":
        return j.get("metadata")
    w = call("GET", j["operation"] + "/wait?timeout=%d" % secs,
             timeout=secs + 30)
    if w.get("type") == "error":
        raise RuntimeError(w.get("error"))
    md = w["metadata"]
    if md.get("status_code") != 200:
        raise RuntimeError("operation %s: %s" % (md.get("status"),
                                                 md.get("err")))
    return md


def do(method, path, body=None, secs=120):
    return finish(call(method, path, body), secs)


def cmd_exec(name, secs, argv):
    secs = int(secs)
    j = call("POST", "/1.0/instances/%s/exec" % name, {
        "command": argv, "record-output": True,
        "wait-for-websocket": False, "interactive": False,
        "environment": {"PATH": "/usr/local/sbin:/usr/local/bin:"
                                "/usr/sbin:/usr/bin:/sbin:/bin",
                        "HOME": "/root", "LANG": "C.UTF-8"}})
    if j.get("type") == "error":
        sys.stderr.write("exec: %s\n" % j.get("error"))
        return 125
    w = call("GET", j["operation"] + "/wait?timeout=%d" % secs,
             timeout=secs + 30)
    md = w.get("metadata") or {}
    if md.get("status") == "Running":
        sys.stderr.write("exec: still running after %d s\n" % secs)
        return 124
    meta = md.get("metadata") or {}
    out = meta.get("output") or {}
    for fd, stream in (("1", sys.stdout), ("2", sys.stderr)):
        if fd in out:
            st, data = call("GET", out[fd], raw=True)
            stream.write(data.decode("utf-8", "replace"))
            call("DELETE", out[fd], raw=True)
    if md.get("status_code") != 200 and "return" not in meta:
        sys.stderr.write("exec: %s\n" % md.get("err"))
        return 125
    return int(meta.get("return", 125))


def cmd_push(name, src, dst, mode):
    with open(src, "rb") as f:
        data = f.read()
    st, body = call("POST", "/1.0/instances/%s/files?path=%s" % (name, dst),
                    body=data, raw=True, headers={
                        "Content-Type": "application/octet-stream",
                        "X-Incus-type": "file", "X-Incus-uid": "0",
                        "X-Incus-gid": "0", "X-Incus-mode": mode,
                        "X-Incus-write": "overwrite"})
    if st != 200:
        sys.exit("push: %s" % body.decode("utf-8", "replace"))


def addrs(name):
    m = call("GET", "/1.0/instances/%s/state" % name).get("metadata") or {}
    for dev, d in (m.get("network") or {}).items():
        for a in d.get("addresses", []):
            if a["family"] == "inet" and a["scope"] == "global":
                yield a["address"]


def cmd_ipv4(name, prefix, secs):
    end = time.time() + float(secs)
    while time.time() < end:
        for a in addrs(name):
            if a.startswith(prefix):
                print(a)
                return 0
        time.sleep(0.5)
    sys.stderr.write("ipv4: %s has no address in %s* after %s s\n"
                     % (name, prefix, secs))
    return 1


def cmd_veth(name):
    m = call("GET", "/1.0/instances/%s/state" % name)["metadata"]
    print(m["network"]["eth0"]["host_name"])


def cmd_launch(name, image, profile):
    do("POST", "/1.0/instances", {
        "name": name, "type": "container", "profiles": [profile],
        "source": {"type": "image", "alias": image},
        "config": {"user.box": "1"}, "start": True}, 300)


def cmd_delete(name):
    j = call("GET", "/1.0/instances/%s" % name)
    if j.get("error_code") == 404:
        return
    if j["metadata"]["status"] != "Stopped":
        do("PUT", "/1.0/instances/%s/state" % name,
           {"action": "stop", "force": True})
    do("DELETE", "/1.0/instances/%s" % name)


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    try:
        if a[0] == "exec":
            sys.exit(cmd_exec(a[1], a[2], a[4:] if a[3] == "--" else a[3:]))
        elif a[0] == "push":
            cmd_push(*a[1:5])
        elif a[0] == "ipv4":
            sys.exit(cmd_ipv4(*a[1:4]))
        elif a[0] == "veth":
            cmd_veth(a[1])
        elif a[0] == "launch":
            cmd_launch(*a[1:4])
        elif a[0] == "delete":
            cmd_delete(a[1])
        elif a[0] == "get":
            m = call("GET", a[1]).get("metadata")
            r = eval(a[2], {"m": m, "json": json})
            print(r if isinstance(r, str) else json.dumps(r))
        elif a[0] == "call":
            r = do(a[1], a[2], json.loads(a[3]) if len(a) > 3 else None)
            print(json.dumps(r))
        else:
            sys.exit(__doc__)
    except (RuntimeError, OSError, KeyError) as e:
        sys.exit("dr.py %s: %s" % (a[0], e))


if __name__ == "__main__":
    main()
