#!/usr/bin/env python3
"""neigh.py - test_neighbour.sh's probes: a hostile neighbour on boxnet.

Run inside a box (pushed in; root; eth0) unless said otherwise.  Every
verdict is what was observed, never an exit code:
  arp CLAIM              forged ARP from eth0's MAC claiming CLAIM (requests
                         and replies, to broadcast and to the gateway, three
                         rounds): sent
  arpask IP SECS         an ARP who-has IP from our own MAC and address:
                         reply <mac> | silent
  dhcp TYPE CHADDR SECS [giaddr=A] [ciaddr=A] [reqip=A] [server=A]
                         one DHCP message (TYPE discover, request, release,
                         decline) from 0.0.0.0 with our MAC as the frame's
                         source and CHADDR inside, broadcast flag set;
                         then listen: offer <yiaddr> | ack <yiaddr> |
                         nak | silent
  icmperr DST            an ICMP port-unreachable to DST quoting a UDP
                         packet DST:53 -> us:40000 that never was: sent
  udpflows DST PORT N TOKEN
                         one datagram from each of N sockets: sent N
  udp DST PORT TOKEN     one datagram: sent
  frame SRCMAC DSTMAC TYPE SRC DST TOKEN
                         three frames from SRCMAC to DSTMAC: TYPE ip,
                         a UDP datagram to DST:9 from the forged source SRC
                         carrying TOKEN; TYPE raw, ethertype 0x88b5 (local
                         experimental) carrying TOKEN: sent
Run on the host or in a namespace:
  record LOG PORT        UDP on 0.0.0.0:PORT and every ICMP arriving: lines
                         "udp <src> <sport> <token>" / "icmp <src> <type>"
                         appended to LOG; "# ready" first
  count LOG TOKEN        distinct source ports heard with TOKEN: <n>
  heardon DEV SECS TOKEN frames carrying TOKEN that DEV sends or receives
                         in SECS (a packet socket on it): <n>; "# ready"
                         on stderr once it listens
Python 3 standard library only.
"""
import os
import random
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003


def _mac_of(dev):
    with open("/sys/class/net/%s/address" % dev) as f:
        return bytes(int(x, 16) for x in f.read().strip().split(":"))


def _ip_of(dev):
    import fcntl
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        r = fcntl.ioctl(s.fileno(), 0x8915,
                        struct.pack("256s", dev.encode()[:15]))
        return r[20:24]
    except OSError:
        return b"\0\0\0\0"
    finally:
        s.close()


def _gateway():
    with open("/proc/net/route") as f:
        for line in f.readlines()[1:]:
            p = line.split()
            if p[1] == "00000000":
                return struct.pack("<I", int(p[2], 16))
    return None


def _csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def _ipv4(src, dst, proto, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload),
                    random.randint(0, 65535), 0, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", _csum(h)) + h[12:]
    return h + payload


def _udp(src, dst, sport, dport, data):
    u = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    ph = src + dst + struct.pack("!BBH", 0, 17, len(u))
    c = _csum(ph + u) or 0xffff
    return u[:6] + struct.pack("!H", c) + u[8:]


def _raw(dev="eth0"):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.bind((dev, 0))
    return s


def _arp_frame(dst, src, op, sha, spa, tha, tpa):
    return (dst + src + b"\x08\x06" +
            struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa)


def arp(claim):
    me = _mac_of("eth0")
    spa = socket.inet_aton(claim)
    gw = _gateway() or b"\0\0\0\0"
    bc = b"\xff" * 6
    s = _raw()
    for _ in range(3):
        s.send(_arp_frame(bc, me, 1, me, spa, b"\0" * 6, spa))
        s.send(_arp_frame(bc, me, 2, me, spa, bc, spa))
        s.send(_arp_frame(bc, me, 1, me, spa, b"\0" * 6, gw))
        s.send(_arp_frame(bc, me, 2, me, spa, b"\0" * 6, gw))
        time.sleep(0.3)
    s.close()
    return "sent"


