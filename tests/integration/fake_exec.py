#!/usr/bin/env python3
"""A fake Incus daemon that misbehaves in the exec websockets.

    fake_exec.py SOCKET MODE

It knows one box, "fakebox" (tagged, running), accepts POST .../exec and
hands out four websocket secrets; what happens on the websockets is MODE:

  ok          a correct session: "fake-ok" on stdout, "fake-err" on
              stderr, both ends, exit status 7 (proves the fake is right)
  badaccept   101 with a wrong Sec-WebSocket-Accept
  noupgrade   200 OK instead of 101
  forbidden   403 with the daemon's JSON error ("Forbidden")
  stallws     never answers the upgrade request
  rsv         a frame with a reserved bit set on stdout
  masked      a masked frame from the server
  badop       a frame with reserved opcode 3
  bigping     a ping with a 126-byte payload
  badclose    a close frame with a 1-byte payload
  toobig      a frame announcing 2^40 bytes
  contfirst   a continuation frame with no message to continue
  garbage     random bytes, then the connection closes
  nofds       the exec operation names no websockets
"""
import base64
import hashlib
import json
import os
import socket
import sys
import threading

SOCK, MODE = sys.argv[1], sys.argv[2]
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP = "/1.0/operations/0b5e7d4c-0000-4000-8000-000000000001"
SECRETS = {"control": "c" * 64, "0": "0" * 64, "1": "1" * 64, "2": "2" * 64}

state = {"ws": {}, "done": threading.Event()}
lock = threading.Lock()


def frame(op, payload=b"", fin=True, rsv=0, mask=None, length=None):
    n = len(payload) if length is None else length
    h = bytes([(0x80 if fin else 0) | rsv | op])
    mb = 0x80 if mask else 0
    if n < 126:
        h += bytes([mb | n])
    elif n < 65536:
        h += bytes([mb | 126]) + n.to_bytes(2, "big")
    else:
        h += bytes([mb | 127]) + n.to_bytes(8, "big")
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        h += mask
    return h + payload


def send_json(c, status, obj):
    body = json.dumps(obj).encode()
    c.sendall(b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % (status, len(body)) + body)


def read_request(c, buf):
    while b"\r\n\r\n" not in buf:
        d = c.recv(65536)
        if not d:
            return None, buf
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    while len(rest) < n:
        d = c.recv(65536)
        if not d:
            return None, rest
        rest += d
    return (lines[0].split(" "), hdrs, rest[:n]), rest[n:]


def shut(s):
    """Close for real: another thread is blocked in recv() on s, and a plain
    close() from here would only drop a reference, sending no FIN."""
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()


def play():
    """All four sockets are connected: run the session the mode names."""
    ws = state["ws"]
    out = ws["1"]
    try:
        for s in ws.values():
            s.sendall(frame(9, b"keepalive"))
        if MODE == "ok":
            out.sendall(frame(2, b"fake-ok\n"))
            ws["2"].sendall(frame(2, b"fake-err\n"))
            shut(ws["control"])
            out.sendall(frame(1))
            ws["2"].sendall(frame(1))
            state["done"].set()
            for k in ("0", "1", "2"):
                shut(ws[k])
            return
        bad = {
            "rsv": frame(2, b"x", rsv=0x40),
            "masked": frame(2, b"x", mask=b"\x01\x02\x03\x04"),
            "badop": frame(3, b"x"),
            "bigping": frame(9, b"p" * 126),
            "badclose": frame(8, b"\x03"),
            "toobig": frame(2, b"", length=1 << 40),
            "contfirst": frame(0, b"x"),
            "garbage": os.urandom(64),
        }[MODE]
        out.sendall(frame(2, b"before\n") + bad)
        if MODE == "garbage":
            shut(out)
    except OSError:
        pass


def handle(c):
    try:
        serve(c)
    except OSError:
        pass
    c.close()


def serve(c):
    buf = b""
    while True:
        req, buf = read_request(c, buf)
        if req is None:
            return
        (method, target, _), hdrs, body = req
        if target.startswith("/1.0/instances/fakebox/exec"):
            md = {"fds": SECRETS} if MODE != "nofds" else {}
            send_json(c, 202, {"type": "async", "status": "Operation created",
                               "status_code": 100, "operation": OP,
                               "metadata": {"id": OP[16:], "class": "websocket",
                                            "metadata": md}})
        elif target.startswith("/1.0/instances/fakebox"):
            send_json(c, 200, {"type": "sync", "status": "Success",
                               "status_code": 200, "metadata": {
                                   "name": "fakebox", "status": "Running",
                                   "type": "container",
                                   "config": {"user.box": "1"}}})
        elif target.startswith(OP + "/websocket"):
            if MODE == "stallws":
                threading.Event().wait(600)
            key = hdrs.get("sec-websocket-key", "").encode()
            acc = base64.b64encode(hashlib.sha1(key + GUID).digest())
            if MODE == "badaccept":
                acc = base64.b64encode(b"x" * 20)
            if MODE == "noupgrade":
                send_json(c, 200, {"type": "sync", "metadata": {}})
                continue
            if MODE == "forbidden":
                send_json(c, 403, {"type": "error", "error_code": 403,
                                   "error": "Forbidden"})
                continue
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket"
                      b"\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
                      acc + b"\r\n\r\n")
            which = target.split("secret=")[1][:64]
            name = [k for k, v in SECRETS.items() if v == which][0]
            with lock:
                state["ws"][name] = c
                if len(state["ws"]) == 4:
                    threading.Thread(target=play, daemon=True).start()
            # keep reading (pongs, stdin) until the client goes
            while c.recv(65536):
                pass
            return
        elif target.startswith(OP + "/wait"):
            state["done"].wait(30)
            send_json(c, 200, {"type": "sync", "status": "Success",
                               "status_code": 200, "metadata": {
                                   "id": OP[16:], "status": "Success",
                                   "status_code": 200, "err": "",
                                   "metadata": {"return": 7}}})
        else:
            send_json(c, 404, {"type": "error", "error_code": 404,
                               "error": "not found"})


def main():
    try:
        os.unlink(SOCK)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX)
    s.bind(SOCK)
    s.listen(16)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c,), daemon=True).start()


main()
