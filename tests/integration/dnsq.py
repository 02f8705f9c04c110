#!/usr/bin/env python3
"""dnsq.py - a DNS client for the resolver's tests (standard library only).

  dnsq.py q SERVER NAME [TYPE [CLASS [udp|tcp [noedns]]]]
      one query; prints "rcode <n> ttl <t|-> addrs <a,b|-> ede <code|-> <text>"
  dnsq.py lat SERVER NAMEFMT N [tcp]
      N sequential A queries (NAMEFMT % i; over TCP a connection each), prints "median_ms <m> max_ms <x>
      lost <k>" (a query unanswered within 2 s is lost, counted 2000 ms)
  dnsq.py flood SERVER NAMEFMT SECS
      UDP queries as fast as one socket sends them for SECS; prints "sent <n>"
  dnsq.py hold SERVER N SECS
      N TCP connections to SERVER:53 held open, silent, for SECS; prints
      "held <k>" (how many connected)
  dnsq.py lat SERVER NAMEFMT N udp|tcp TIMEOUT_S
      the same, a query unanswered within TIMEOUT_S lost (counted so)
  dnsq.py serve ADDR:PORT ANSWER SECS
      a mute upstream, UDP and TCP, for SECS: a name under fast.test is
      answered A ANSWER (TTL 300); a name starting "tc." is answered over
      UDP truncated (TC, no records) and over TCP whole (A ANSWER); a
      name under many.fast.test is answered with 64 A records (TTL 300),
      each answer the next 64 of a ring of 672 documentation addresses
      (.32 to .255 of 192.0.2/24, 198.51.100/24, 203.0.113/24: never the
      host's nor the world's own; the feed flood); any
      other name is never answered (the issue's never-answering names)
  dnsq.py fake ADDR:PORT TEXT SECS
      a responder of a box's own, UDP, for SECS: every query answered
      NXDOMAIN with an EDE (15) carrying TEXT (what a view would say)
SERVER may be ADDR or ADDR:PORT.
"""
import socket
import struct
import sys
import time

TYPES = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "PTR": 12, "TXT": 16,
         "AAAA": 28, "AXFR": 252, "ANY": 255}
CLASSES = {"IN": 1, "CH": 3, "HS": 4}


def server(s):
    if ":" in s:
        a, p = s.rsplit(":", 1)
        return a, int(p)
    return s, 53


def build(name, qtype=1, qclass=1, edns=True, qid=None):
    qid = qid if qid is not None else (int(time.time() * 1e6) & 0xFFFF)
    m = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 1 if edns else 0)
    for label in name.rstrip(".").split("."):
        if label:
            m += bytes([len(label)]) + label.encode()
    m += b"\0" + struct.pack("!HH", qtype, qclass)
    if edns:
        m += b"\0" + struct.pack("!HHIH", 41, 1232, 0, 0)
    return qid, m


def skip_name(r, i):
    while True:
        n = r[i]
        if n & 0xC0 == 0xC0:
            return i + 2
        if n == 0:
            return i + 1
        i += n + 1


def parse(r):
    rcode = r[3] & 15
    qd, an, ns, ar = struct.unpack("!HHHH", r[4:12])
    i = 12
    for _ in range(qd):
        i = skip_name(r, i) + 4
    addrs, ttls, ede = [], [], None
    for k in range(an + ns + ar):
        i = skip_name(r, i)
        typ, cls, ttl, rdlen = struct.unpack("!HHIH", r[i:i + 10])
        rd = r[i + 10:i + 10 + rdlen]
        if k < an and typ == 1 and rdlen == 4:
            addrs.append(socket.inet_ntoa(rd))
            ttls.append(ttl)
        if typ == 41:
            rcode |= (ttl >> 24) << 4
            j = 0
            while j + 4 <= len(rd):
                oc, ol = struct.unpack("!HH", rd[j:j + 4])
                if oc == 15 and ol >= 2:
                    ede = (struct.unpack("!H", rd[j + 4:j + 6])[0],
                           rd[j + 6:j + 4 + ol].decode("utf-8", "replace"))
                j += 4 + ol
        i += 10 + rdlen
    return rcode, addrs, ttls, ede


def ask(srv, name, qtype=1, qclass=1, proto="udp", edns=True, timeout=3):
    qid, m = build(name, qtype, qclass, edns)
    if proto == "tcp":
        s = socket.create_connection(srv, timeout=timeout)
        try:
            s.sendall(struct.pack("!H", len(m)) + m)
            buf = b""
            while len(buf) < 2 or len(buf) < 2 + struct.unpack("!H", buf[:2])[0]:
                d = s.recv(65536)
                if not d:
                    raise OSError("closed")
                buf += d
            r = buf[2:]
        finally:
            s.close()
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(timeout)
        try:
            s.sendto(m, srv)
            while True:
                r, _ = s.recvfrom(65536)
                if r[:2] == m[:2]:
                    break
        finally:
            s.close()
    return parse(r)


def qname(m):
    """The question's name, lower case, and the offset past its type and
    class; None for anything else."""
    if len(m) < 12 or struct.unpack("!H", m[4:6])[0] != 1:
        return None, 0
    i, labels = 12, []
    while i < len(m) and m[i] != 0:
        n = m[i]
        if n & 0xC0 or i + 1 + n > len(m):
            return None, 0
        labels.append(m[i + 1:i + 1 + n].decode("ascii", "replace").lower())
        i += n + 1
    if i + 5 > len(m):
        return None, 0
    return ".".join(labels), i + 5


MANY = [bytes([a, b, c, d]) for (a, b, c) in ((192, 0, 2), (198, 51, 100),
                                            (203, 0, 113))
        for d in range(32, 256)]