def arpask(ip, secs):
    me = _mac_of("eth0")
    spa = _ip_of("eth0")
    tpa = socket.inet_aton(ip)
    s = _raw()
    end = time.time() + float(secs)
    nxt = 0
    while time.time() < end:
        if time.time() >= nxt:
            s.send(_arp_frame(b"\xff" * 6, me, 1, me, spa, b"\0" * 6, tpa))
            nxt = time.time() + 0.5
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        f = s.recv(2048)
        if len(f) >= 42 and f[12:14] == b"\x08\x06" and \
                struct.unpack("!H", f[20:22])[0] == 2 and f[28:32] == tpa:
            s.close()
            return "reply " + ":".join("%02x" % b for b in f[22:28])
    s.close()
    return "silent"


DHCP_TYPES = {"discover": 1, "request": 3, "decline": 4, "release": 7}


def _mac_text(t):
    return bytes(int(x, 16) for x in t.split(":"))


def dhcp(typ, chaddr, secs, *kv):
    opts = dict(x.split("=", 1) for x in kv)
    me = _mac_of("eth0")
    ch = _mac_text(chaddr)
    xid = random.randint(1, 0xffffffff)
    zero = b"\0\0\0\0"
    ciaddr = socket.inet_aton(opts["ciaddr"]) if "ciaddr" in opts else zero
    giaddr = socket.inet_aton(opts["giaddr"]) if "giaddr" in opts else zero
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6,
                        1 if giaddr != zero else 0, xid, 0, 0x8000,
                        ciaddr, zero, zero, giaddr, ch, b"", b"")
    o = b"\x63\x82\x53\x63" + bytes([53, 1, DHCP_TYPES[typ]])
    if "reqip" in opts:
        o += bytes([50, 4]) + socket.inet_aton(opts["reqip"])
    if "server" in opts:
        o += bytes([54, 4]) + socket.inet_aton(opts["server"])
    # no client identifier: dnsmasq then finds a lease by chaddr alone
    # (a lease holding the client's own identifier would not match ours)
    o += b"\xff"
    payload = bootp + o
    src = zero
    dst = b"\xff" * 4
    frame = (b"\xff" * 6 + me + b"\x08\x00" +
             _ipv4(src, dst, 17, _udp(src, dst, 68, 67, payload)))
    s = _raw()
    s.send(frame)
    end = time.time() + float(secs)
    verdict = "silent"
    while time.time() < end:
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        f = s.recv(4096)
        if len(f) < 14 + 20 + 8 + 240 or f[12:14] != b"\x08\x00":
            continue
        ihl = (f[14] & 15) * 4
        u = 14 + ihl
        if f[14 + 9] != 17 or struct.unpack("!H", f[u + 2:u + 4])[0] != 68:
            continue
        b = f[u + 8:]
        if b[0] != 2 or struct.unpack("!I", b[4:8])[0] != xid:
            continue
        yi = socket.inet_ntoa(b[16:20])
        t = 0
        i = 240
        while i + 1 < len(b) and b[i] != 255:
            if b[i] == 0:
                i += 1
                continue
            if b[i] == 53 and b[i + 1] >= 1:
                t = b[i + 2]
            i += 2 + b[i + 1]
        verdict = {2: "offer " + yi, 5: "ack " + yi, 6: "nak"}.get(
            t, "reply type %d" % t)
        break
    s.close()
    return verdict


