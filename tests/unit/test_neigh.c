/*
 * test_neigh.c - the neighbour layers' data: the firewall data file
 * (host/stack/fwdata.h), the port bindings' keys as nft lays them out
 * (host/stack/pins.h), the messages that feed them, the named drops and
 * the connection cap in the contract, each against a hand-written answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>

#include "host/stack/contract.h"
#include "host/stack/fwdata.h"
#include "host/stack/pins.h"
#include "host/stack/pins_test.h"
#include "net/nft.h"
#include "t.h"

static struct nft_rule_info want[128];

TEST(fwdata_parse_and_format)
{
	static const char text[] = "# box\nv1\nconn-max 40\n"
	    "block 198.51.100.88/29\nblock 203.0.113.7\n";
	struct fwdata d;
	char out[512];
	uint32_t a;
	uint8_t p;

	CHECK_INT(fwdata_parse(text, sizeof(text) - 1, &d), 0);
	CHECK_INT(d.conn_max, 40);
	CHECK_INT((long long)d.nblock, 2);
	CHECK_INT(d.block[0].addr, 0xc6336458u);
	CHECK_INT(d.block[0].plen, 29);
	CHECK_INT(d.block[1].addr, 0xcb007107u);
	CHECK_INT(d.block[1].plen, 32);
	CHECK_INT(fwdata_format(&d, out, sizeof(out)), 0);
	CHECK_STR(out, "# box firewall data: written by box, read by every "
	    "firewall apply and show\nv1\nconn-max 40\n"
	    "block 198.51.100.88/29\nblock 203.0.113.7/32\n");
	CHECK_INT(fwdata_format(&d, out, 40), -ENOSPC);
	/* host bits cleared; a repeat is one entry; rm of a stranger */
	CHECK_INT(fwdata_prefix_parse("198.51.100.95/29", &a, &p), 0);
	CHECK_INT(a, 0xc6336458u);
	CHECK_INT(fwdata_block_add(&d, a, p), 0);
	CHECK_INT((long long)d.nblock, 2);
	CHECK_INT(fwdata_block_rm(&d, 0x01020300u, 24), -ENOENT);
	CHECK_INT(fwdata_block_rm(&d, a, p), 0);
	CHECK_INT((long long)d.nblock, 1);
	CHECK_INT(fwdata_prefix_parse("0.0.0.0/0", &a, &p), 0);
	CHECK_INT(a, 0);
	CHECK_INT(p, 0);
	/* what is not one of its lines refuses the whole file */
	CHECK_INT(fwdata_parse("v2\n", 3, &d), -EINVAL);
	CHECK_INT(fwdata_parse("conn-max 0\n", 11, &d), -EINVAL);
	CHECK_INT(fwdata_parse("conn-max 1000001\n", 17, &d), -EINVAL);
	CHECK_INT(fwdata_parse("conn-max 4x\n", 12, &d), -EINVAL);
	CHECK_INT(fwdata_parse("block 1.2.3.4/33\n", 17, &d), -EINVAL);
	CHECK_INT(fwdata_parse("block 1.2.3.256\n", 16, &d), -EINVAL);
	CHECK_INT(fwdata_parse("block 1.2.3\n", 12, &d), -EINVAL);
	CHECK_INT(fwdata_parse("block 1.2.3.4 \n", 15, &d), -EINVAL);
	CHECK_INT(fwdata_parse("block 01234.2.3.4\n", 18, &d), -EINVAL);
	CHECK_INT(fwdata_prefix_parse("1.2.3.4/", &a, &p), -EINVAL);
}

