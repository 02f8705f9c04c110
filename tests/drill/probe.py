#!/usr/bin/env python3
"""probe.py - the drill's probes, run inside boxes (pushed in) and on the host.

Every verdict comes from what the probe observed, never from an exit code:
  tcp HOST PORT SECS     connected | refused (a RST came back: the packet
                         arrived) | dropped <why> (silence, or no route: nothing
                         came back) | error <why> (we could not even try)
  icmp HOST SECS         reply | silent      (raw socket: needs root)
  dns NAME               addr <a> | none <why>
  http URL SECS          body <first line> | fail <why>
  dnsq SERVER NAME       one A query straight to SERVER: addr <a> | none <rcode>
  v6                     global <dev> <addr> | none
  serve PORT MARKER      a TCP listener answering "HTTP/1.0 200" + MARKER;
                         stays in the foreground (detach it yourself)
  batch                  lines "<id> <probe> <args...>" on stdin, run at once,
                         printed as "<id> <verdict>" in input order
Python 3 standard library only (the Debian test image has python3 for
cloud-init).
"""
import errno
import os
import select
import socket
import struct
import sys
import threading
import time
import urllib.request

DROPPED_ERRNOS = (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT,
                  errno.EHOSTDOWN)


def tcp(host, port, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(float(secs))
    try:
        s.connect((host, int(port)))
        return "connected"
    except ConnectionRefusedError:
        return "refused"
    except socket.timeout:
        return "dropped no answer in %ss" % secs
    except OSError as e:
        if e.errno in DROPPED_ERRNOS:
            return "dropped " + os.strerror(e.errno)
        return "error " + str(e)
    finally:
        s.close()


def _csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def icmp(host, secs):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    except OSError as e:
        return "error " + str(e)
    ident = os.getpid() & 0xFFFF
    hdr = struct.pack("!BBHHH", 8, 0, 0, ident, 1) + b"box-drill"
    pkt = hdr[:2] + struct.pack("!H", _csum(hdr)) + hdr[4:]
    end = time.time() + float(secs)
    try:
        s.sendto(pkt, (host, 0))
        while time.time() < end:
            r, _, _ = select.select([s], [], [], max(0, end - time.time()))
            if not r:
                break
            data, addr = s.recvfrom(2048)
            ihl = (data[0] & 15) * 4
            typ, _, _, rid, _ = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            if addr[0] == host and typ == 0 and rid == ident:
                return "reply"
    except OSError as e:
        if e.errno in DROPPED_ERRNOS:
            return "silent " + os.strerror(e.errno)
        return "error " + str(e)
    finally:
        s.close()
    return "silent"


def dns(name):
    try:
        res = socket.getaddrinfo(name, None, socket.AF_INET,
                                 socket.SOCK_STREAM)
        return "addr " + res[0][4][0]
    except socket.gaierror as e:
        return "none " + str(e)


def dnsq(server, name):
    q = struct.pack("!HHHHHH", 0x6472, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack("!HH", 1, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    try:
        s.sendto(q, (server, 53))
        r = s.recv(1500)
    except OSError as e:
        return "none " + str(e)
    finally:
        s.close()
    rcode = r[3] & 15
    if rcode != 0 or struct.unpack("!H", r[6:8])[0] == 0:
        return "none rcode %d" % rcode
    i = len(q)
    while i + 12 <= len(r):
        if r[i] & 0xC0 == 0xC0:
            i += 2
        else:
            while r[i]:
                i += r[i] + 1
            i += 1
        typ, _, _, rdlen = struct.unpack("!HHIH", r[i:i + 10])
        if typ == 1 and rdlen == 4:
            return "addr " + socket.inet_ntoa(r[i + 10:i + 14])
        i += 10 + rdlen
    return "none no A record"


def http(url, secs):
    try:
        with urllib.request.urlopen(url, timeout=float(secs)) as r:
            line = r.read(200).decode("ascii", "replace").splitlines()
            return "body " + (line[0] if line else "")
    except Exception as e:  # the reason is the verdict's detail
        return "fail " + str(e).replace("\n", " ")


def v6():
    try:
        with open("/proc/net/if_inet6") as f:
            for line in f:
                w = line.split()
                if len(w) == 6 and w[3] == "00" and w[5] != "lo":
                    return "global %s %s" % (w[5], w[0])
    except OSError:
        pass
    return "none"


def serve(port, marker):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", int(port)))
    s.listen(16)
    body = ("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s\n"
            % marker).encode()
    while True:
        c, _ = s.accept()
        try:
            c.settimeout(2)
            try:
                c.recv(4096)
            except OSError:
                pass
            c.sendall(body)
        except OSError:
            pass
        finally:
            c.close()


PROBES = {"tcp": tcp, "icmp": icmp, "dns": dns, "dnsq": dnsq, "http": http,
          "v6": v6}


def run(words):
    fn = PROBES.get(words[0])
    if fn is None:
        return "error unknown probe " + words[0]
    try:
        return fn(*words[1:])
    except TypeError as e:
        return "error " + str(e)


def batch():
    jobs = [l.split() for l in sys.stdin.read().splitlines() if l.strip()]
    out = [None] * len(jobs)

    def one(i):
        out[i] = run(jobs[i][1:])

    ts = [threading.Thread(target=one, args=(i,)) for i in range(len(jobs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for j, v in zip(jobs, out):
        print(j[0], v)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "batch":
        batch()
    elif sys.argv[1] == "serve":
        serve(*sys.argv[2:4])
    else:
        print(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
