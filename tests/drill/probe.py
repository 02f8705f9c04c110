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
The adversarial probes (a hostile box; their verdict is what a recorder on
the far side heard, not what the sender saw):
  udptok HOST PORT TOKEN         one datagram carrying TOKEN: reply | sent
  tcptok HOST PORT TOKEN SECS    connect and send TOKEN: as tcp
  tcpfrom SRC HOST PORT SECS     tcp from the local address SRC
  dnsask SERVER NAME             reply rcode <n> (an answer of any kind came
                                 back: the query arrived) | silent <why>
  rawudp SRC DST PORT TOKEN      a hand-made Ethernet frame on eth0 to the
                                 gateway's MAC: IPv4 SRC ("self": ours) ->
                                 DST, UDP to PORT carrying TOKEN: sent ...
  arp CLAIM                      forged ARP from eth0's MAC claiming the
                                 address CLAIM (gratuitous request and reply,
                                 a request and a reply to the gateway), three
                                 rounds a locktime apart: sent ...
  neigh IP                       the neighbour table's MAC for IP | none
  record LOG SPEC...             host/namespace side: listen on every SPEC
                                 (udp:ADDR:PORT, tcp:ADDR:PORT; [v6]) and
                                 append "<proto> <local> <peer> <token>"
                                 to LOG per arrival; "# ready" once bound
  sniff6 IFACE SECS PREFIX       count IPv6 frames arriving on IFACE whose
                                 source starts with PREFIX: seen <n> ... | none
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
    return _tcp_from(None, host, port, secs, None)


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


def _dns_ask(server, name, qid):
    """One A query for NAME straight to SERVER:53 (qid tells dnsq's from
    dnsask's in a capture): (the query, the answer); OSError when none
    came back within 3 s."""
    q = struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack("!HH", 1, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    try:
        s.sendto(q, (server, 53))
        return q, s.recv(1500)
    finally:
        s.close()


def dnsq(server, name):
    try:
        q, r = _dns_ask(server, name, 0x6472)
    except OSError as e:
        return "none " + str(e)
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


# --- the adversarial probes ---------------------------------------------------

def _family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _sockaddr(host, port):
    fam = _family(host)
    ai = socket.getaddrinfo(host, int(port), fam, socket.SOCK_DGRAM)
    return fam, ai[0][4]


def udptok(host, port, token):
    try:
        fam, sa = _sockaddr(host, port)
        s = socket.socket(fam, socket.SOCK_DGRAM)
    except OSError as e:
        return "error " + str(e)
    s.settimeout(1)
    try:
        s.sendto(token.encode(), sa)
        data = s.recv(512)
        return "reply " + data.decode("ascii", "replace").split("\n")[0]
    except socket.timeout:
        return "sent"
    except OSError as e:
        if e.errno in DROPPED_ERRNOS:
            return "dropped " + os.strerror(e.errno)
        return "sent (" + str(e) + ")"
    finally:
        s.close()


def _tcp_from(src, host, port, secs, token):
    try:
        fam, sa = _sockaddr(host, port)
        s = socket.socket(fam, socket.SOCK_STREAM)
    except OSError as e:
        return "error " + str(e)
    s.settimeout(float(secs))
    try:
        if src:
            s.bind((src, 0))
        s.connect(sa)
        if token:
            s.sendall(token.encode() + b"\n")
            time.sleep(0.2)
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


def tcptok(host, port, token, secs):
    return _tcp_from(None, host, port, secs, token)


def tcpfrom(src, host, port, secs):
    return _tcp_from(src, host, port, secs, None)


def dnsask(server, name):
    try:
        _, r = _dns_ask(server, name, 0x6473)
    except OSError as e:
        return "silent " + str(e)
    return "reply rcode %d" % (r[3] & 15)


def _gateway():
    with open("/proc/net/route") as f:
        for line in f.read().splitlines()[1:]:
            w = line.split()
            if len(w) > 2 and w[1] == "00000000":
                return w[0], socket.inet_ntoa(struct.pack("<I",
                                                          int(w[2], 16)))
    raise OSError("no default route")


def neigh(ip):
    try:
        with open("/proc/net/arp") as f:
            for line in f.read().splitlines()[1:]:
                w = line.split()
                if len(w) >= 6 and w[0] == ip and int(w[2], 16) & 2:
                    return w[3]
    except OSError:
        pass
    return "none"


def _mac(text):
    return bytes(int(x, 16) for x in text.split(":"))


def _link():
    """(dev, our MAC, our IPv4, the gateway, the gateway's MAC)."""
    dev, gw = _gateway()
    with open("/sys/class/net/%s/address" % dev) as f:
        mine = f.read().strip()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((gw, 53))
        ip = s.getsockname()[0]
    finally:
        s.close()
    m = neigh(gw)
    if m == "none":  # resolve it: a ping makes the kernel ARP for it
        icmp(gw, 1)
        m = neigh(gw)
    if m == "none":
        raise OSError("no neighbour entry for the gateway " + gw)
    return dev, mine, ip, gw, m


def rawudp(src, dst, port, token):
    try:
        dev, mine, ip, gw, gwm = _link()
        if src == "self":
            src = ip
        data = token.encode()
        udp = struct.pack("!HHHH", 40053, int(port), 8 + len(data), 0) + data
        pseudo = (socket.inet_aton(src) + socket.inet_aton(dst) +
                  struct.pack("!BBH", 0, 17, len(udp)))
        c = _csum(pseudo + udp) or 0xFFFF
        udp = udp[:6] + struct.pack("!H", c) + udp[8:]
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp),
                          os.getpid() & 0xFFFF, 0, 64, 17, 0,
                          socket.inet_aton(src), socket.inet_aton(dst))
        hdr = hdr[:10] + struct.pack("!H", _csum(hdr)) + hdr[12:]
        frame = _mac(gwm) + _mac(mine) + b"\x08\x00" + hdr + udp
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        try:
            s.bind((dev, 0))
            s.send(frame)
        finally:
            s.close()
        return "sent %s -> %s:%s via %s" % (src, dst, port, gwm)
    except OSError as e:
        return "error " + str(e)