/* One running NIC, one stopped: the keys each set gets, byte by byte. */
TEST(pins_keys_are_laid_out_as_nft_does)
{
	static const unsigned char pin[CONTRACT_KEY_PIN] = {
		'v', 'e', 't', 'h', '1', '2', '3', '4', 0, 0, 0, 0, 0, 0, 0, 0,
		0x10, 0x66, 0x6a, 0x00, 0x00, 0x01, 0, 0,
		0x0a, 0x58, 0x00, 0x05,
	};
	static const unsigned char self[16] = {
		0x10, 0x66, 0x6a, 0x00, 0x00, 0x01, 0, 0,
		0x10, 0x66, 0x6a, 0x00, 0x00, 0x01, 0, 0,
	};
	static struct pins p;
	static struct pins_keys k;

	memset(&p, 0, sizeof(p));
	p.n = 2;
	snprintf(p.v[0].port, sizeof(p.v[0].port), "veth1234");
	memcpy(p.v[0].mac, "\x10\x66\x6a\x00\x00\x01", 6);
	p.v[0].addr = 0x0a580005u;
	memcpy(p.v[1].mac, "\x10\x66\x6a\x00\x00\x02", 6);	/* stopped */
	pins_keys(&p, &k);
	CHECK_INT((long long)k.nmac, 2);
	CHECK_INT((long long)k.nport, 1);
	CHECK_INT((long long)k.npin, 1);
	CHECK_MEM(k.pins[0], sizeof(k.pins[0]), pin, sizeof(pin));
	CHECK_MEM(k.ports[0], sizeof(k.ports[0]), pin, CONTRACT_KEY_PORTMAC);
	CHECK_MEM(k.portnames[0], sizeof(k.portnames[0]), pin,
	    CONTRACT_KEY_PORT);
	CHECK_MEM(k.self[0], sizeof(k.self[0]), self, sizeof(self));
	CHECK_MEM(k.macs[1], 6, "\x10\x66\x6a\x00\x00\x02", 6);
	/* a conflict: the MAC stays pinned (box_macs), no port is bound */
	p.v[1].conflict = p.v[0].conflict = 1;
	pins_keys(&p, &k);
	CHECK_INT((long long)k.nmac, 2);
	CHECK_INT((long long)k.nport, 0);
	CHECK_INT((long long)k.npin, 0);
}

