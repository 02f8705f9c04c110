"""Tiny raw-socket Incus client for the benchmarks' setup (not for timing)."""
import http.client
import json
import socket

SOCK = "/var/lib/incus/unix.socket"


class _Conn(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("incus", timeout=600)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(600)
        s.connect(self._path)
        self.sock = s


def call(method, path, body=None, sock=SOCK):
    c = _Conn(sock)
    data = json.dumps(body).encode() if body is not None else None
    c.request(method, path, body=data,
              headers={"Content-Type": "application/json"} if data else {})
    r = json.loads(c.getresponse().read())
    c.close()
    if r["type"] == "error":
        raise RuntimeError("%s %s: %s" % (method, path, r["error"]))
    if r["type"] == "async":
        w = call("GET", r["operation"] + "/wait?timeout=600", sock=sock)
        if w["status_code"] != 200:
            raise RuntimeError("%s %s: %s" % (method, path, w["err"]))
        return w
    return r["metadata"]