def churn(ciaddr, server, n):
    """n DHCP messages for the box's own lease (its own chaddr and
    address: what the bindings let through), back to back: a RELEASE,
    then a REQUEST taking the address again, and so on (ending on a
    REQUEST).  dnsmasq coalesces plain renewals, but each release and
    each new lease is a lease change: it runs the lease hook."""
    me = _mac_of("eth0")
    ci = socket.inet_aton(ciaddr)
    sv = socket.inet_aton(server)
    zero = b"\0\0\0\0"
    s = _raw()
    t = time.time()
    n = int(n) // 2 * 2
    for i in range(n):
        xid = random.randint(1, 0xffffffff)
        rel = i % 2 == 0
        bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0, xid,
                            0, 0x8000, ci if rel else zero, zero, zero,
                            zero, me, b"", b"")
        o = b"\x63\x82\x53\x63" + bytes([53, 1, 7 if rel else 3])
        if not rel:
            o += bytes([50, 4]) + ci
        o += bytes([54, 4]) + sv + b"\xff"
        frame = (b"\xff" * 6 + me + b"\x08\x00" +
                 _ipv4(zero, b"\xff" * 4, 17,
                       _udp(zero, b"\xff" * 4, 68, 67, bootp + o)))
        s.send(frame)
        time.sleep(0.005)
    s.close()
    return "sent %d in %.1f s" % (n, time.time() - t)


def icmperr(dst):
    me = _ip_of("eth0")
    d = socket.inet_aton(dst)
    inner = _ipv4(d, me, 17, _udp(d, me, 53, 40000, b"x" * 8))
    body = struct.pack("!BBHI", 3, 3, 0, 0) + inner[:28]
    body = body[:2] + struct.pack("!H", _csum(body)) + body[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    for _ in range(3):
        s.sendto(body, (dst, 0))
        time.sleep(0.1)
    s.close()
    return "sent"


def udpflows(dst, port, n, token):
    socks = []
    sent = 0
    for _ in range(int(n)):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.sendto(token.encode(), (dst, int(port)))
            sent += 1
        except OSError:
            pass
        socks.append(s)
    time.sleep(0.5)
    for s in socks:
        s.close()
    return "sent %d" % sent


def udp(dst, port, token):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(3):
        s.sendto(token.encode(), (dst, int(port)))
        time.sleep(0.1)
    s.close()
    return "sent"


def frame(srcmac, dstmac, typ, src, dst, token):
    me = _mac_text(srcmac)
    d = _mac_text(dstmac)
    if typ == "ip":
        a, b = socket.inet_aton(src), socket.inet_aton(dst)
        f = d + me + b"\x08\x00" + _ipv4(a, b, 17,
                                          _udp(a, b, 40000, 9,
                                               token.encode()))
    else:
        f = d + me + b"\x88\xb5" + token.encode().ljust(46, b"\0")
    s = _raw()
    for _ in range(3):
        s.send(f)
        time.sleep(0.1)
    s.close()
    return "sent"


def heardon(dev, secs, token):
    s = _raw(dev)
    t = token.encode()
    n = 0
    sys.stderr.write("# ready\n")
    sys.stderr.flush()
    end = time.time() + float(secs)
    while True:
        left = end - time.time()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if r and t in s.recv(4096):
            n += 1
    s.close()
    return str(n)


def record(log, port):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    u.bind(("0.0.0.0", int(port)))
    ic = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    out = open(log, "a", buffering=1)
    out.write("# ready\n")
    while True:
        r, _, _ = select.select([u, ic], [], [])
        for s in r:
            data, peer = s.recvfrom(4096)
            if s is u:
                tok = data.decode("ascii", "replace").split()[0:1]
                out.write("udp %s %d %s\n" % (peer[0], peer[1],
                                              tok[0] if tok else "-"))
            else:
                ihl = (data[0] & 15) * 4
                out.write("icmp %s %d\n" % (peer[0], data[ihl]))


def count(log, token):
    ports = set()
    try:
        with open(log) as f:
            for line in f:
                p = line.split()
                if len(p) == 4 and p[0] == "udp" and p[3] == token:
                    ports.add((p[1], p[2]))
    except OSError:
        pass
    return str(len(ports))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    fn = globals().get(sys.argv[1])
    if fn is None or sys.argv[1].startswith("_"):
        sys.exit("neigh.py: no probe %s" % sys.argv[1])
    print(fn(*sys.argv[2:]))


if __name__ == "__main__":
    main()