/* pins_emit: six flushes, then one element message per non-empty set. */
TEST(pins_emit_flushes_then_adds)
{
	static const char *const order[] = { "box_macs", "box_chaddrs",
	    "box_self", "box_ports", "box_portnames", "box_pins" };
	static struct nft_batch bt;
	static unsigned char buf[1 << 16];
	static struct pins p;
	static struct pins_keys k;
	struct nl_msg m;
	size_t off = 0;
	int i = 0, flush = 0, add = 0;

	memset(&p, 0, sizeof(p));
	p.n = 1;
	snprintf(p.v[0].port, sizeof(p.v[0].port), "veth1234");
	memcpy(p.v[0].mac, "\x10\x66\x6a\x00\x00\x01", 6);
	p.v[0].addr = 0x0a580005u;
	pins_keys(&p, &k);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(pins_emit(&bt, &k), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	while (nl_msg_at(bt.b.p, bt.b.len, &off, &m) == 1) {
		int type = m.hdr.nlmsg_type & 0xff;

		if ((m.hdr.nlmsg_type >> 8) != NFNL_SUBSYS_NFTABLES)
			continue;
		if (type == NFT_MSG_DELSETELEM)
			flush++;
		else if (type == NFT_MSG_NEWSETELEM) {
			CHECK(strstr(bt.desc[flush + add], order[add]) != NULL);
			add++;
		}
		i++;
	}
	CHECK_INT(flush, 6);
	CHECK_INT(add, 6);
	CHECK_STR(nft_batch_desc(&bt, 2), "flush set bridge box box_macs");
	CHECK_INT(i, 12);
	/* the begin marker is sequence 1: the flushes 2-7, the adds 8-13 */
	CHECK_STR(nft_batch_desc(&bt, 8), "add element bridge box box_macs");
	CHECK_STR(nft_batch_desc(&bt, 13), "add element bridge box box_pins");
}

/* Named drops go after the platform address, in order, with their
 * comments; the cap's count is the env's. */
TEST(contract_named_drops_and_the_cap)
{
	struct contract_prefix named[2];
	struct contract_env env = { .bridge = CONTRACT_BRIDGE,
	    .net = 0x0a580000u, .conn_max = 40, .named = named, .nnamed = 2 };
	struct contract_rule_ref ref;
	int n, i, base = -1;

	CHECK_INT(contract_prefix_set(&named[0], 0xc0000202u, 24,
	    "this host's uplink"), 0);
	CHECK_INT(contract_prefix_set(&named[1], 0xc6336458u, 29,
	    "the operator's blocklist"), 0);
	CHECK_STR(named[0].comment, "box: not 192.0.2.0/24 (this host's "
	    "uplink)");
	CHECK_INT(contract_prefix_set(&named[1], 1, 33, "x"), -EINVAL);
	CHECK_INT(contract_prefix_set(&named[1], 0xc6336458u, 29,
	    "the operator's blocklist"), 0);
	n = contract_expect(&env, want, 128);
	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		contract_rule_ref(&env, (size_t)i, &ref);
		if (strcmp(ref.comment, "box: not 168.63.129.16 (Azure's host "
		    "platform service)") == 0)
			base = i;
	}
	CHECK(base > 0);
	if (base <= 0 || base + 3 >= n)
		return;
	CHECK_STR(want[base + 1].comment, "box: not 192.0.2.0/24 (this host's "
	    "uplink)");
	/* iifname boxnet, ip daddr 192.0.2.0/24 (three bytes), drop */
	CHECK_STR(want[base + 1].canon, "meta(1=00000001,2=00000006) "
	    "cmp(1=00000001,2=00000000,3{1=626f786e657400000000000000000000}) "
	    "meta(1=00000001,2=0000000f) cmp(1=00000001,2=00000000,3{1=02}) "
	    "payload(1=00000001,2=00000001,3=00000010,4=00000003) "
	    "cmp(1=00000001,2=00000000,3{1=c00002}) "
	    "immediate(1=00000000,2{2{1=00000000}})");
	CHECK_STR(want[base + 2].comment, "box: not 198.51.100.88/29 (the "
	    "operator's blocklist)");
	CHECK(strstr(want[base + 2].canon, "4{1=fffffff8},5{1=00000000}) "
	    "cmp(1=00000001,2=00000000,3{1=c6336458})") != NULL);
	CHECK_STR(want[base + 3].comment, "box: each box's egress policy "
	    "(chain egress)");
	/* connlimit count 40 (0x28), over */
	CHECK(strstr(want[1].canon, "2{1=00000028,2=00000001}") != NULL);
	env.conn_max = CONTRACT_CONN_MAX_LIMIT + 1;
	CHECK_INT(contract_expect(&env, want, 128), -EINVAL);
	env.conn_max = 0;
	env.nnamed = CONTRACT_MAXNAMED + 1;
	CHECK_INT(contract_expect(&env, want, 128), -EINVAL);
}

TEST(pins_hook_text_names_only_a_plain_path)
{
	char buf[512];

	CHECK_INT(pins_hook_text("/usr/local/libexec/box/box-firewall", buf,
	    sizeof(buf)), 0);
	CHECK(strstr(buf, "\nexec /usr/local/libexec/box/box-firewall "
	    "firewall sync --from-hook </dev/null >/dev/null 2>&1\n") != NULL);
	CHECK(strncmp(buf, "#!/bin/sh\n", 10) == 0);
	CHECK_INT(pins_hook_text("box", buf, sizeof(buf)), -EINVAL);
	CHECK_INT(pins_hook_text("/tmp/a b", buf, sizeof(buf)), -EINVAL);
	CHECK_INT(pins_hook_text("/tmp/$(x)", buf, sizeof(buf)), -EINVAL);
	CHECK_INT(pins_hook_text("/tmp/x", buf, 20), -ENOSPC);
}
