#!/usr/bin/env python3
"""JSON readers for test_netlink.sh: turn `nft -j` / `ip -j` / `bridge -j`
output (stdin) into the line formats nltool prints, so the script can
compare what our netlink code reads with what iproute2/nftables read.

  nljson.py nft-norm            nft -j list ruleset, handles dropped
  nljson.py nft-summary         "chain <fam> <table> <name> rules <n>" and
                                "rule <fam> <table> <chain> <comment>" lines
  nljson.py links LINKJSON      ip -j -d link show  (LINKJSON unused)
  nljson.py brports             bridge -j -d link show
  nljson.py addrs               ip -j -4 addr show
  nljson.py routes              ip -j -4 route show table main
"""
import json
import sys


def drop_handles(x):
    if isinstance(x, dict):
        return {k: drop_handles(v) for k, v in x.items() if k != 'handle'}
    if isinstance(x, list):
        return [drop_handles(v) for v in x]
    return x


def main():
    mode = sys.argv[1]
    data = json.load(sys.stdin)
    out = []
    if mode == 'nft-norm':
        items = [i for i in data['nftables'] if 'metainfo' not in i]
        print(json.dumps(drop_handles(items), sort_keys=True, indent=1))
        return
    if mode == 'nft-summary':
        items = data['nftables']
        counts = {}
        for i in items:
            if 'rule' in i:
                r = i['rule']
                k = (r['family'], r['table'], r['chain'])
                counts[k] = counts.get(k, 0) + 1
        for i in items:
            if 'chain' in i:
                c = i['chain']
                k = (c['family'], c['table'], c['name'])
                out.append('chain %s %s %s rules %d' % (k + (counts.get(k, 0),)))
        for i in items:
            if 'rule' in i:
                r = i['rule']
                out.append('rule %s %s %s "%s"' % (r['family'], r['table'],
                           r['chain'], r.get('comment', '')))
    elif mode == 'links':
        byidx = {l['ifindex']: l['ifname'] for l in data}
        for l in data:
            kind = l.get('linkinfo', {}).get('info_kind', '-')
            out.append('%d %s %s %s %s' % (l['ifindex'], l['ifname'], kind,
                       l.get('master', '-'), l.get('operstate', '?')))
    elif mode == 'brports':
        for p in data:
            iso = p.get('isolated')
            out.append('%s %s %s' % (p['ifname'], p.get('master', '-'),
                       '?' if iso is None else ('on' if iso else 'off')))
    elif mode == 'addrs':
        for l in data:
            for a in l.get('addr_info', []):
                if a.get('family') == 'inet':
                    out.append('%s %s/%d' % (l['ifname'], a['local'],
                               a['prefixlen']))
    elif mode == 'routes':
        for r in data:
            if r.get('type', 'unicast') != 'unicast':
                continue
            dst = r['dst']
            if dst != 'default' and '/' not in dst:
                dst += '/32'
            out.append('%s via %s dev %s' % (dst, r.get('gateway', '-'),
                       r.get('dev', '-')))
    print('\n'.join(sorted(out)))


main()
