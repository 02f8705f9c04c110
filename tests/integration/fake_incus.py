#!/usr/bin/env python3
"""A misbehaving Incus daemon on a temporary unix socket.

    fake_incus.py SOCKET MODE

Every connection gets the reply that MODE names, so a test can check that
box turns each kind of bad reply into one clear error (exit 1), never a
crash or a hang.  Modes:

  truncated   Content-Length promises more than is sent, then close
  oversized   a chunked body that never ends (grows past any sane cap)
  bighead     a header section far over 16 KiB
  malformed   a status line that is not HTTP
  notjson     a 200 whose body is not JSON
  badjson     an envelope with invalid JSON (bad escape)
  deepjson    a body nested 10000 levels deep
  slow        accepts, then sends nothing (the read timeout must fire)
  drip        sends one header byte a second, for ever (the reply deadline)
  closed      accepts and closes at once
  badchunk    a chunk size that is not hex
  wrongtype   an envelope whose metadata is not a list
"""
import os
import socket
import sys
import threading
import time

ENV_OK = b'{"type":"sync","status":"Success","status_code":200,"metadata":%s}'


def reply(c, mode):
    if mode == "truncated":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"type\":")
        return
    if mode == "oversized":
        c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"100000\r\n" + b"[" * 0x100000 + b"\r\n"
        try:
            for _ in range(200):
                c.sendall(chunk)
        except OSError:
            pass
        return
    if mode == "bighead":
        c.sendall(b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 70000 + b"\r\n\r\n")
        return
    if mode == "malformed":
        c.sendall(b"SPDY/9 what\r\n\r\n")
        return
    if mode == "notjson":
        body = b"<html>hello</html>"
    elif mode == "badjson":
        body = b'{"type":"sync","metadata":["\\q"]}'
    elif mode == "deepjson":
        body = b"[" * 10000 + b"]" * 10000
    elif mode == "wrongtype":
        body = ENV_OK % b'{"not":"a list"}'
    elif mode == "badchunk":
        c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        return
    elif mode == "slow":
        time.sleep(3600)
        return
    elif mode == "drip":
        for b in b"HTTP/1.1 200 OK\r\nX: " + b"a" * 100000:
            c.sendall(bytes([b]))
            time.sleep(0.5)
        return
    elif mode == "closed":
        return
    else:
        body = b"unknown mode"
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)


def serve(c, mode):
    try:
        c.settimeout(5)
        c.recv(65536)
        reply(c, mode)
    except OSError:
        pass
    finally:
        c.close()


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if os.path.exists(path):
        os.unlink(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, mode), daemon=True).start()


if __name__ == "__main__":
    main()