def _arp_frame(dst, sha, op, spa, tha, tpa):
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, sha,
                       socket.inet_aton(spa), tha, socket.inet_aton(tpa))
    return dst + sha + b"\x08\x06" + body


def arp(claim):
    try:
        dev, mine, ip, gw, gwm = _link()
        sha, g, bc, z = _mac(mine), _mac(gwm), b"\xff" * 6, b"\0" * 6
        frames = [_arp_frame(bc, sha, 1, claim, z, claim),   # gratuitous
                  _arp_frame(bc, sha, 2, claim, bc, claim),  # gratuitous reply
                  _arp_frame(g, sha, 1, claim, z, gw),       # "tell <claim>"
                  _arp_frame(g, sha, 2, claim, g, gw)]       # a forged reply
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        n = 0
        try:
            s.bind((dev, 0))
            for r in range(3):  # neighbour locktime is 1 s
                if r:
                    time.sleep(1.1)
                for fr in frames:
                    s.send(fr)
                    n += 1
        finally:
            s.close()
        return "sent %d frames claiming %s as %s" % (n, claim, mine)
    except OSError as e:
        return "error " + str(e)


def record(log, *specs):
    """A listener that only records: it never answers, so nothing it hears
    can send a packet anywhere."""
    socks = {}
    for spec in specs:
        proto, rest = spec.split(":", 1)
        addr, port = rest.rsplit(":", 1)
        addr = addr.strip("[]")
        fam = _family(addr)
        s = socket.socket(fam, socket.SOCK_DGRAM if proto == "udp"
                          else socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((addr, int(port)))
        if proto == "tcp":
            s.listen(16)
        socks[s] = (proto, "%s:%s" % (addr, port))
    out = open(log, "a", buffering=1)
    out.write("# ready\n")
    while True:
        r, _, _ = select.select(list(socks), [], [])
        for s in r:
            proto, local = socks[s]
            try:
                if proto == "udp":
                    data, peer = s.recvfrom(2048)
                else:
                    c, peer = s.accept()
                    c.settimeout(1)
                    try:
                        data = c.recv(512)
                    except OSError:
                        data = b""
                    c.close()
            except OSError:
                continue
            tok = data.decode("ascii", "replace").split()
            out.write("%s %s %s %s\n" % (proto, local, peer[0],
                                         tok[0] if tok else "-"))


def sniff6(iface, secs, prefix):
    want = socket.inet_pton(socket.AF_INET6, prefix)
    want = want[:len(want.rstrip(b"\0"))]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(0x86DD))
    s.bind((iface, 0))
    end = time.time() + float(secs)
    n, first = 0, ""
    try:
        while time.time() < end:
            r, _, _ = select.select([s], [], [], max(0, end - time.time()))
            if not r:
                break
            f = s.recv(2048)
            src, dst = f[22:38], f[38:54]
            if len(f) >= 54 and src.startswith(want):
                n += 1
                first = first or "%s > %s" % (
                    socket.inet_ntop(socket.AF_INET6, src),
                    socket.inet_ntop(socket.AF_INET6, dst))
    finally:
        s.close()
    return "seen %d %s" % (n, first) if n else "none"


PROBES = {"tcp": tcp, "icmp": icmp, "dns": dns, "dnsq": dnsq, "http": http,
          "v6": v6, "udptok": udptok, "tcptok": tcptok, "tcpfrom": tcpfrom,
          "dnsask": dnsask, "rawudp": rawudp, "arp": arp, "neigh": neigh,
          "sniff6": sniff6}


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
    elif sys.argv[1] == "record":
        record(*sys.argv[2:])
    else:
        print(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
