#!/usr/bin/env python3
"""Turn `nft --debug=mnl` output (stdin) into one line per message of the
last batch it sent: "<type> <payload hex>", the payload being everything
after the 16-byte netlink header.  nltool fw-bytes prints our batch in the
same format, so the two can be compared byte for byte."""
import re
import sys

ESC = re.compile(r'\x1b\[[0-9;]*m')
msgs = []
cur = None
for line in sys.stdin:
    line = ESC.sub('', line.rstrip('\n'))
    m = re.match(r'^\|\s+(\d+)\s+\|\s+(\S+)\s+\|\s+\|\s+type \| flags', line)
    if m:
        cur = [int(m.group(1)), bytearray()]
        msgs.append(cur)
        continue
    if cur is None:
        continue
    m = re.match(r'^\|(\d{5})\|(..)\|(\d{5})\|', line)
    if m:
        ln, fl, ty = int(m.group(1)), m.group(2), int(m.group(3))
        if 'N' in fl:
            ty |= 0x8000
        if 'B' in fl:
            ty |= 0x4000
        cur[1] += ln.to_bytes(2, 'little') + ty.to_bytes(2, 'little')
        continue
    m = re.match(r'^\| ((?:[0-9a-f]{2} ){3}[0-9a-f]{2})  \|', line)
    if m:
        cur[1] += bytes.fromhex(m.group(1).replace(' ', ''))
# Keep the last batch (BATCH_BEGIN = 16 ... BATCH_END = 17).
out, inside = [], False
for ty, payload in msgs:
    if ty == 16:
        out, inside = [], True
    elif ty == 17:
        inside = False
    elif inside:
        out.append('%d %s' % (ty, payload.hex()))
print('\n'.join(out))