many_next = [0]


def answer(m, addr, tc, whole):
    name, end = qname(m)
    if name is None:
        return None
    flags = 0x8180 | (0x0200 if tc else 0)
    addrs = [socket.inet_aton(addr)]
    if name.endswith(".many.fast.test") or name == "many.fast.test":
        k = many_next[0]
        many_next[0] = (k + 64) % len(MANY)
        addrs = [MANY[(k + i) % len(MANY)] for i in range(64)]
    r = m[:2] + struct.pack("!HHHHH", flags, 1,
                            len(addrs) if whole else 0, 0, 0)
    r += m[12:end]
    if whole:
        for a in addrs:
            r += struct.pack("!HHHIH", 0xC00C, 1, 1, 300, 4) + a
    return r


def verdict(m):
    """'fast', 'tc' or None (never answered)."""
    name, _ = qname(m)
    if name is None:
        return None
    if name.startswith("tc."):
        return "tc"
    if name == "fast.test" or name.endswith(".fast.test"):
        return "fast"
    return None


def serve(srv, addr, secs):
    import select
    import threading
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    u.bind(srv)
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind(srv)
    t.listen(64)

    def one(c):
        c.settimeout(2)
        try:
            buf = b""
            while len(buf) < 2 or len(buf) < 2 + struct.unpack("!H", buf[:2])[0]:
                d = c.recv(65536)
                if not d:
                    return
                buf += d
            m = buf[2:2 + struct.unpack("!H", buf[:2])[0]]
            if verdict(m) is not None:
                r = answer(m, addr, False, True)
                c.sendall(struct.pack("!H", len(r)) + r)
        except OSError:
            pass
        finally:
            c.close()

    def tcp():
        while True:
            try:
                c, _ = t.accept()
            except OSError:
                return
            threading.Thread(target=one, args=(c,), daemon=True).start()

    threading.Thread(target=tcp, daemon=True).start()
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if not select.select([u], [], [], 0.5)[0]:
            continue
        for _ in range(256):
            try:
                m, peer = u.recvfrom(65536, socket.MSG_DONTWAIT)
            except OSError:
                break
            v = verdict(m)
            if v is None:
                continue
            r = answer(m, addr, v == "tc", v == "fast")
            if r is not None:
                u.sendto(r, peer)


def fake(srv, text, secs):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(srv)
    u.settimeout(0.5)
    end = time.monotonic() + secs
    t = text.encode()
    while time.monotonic() < end:
        try:
            m, peer = u.recvfrom(65536)
        except OSError:
            continue
        name, qend = qname(m)
        if name is None:
            continue
        opt = struct.pack("!HH", 15, 2 + len(t)) + struct.pack("!H", 15) + t
        r = m[:2] + struct.pack("!HHHHH", 0x8183, 1, 0, 0, 1) + m[12:qend]
        r += b"\0" + struct.pack("!HHIH", 41, 1232, 0, len(opt)) + opt
        u.sendto(r, peer)


def main():
    cmd = sys.argv[1]
    srv = server(sys.argv[2])
    if cmd == "q":
        name = sys.argv[3]
        qtype = TYPES.get(sys.argv[4], 1) if len(sys.argv) > 4 else 1
        qclass = CLASSES.get(sys.argv[5], 1) if len(sys.argv) > 5 else 1
        proto = sys.argv[6] if len(sys.argv) > 6 else "udp"
        edns = not (len(sys.argv) > 7 and sys.argv[7] == "noedns")
        try:
            rcode, addrs, ttls, ede = ask(srv, name, qtype, qclass, proto,
                                          edns)
        except OSError as e:
            print("none", e)
            return
        print("rcode %d ttl %s addrs %s ede %s" % (
            rcode, ttls[0] if ttls else "-", ",".join(addrs) or "-",
            "%d %s" % ede if ede else "-"))
    elif cmd == "lat":
        fmt, n = sys.argv[3], int(sys.argv[4])
        proto = sys.argv[5] if len(sys.argv) > 5 else "udp"
        tmo = float(sys.argv[6]) if len(sys.argv) > 6 else 2.0
        lat, lost = [], 0
        for i in range(n):
            t = time.monotonic()
            try:
                ask(srv, fmt % i if "%" in fmt else fmt, proto=proto,
                    timeout=tmo)
                lat.append((time.monotonic() - t) * 1000)
            except OSError:
                lost += 1
                lat.append(tmo * 1000)
        lat.sort()
        print("median_ms %.3f max_ms %.3f lost %d" % (
            lat[len(lat) // 2], lat[-1], lost))
    elif cmd == "flood":
        fmt, secs = sys.argv[3], float(sys.argv[4])
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setblocking(False)
        end, n = time.monotonic() + secs, 0
        while time.monotonic() < end:
            for _ in range(100):
                _, m = build(fmt % n if "%" in fmt else fmt, qid=n & 0xFFFF)
                try:
                    s.sendto(m, srv)
                except OSError:
                    pass
                n += 1
            try:
                while True:
                    s.recv(65536)
            except OSError:
                pass
        print("sent", n)
    elif cmd == "fake":
        fake(srv, sys.argv[3], float(sys.argv[4]))
    elif cmd == "serve":
        serve(srv, sys.argv[3], float(sys.argv[4]))
    elif cmd == "hold":
        n, secs = int(sys.argv[3]), float(sys.argv[4])
        held = []
        for _ in range(n):
            try:
                held.append(socket.create_connection(srv, timeout=1))
            except OSError:
                pass
        print("held", len(held))
        sys.stdout.flush()
        time.sleep(secs)
        for s in held:
            s.close()


main()
