/* The egress policy: the stored value, the resolver's lines, the state
 * file, the kernel rules' shape, and the PTR reader. */
#include <stdio.h>
#include <stdlib.h>

#include "box/egress/egress_sync.h"
#include "t.h"

#include "box/egress/egress.h"
#include "box/egress/egress_fw.h"
#include "box/egress/ptr.h"
#include "model/names.h"
#include "net/nft.h"

static struct egress pol;

static int
parses(const char *s)
{
	char why[200];

	return egress_parse(s, &pol, why, sizeof(why));
}

TEST(egress_parse_accepts_the_format)
{
	char buf[512];

	CHECK_INT(parses(NULL), 0);
	CHECK_INT(pol.mode, EGRESS_OPEN);
	CHECK_INT(parses(""), 0);
	CHECK_INT(parses("open"), 0);
	CHECK_INT(pol.mode, EGRESS_OPEN);
	CHECK_INT(parses("allow:github.com,*.npmjs.org,pypi.org"), 0);
	CHECK_INT(pol.mode, EGRESS_ALLOW);
	CHECK_INT(pol.n, 3);
	CHECK_STR(pol.pat[1], "*.npmjs.org");
	CHECK_INT(egress_format(&pol, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "allow:github.com,*.npmjs.org,pypi.org");
	CHECK_INT(egress_format(&pol, buf, 10), -ENOSPC);
	CHECK_INT(parses("allow:a-1.b2.example"), 0);
	CHECK_INT(parses("allow:xn--bcher-kva.example"), 0);
}

TEST(egress_parse_refuses_everything_else)
{
	static const char *const bad[] = {
		"allow:", "allow:,", "allow:a.com,", "allow:,a.com",
		"allow:Github.com", "allow:github", "allow:1.2.3.4",
		"allow:github.com.", "allow:.github.com", "allow:a..com",
		"allow:-a.com", "allow:a-.com", "allow:a_b.com",
		"allow:*.", "allow:*", "allow:**.a.com", "allow:a.*.com",
		"allow:a.com,a.com", "allow: a.com", "allow:a.com ",
		"deny:a.com", "Open", "allow", "allow:a.com\nserver=1.2.3.4",
		"allow:a.com/b", "allow:a#b.com", "allow:a.123",
	};
	char big[400], many[64 * 8 + 16];
	size_t i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parses(bad[i]) != -EINVAL)
			t_fail(__FILE__, __LINE__, "accepted '%s'", bad[i]);
	/* a label of 64, a name of 254 */
	memset(big, 'a', sizeof(big));
	memcpy(big, "allow:", 6);
	memcpy(big + 6 + 64, ".com", 5);
	CHECK_INT(parses(big), -EINVAL);
	for (i = 6; i < 6 + 254; i++)
		big[i] = (i - 6) % 10 == 9 ? '.' : 'a';
	big[6 + 250] = 'c';
	big[6 + 254] = '\0';
	CHECK_INT(parses(big), -EINVAL);
	big[6 + 253] = '\0';
	CHECK_INT(parses(big), 0);
	/* 64 patterns fit, 65 do not */
	n = snprintf(many, sizeof(many), "allow:");
	for (i = 0; i < 64; i++)
		n += snprintf(many + n, sizeof(many) - (size_t)n, "%sa%zu.io",
		    i ? "," : "", i);
	CHECK_INT(parses(many), 0);
	CHECK_INT(pol.n, 64);
	snprintf(many + n, sizeof(many) - (size_t)n, ",z.io");
	CHECK_INT(parses(many), -EINVAL);
}

TEST(egress_add_and_remove)
{
	char why[200], buf[256];

	CHECK_INT(parses("open"), 0);
	CHECK_INT(egress_add(&pol, "pypi.org", why, sizeof(why)), 0);
	CHECK_INT(egress_add(&pol, "pypi.org", why, sizeof(why)), 0);
	CHECK_INT(egress_add(&pol, "*.npmjs.org", why, sizeof(why)), 0);
	CHECK_INT(egress_add(&pol, "Bad.org", why, sizeof(why)), -EINVAL);
	egress_format(&pol, buf, sizeof(buf));
	CHECK_STR(buf, "allow:pypi.org,*.npmjs.org");
	CHECK_INT(egress_remove(&pol, "x.org"), -ENOENT);
	CHECK_INT(egress_remove(&pol, "pypi.org"), 0);
	CHECK_INT(egress_remove(&pol, "*.npmjs.org"), -ENOTEMPTY);
	egress_format(&pol, buf, sizeof(buf));
	CHECK_STR(buf, "allow:*.npmjs.org");
	CHECK_STR(egress_domain("*.npmjs.org"), "npmjs.org");
	CHECK_INT(egress_covers("example.com", "api.example.com"), 1);
	CHECK_INT(egress_covers("example.com", "example.com"), 1);
	CHECK_INT(egress_covers("example.com", "badexample.com"), 0);
	CHECK_INT(egress_covers("api.example.com", "example.com"), 0);
}

static struct egfw_box boxes[3];

static void
three_boxes(void)
{
	memset(boxes, 0, sizeof(boxes));
	snprintf(boxes[0].name, 64, "a");
	egress_parse("allow:example.com,pypi.org", &boxes[0].pol, NULL, 0);
	snprintf(boxes[1].name, 64, "b");
	egress_parse("allow:*.api.example.com", &boxes[1].pol, NULL, 0);
	snprintf(boxes[2].name, 64, "c");	/* open */
	boxes[0].has_mac = boxes[1].has_mac = boxes[2].has_mac = 1;
	boxes[0].mac[5] = 1;
	boxes[1].mac[5] = 2;
	boxes[2].mac[5] = 3;
}

/* dnsmasq applies the longest matching line alone: a's example.com must
 * be on api.example.com's line too. */
TEST(egress_dnsmasq_lines_cover_the_longest_match)
{
	char buf[1024];

	three_boxes();
	CHECK_INT(egfw_dnsmasq(boxes, 3, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "nftset=/api.example.com/4#inet#box#ea-a,"
	    "4#inet#box#ea-b\n"
	    "nftset=/example.com/4#inet#box#ea-a\n"
	    "nftset=/pypi.org/4#inet#box#ea-a");
	CHECK_INT(egfw_dnsmasq(boxes, 3, buf, 40), -ENOSPC);
	boxes[0].has_mac = 0;	/* not enforced: no lines */
	CHECK_INT(egfw_dnsmasq(boxes, 1, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	egfw_dnsmasq_strip("no-resolv\nnftset=/a.b/4#inet#box#ea-a\n"
	    "server=1.2.3.4\nnftset=/c.d/x", buf, sizeof(buf));
	CHECK_STR(buf, "no-resolv\nserver=1.2.3.4");
}

TEST(egress_set_names_fit_nft)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN], longn[64];

	egfw_set_names("work", a, l);
	CHECK_STR(a, "ea-work");
	CHECK_STR(l, "el-work");
	memset(longn, 'x', 63);
	longn[63] = '\0';
	egfw_set_names(longn, a, l);
	CHECK_INT(strlen(a), 63);
	CHECK(strncmp(a, "ea-xxxx", 7) == 0);
	CHECK(strcmp(a + 3, l + 3) == 0);
	longn[62] = 'y';	/* another long name: another set */
	{
		char b[NFT_NAMELEN], m[NFT_NAMELEN];

		egfw_set_names(longn, b, m);
		CHECK(strcmp(a, b) != 0);
	}
}

TEST(egress_emit_one_batch)
{
	static unsigned char buf[64 << 10];
	static struct nft_batch bt;
	char stale[3][NFT_NAMELEN] = { "ea-gone", "ea-a", "other" };

	three_boxes();
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(egfw_emit(&bt, boxes, 3, stale, 3), 0);
	/* flush, 2 boxes x (2 sets + 7 rules), one stale set deleted */
	CHECK_INT(bt.nmsg, 1 + 2 * 9 + 1);
	CHECK_INT(bt.nrules, 14);
	CHECK(strstr(nft_batch_desc(&bt, 1 + 20), "delete set inet box "
	    "ea-gone") != NULL);
	CHECK_INT(nft_batch_end(&bt), 0);
}

TEST(egress_state_file_round_trip)
{
	static struct egfw_box b[4];
	const char *text = "# comment\nv1\n"
	    "work 00:16:3e:aa:bb:cc allow:pypi.org,*.npmjs.org\n"
	    "bad name 00:16:3e:aa:bb:cc allow:x.org\n"
	    "odd 00:16:3e:aa:bb allow:x.org\n"
	    "dark 00:16:3e:00:00:01 none\n"
	    "junk 00:16:3e:00:00:02 allow:NOT\n";
	size_t n;

	CHECK_INT(egress_state_parse(text, strlen(text), b, 4, &n), 0);
	CHECK_INT(n, 3);
	CHECK_STR(b[0].name, "work");
	CHECK_INT(b[0].mac[5], 0xcc);
	CHECK_INT(b[0].pol.n, 2);
	CHECK_STR(b[1].name, "dark");
	CHECK_INT(b[1].pol.mode, EGRESS_ALLOW);	/* nothing allowed */
	CHECK_INT(b[1].pol.n, 0);
	CHECK_INT(b[2].pol.n, 0);		/* unreadable: nothing */
	CHECK_INT(egress_state_parse("v2\n", 3, b, 4, &n), -EINVAL);
	CHECK_INT(egress_state_parse(text, strlen(text), b, 1, &n), -ENOSPC);
}

TEST(egress_ptr_reads_an_answer)
{
	unsigned char q[128], a[256];
	char name[PTR_NAME_MAX];
	int n;

	n = ptr_build(0xcb007114u, 0x4242, q, sizeof(q));	/* .20 */
	CHECK(n > 12);
	CHECK(memcmp(q + 12, "\x02" "20" "\x03" "113", 7) == 0);
	memcpy(a, q, (size_t)n);
	a[2] = 0x81;
	a[3] = 0x80;
	a[7] = 1;			/* one answer */
	memcpy(a + n, "\xc0\x0c\x00\x0c\x00\x01\x00\x00\x00\x00\x00\x0c"
	    "\x05Other\x04test\x00", 24);
	CHECK_INT(ptr_reply(a, (size_t)n + 24, 0x4242, name, sizeof(name)), 1);
	CHECK_STR(name, "other.test");
	CHECK_INT(ptr_reply(a, (size_t)n + 24, 0x4243, name, sizeof(name)),
	    -EBOX_PROTO);
	CHECK_INT(ptr_reply(a, (size_t)n + 20, 0x4242, name, sizeof(name)),
	    -EBOX_PROTO);
	a[n + 13] = 0x01;		/* a control byte in the name */
	CHECK_INT(ptr_reply(a, (size_t)n + 24, 0x4242, name, sizeof(name)),
	    -EBOX_PROTO);
	a[n + 13] = 'o';
	a[n + 12] = 0xc0;		/* a pointer loop */
	a[n + 13] = (unsigned char)(n + 12);
	CHECK_INT(ptr_reply(a, (size_t)n + 24, 0x4242, name, sizeof(name)),
	    -EBOX_PROTO);
	a[3] = 0x83;			/* NXDOMAIN */
	CHECK_INT(ptr_reply(a, (size_t)n, 0x4242, name, sizeof(name)), 0);
}

/* --- the set diff ------------------------------------------------------------ */

static struct nft_set_elem
el4(uint32_t a, const char *name, uint64_t expires)
{
	struct nft_set_elem e;

	memset(&e, 0, sizeof(e));
	e.key[0] = (unsigned char)(a >> 24);
	e.key[1] = (unsigned char)(a >> 16);
	e.key[2] = (unsigned char)(a >> 8);
	e.key[3] = (unsigned char)a;
	e.klen = 4;
	if (expires) {
		e.timeout_ms = 3600000;
		e.expires_ms = expires;
	}
	snprintf(e.comment, sizeof(e.comment), "%s", name);
	return e;
}

TEST(egress_plan_keeps_exactly_the_policys_names)
{
	static struct egfw_box b;
	struct nft_set_elem old[5], fresh[3], out[8];
	size_t n, dropped;

	memset(&b, 0, sizeof(b));
	CHECK_INT(egress_parse("allow:b.test,*.pypi.org", &b.pol, NULL, 0), 0);
	b.has_mac = 1;
	old[0] = el4(0x0a000001, "a.test", 1000);	/* denied: goes */
	old[1] = el4(0x0a000002, "b.test", 2000);	/* kept, as it was */
	old[2] = el4(0x0a000003, "files.pypi.org", 3000); /* under *.pypi.org */
	old[3] = el4(0x0a000004, "", 4000);		/* unnamed */
	old[4] = el4(0x0a000005, "xb.test", 5000);	/* not under b.test */
	fresh[0] = el4(0x0a000006, "b.test", 0);	/* a new answer */
	fresh[1] = el4(0x0a000004, "pypi.org", 0);	/* names the unnamed */
	fresh[2] = el4(0x0a000007, "a.test", 0);	/* not allowed */

	b.shrank = 0;
	n = egfw_plan(&b, old, 5, fresh, 3, out, 8, &dropped);
	CHECK_INT(n, 4);
	CHECK_INT(dropped, 2);
	CHECK_STR(out[0].comment, "b.test");
	CHECK_INT(out[0].expires_ms, 2000);
	CHECK_STR(out[1].comment, "files.pypi.org");
	CHECK_INT(out[2].key[3], 4);
	CHECK_STR(out[2].comment, "pypi.org");	/* unnamed kept, now named */
	CHECK_INT(out[3].key[3], 6);
	CHECK_STR(out[3].comment, "b.test");

	/* The policy lost a name: an unnamed element may be its, so it goes
	 * unless an answer names it. */
	b.shrank = 1;
	n = egfw_plan(&b, old, 5, fresh, 1, out, 8, &dropped);
	CHECK_INT(n, 3);
	CHECK_INT(dropped, 3);
	CHECK_INT(out[2].key[3], 6);

	/* Bounded, one element per address. */
	old[1] = el4(0x0a000002, "b.test", 0);
	fresh[0] = el4(0x0a000002, "b.test", 0);
	n = egfw_plan(&b, old + 1, 1, fresh, 1, out, 8, NULL);
	CHECK_INT(n, 1);
	n = egfw_plan(&b, old, 5, fresh, 3, out, 1, &dropped);
	CHECK_INT(n, 1);

	/* Refreshed by the allow rule past its own timeout (a 60 s answer
	 * with 3000 s left): sent back, the kernel would refuse expiration >
	 * timeout, so the element's timeout grows to what it has left. */
	old[1] = el4(0x0a000002, "b.test", 3000000);
	old[1].timeout_ms = 60000;
	old[2] = el4(0x0a000003, "files.pypi.org", 30000);
	old[2].timeout_ms = 60000;
	n = egfw_plan(&b, old + 1, 2, fresh, 0, out, 8, NULL);
	CHECK_INT(n, 2);
	CHECK_INT(out[0].timeout_ms, 3000000);
	CHECK_INT(out[0].expires_ms, 3000000);
	CHECK_INT(out[1].timeout_ms, 60000);	/* within its own: as it was */
	CHECK_INT(out[1].expires_ms, 30000);

	/* An open policy covers nothing: the set empties. */
	b.pol.mode = EGRESS_OPEN;
	CHECK_INT(egfw_plan(&b, old, 5, fresh, 3, out, 8, NULL), 0);
}

TEST(egress_refill_batch_is_flush_then_named_elements)
{
	static unsigned char buf[8192];
	static struct nft_batch bt;
	struct nft_set_elem v[2];
	struct nl_msg m;
	size_t off = 0;
	int k = 0;

	v[0] = el4(0xcb00710a, "probe.test", 0);
	v[0].timeout_ms = 3600000;
	v[1] = el4(0xcb00710b, "probe.test", 1234);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_setelems_flush(&bt, NFT_FAM_INET, "box", "ea-x"), 0);
	CHECK_INT(nft_setelems_add(&bt, NFT_FAM_INET, "box", "ea-x", v, 2), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	CHECK_INT(bt.nmsg, 2);
	CHECK_STR(nft_batch_desc(&bt, 2), "flush set inet box ea-x");
	/* The comment as libnftnl writes it: type 0, length with the NUL. */
	CHECK(memmem(buf, bt.b.len, "\x00\x0bprobe.test\x00", 13) != NULL);
	while (nl_msg_at(buf, bt.b.len, &off, &m) > 0)
		k++;
	CHECK_INT(k, 4);		/* begin, flush, add, end */
	/* An element with an expiry but no timeout is refused. */
	v[1].timeout_ms = 0;
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_setelems_add(&bt, NFT_FAM_INET, "box", "ea-x", v, 2),
	    -EINVAL);
}

TEST(egress_refill_splits_large_sets)
{
	static struct nft_set_elem v[EGFW_ALLOW_SIZE];
	static unsigned char buf[4 << 20];
	static struct nft_batch bt;
	size_t i;

	for (i = 0; i < EGFW_ALLOW_SIZE; i++)
		v[i] = el4(0x0a000000 + (uint32_t)i, "a-rather-long-name-for-"
		    "the-element.example.org", 0);
	CHECK(nft_setelems_msgs(v, EGFW_ALLOW_SIZE) > 1);
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(nft_setelems_add(&bt, NFT_FAM_INET, "box", "ea-x", v,
	    EGFW_ALLOW_SIZE), 0);
	CHECK_INT(bt.nmsg, nft_setelems_msgs(v, EGFW_ALLOW_SIZE));
}

/* --- the log ring -------------------------------------------------------------- */

static struct nft_set_elem
slot(uint32_t n, uint32_t a, uint8_t proto, uint16_t port, uint64_t expires)
{
	struct nft_set_elem e;

	memset(&e, 0, sizeof(e));
	e.key[3] = (unsigned char)n;
	e.klen = 4;
	e.data[0] = (unsigned char)(a >> 24);
	e.data[1] = (unsigned char)(a >> 16);
	e.data[2] = (unsigned char)(a >> 8);
	e.data[3] = (unsigned char)a;
	e.data[4] = proto;
	e.data[8] = (unsigned char)(port >> 8);
	e.data[9] = (unsigned char)port;
	e.dlen = 12;
	e.expires_ms = expires;
	return e;
}

TEST(egress_log_fold_newest_first_with_real_ages)
{
	struct nft_set_elem el[5];
	struct egfw_refused v[4];
	size_t n;

	el[0] = slot(0, 0xcb007114, 6, 80, 3600000 - 65000);	/* 65 s ago */
	el[1] = slot(1, 0xcb007114, 6, 80, 3600000 - 5000);	/* again 5 s */
	el[2] = slot(2, 0xcb00711e, 17, 53, 3600000 - 1000);	/* newest */
	el[3] = slot(3, 0xcb00711f, 6, 443, 3600000 - 600000);
	el[4] = slot(4, 0, 0, 0, 0);
	el[4].dlen = 4;						/* not ours */
	n = egfw_log_fold(el, 5, 3600000, v, 4);
	CHECK_INT(n, 3);
	CHECK_INT(v[0].addr, 0xcb00711e);
	CHECK_INT(v[0].age_ms, 1000);
	CHECK_INT(v[1].addr, 0xcb007114);
	CHECK_INT(v[1].age_ms, 5000);		/* its newest refusal */
	CHECK_INT(v[1].hits, 2);
	CHECK_INT(v[2].port, 443);
	CHECK_INT(v[2].age_ms, 600000);
	/* an element's own timeout wins over the set's */
	el[0].timeout_ms = 120000;
	el[0].expires_ms = 100000;
	n = egfw_log_fold(el, 1, 3600000, v, 4);
	CHECK_INT(v[0].age_ms, 20000);
	n = egfw_log_fold(el, 4, 3600000, v, 1);
	CHECK_INT(n, 1);
}

TEST(egress_log_rule_is_a_ring)
{
	static unsigned char buf[64 << 10];
	static struct nft_batch bt;
	static struct egfw_box b;

	memset(&b, 0, sizeof(b));
	snprintf(b.name, sizeof(b.name), "r");
	CHECK_INT(egress_parse("allow:a.test", &b.pol, NULL, 0), 0);
	b.has_mac = 1;
	b.packets0 = 77;
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(egfw_emit(&bt, &b, 1, NULL, 0), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	CHECK(memmem(buf, bt.b.len, "numgen", 7) != NULL);
	CHECK(memmem(buf, bt.b.len, "el-r", 5) != NULL);
	/* the map's comment: since when its counter counts */
	CHECK(memmem(buf, bt.b.len, "since ", 6) != NULL);
	/* the drop counter starts from the carried value (be64 77) */
	CHECK(memmem(buf, bt.b.len, "\x00\x00\x00\x00\x00\x00\x00\x4d", 8) !=
	    NULL);
}

/* --- the resolver's A answers ----------------------------------------------------- */

TEST(egress_a_reply_reads_the_answers)
{
	unsigned char q[300], a[512];
	uint32_t ad[4], ttl[4];
	int n;

	n = ptr_build_a("probe.test", 0x1234, q, sizeof(q));
	CHECK_INT(n, 12 + 12 + 4);
	CHECK(memcmp(q + 12, "\x05probe\x04test\x00\x00\x01\x00\x01", 16) == 0);
	memcpy(a, q, (size_t)n);
	CHECK_INT(ptr_build_a("a..b", 1, q, sizeof(q)), -EINVAL);
	a[2] = 0x81;
	a[3] = 0x80;
	a[7] = 3;
	/* a CNAME, then two A records under the CNAME's target */
	memcpy(a + n, "\xc0\x0c\x00\x05\x00\x01\x00\x00\x00\x3c\x00\x04"
	    "\x01x\xc0\x12"
	    "\xc0\x28\x00\x01\x00\x01\x00\x00\x01\x2c\x00\x04\xcb\x00\x71\x0a"
	    "\xc0\x28\x00\x01\x00\x01\x00\x00\x00\x05\x00\x04\xcb\x00\x71\x0b",
	    16 + 16 + 16);
	CHECK_INT(ptr_a_reply(a, (size_t)n + 48, 0x1234, ad, ttl, 4), 2);
	CHECK_INT(ad[0], 0xcb00710a);
	CHECK_INT(ttl[0], 300);
	CHECK_INT(ad[1], 0xcb00710b);
	CHECK_INT(ttl[1], 5);
	CHECK_INT(ptr_a_reply(a, (size_t)n + 48, 0x1234, ad, ttl, 1), 1);
	CHECK_INT(ptr_a_reply(a, (size_t)n + 47, 0x1234, ad, ttl, 4),
	    -EBOX_PROTO);
	CHECK_INT(ptr_a_reply(a, (size_t)n + 48, 0x1235, ad, ttl, 4),
	    -EBOX_PROTO);
	a[n + 16 + 11] = 5;		/* an A record of 5 bytes */
	CHECK_INT(ptr_a_reply(a, (size_t)n + 48, 0x1234, ad, ttl, 4),
	    -EBOX_PROTO);
	a[3] = 0x83;			/* NXDOMAIN */
	CHECK_INT(ptr_a_reply(a, (size_t)n, 0x1234, ad, ttl, 4), 0);
}

TEST(egress_names_as_people_paste_them)
{
	static const struct {
		const char *in, *out;
		int changed;
	} t[] = {
		{ "github.com", "github.com", 0 },
		{ "https://github.com", "github.com", 1 },
		{ "GitHub.com", "github.com", 1 },
		{ "https://GitHub.com/org/repo?x=1#y", "github.com", 1 },
		{ "pypi.org:443", "pypi.org", 1 },
		{ "git+ssh://git@github.com:22/x", "github.com", 1 },
		{ "*.Example.COM", "*.example.com", 1 },
		{ "Files.PyPI.org.", "files.pypi.org", 1 },
		{ "a:b", "a:b", 0 },	/* not a port: left for the parser */
	};
	char buf[300], note[200];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", t[i].in);
		note[0] = '\0';
		CHECK_INT(egress_normalise(buf, note, sizeof(note)),
		    t[i].changed);
		CHECK_STR(buf, t[i].out);
		if (t[i].changed)
			CHECK(strstr(note, t[i].in) != NULL);
	}
	snprintf(buf, sizeof(buf), "https://GitHub.com/x");
	egress_normalise(buf, note, sizeof(note));
	CHECK_STR(note, "'https://GitHub.com/x' read as github.com (scheme, "
	    "path, case dropped: a policy names hosts, every port of them)");
}

/* --- refused, and said so ------------------------------------------------------ */

/*
 * The two refusing rules of a box, by content, against the known answer
 * written from `nft --debug=netlink` of
 *   ether saddr 00:16:3e:aa:bb:cc meta l4proto tcp counter reject with tcp reset
 *   ether saddr 00:16:3e:aa:bb:cc counter reject with icmpx admin-prohibited
 * (meta iiftype ether, the link header's bytes 6..11, l4proto 6; reject
 * type 1, which the kernel holds without a code; reject type 2 code 3).
 * Never computed from egress_fw.c.
 */
#define KA_SADDR "meta(1=00000001,2=00000008) " \
	"cmp(1=00000001,2=00000000,3{1=0100}) " \
	"payload(1=00000001,2=00000000,3=00000006,4=00000006) " \
	"cmp(1=00000001,2=00000000,3{1=00163eaabbcc}) "
#define KA_RESET KA_SADDR "meta(1=00000001,2=00000010) " \
	"cmp(1=00000001,2=00000000,3{1=06}) counter() reject(1=00000001)"
#define KA_PROHIB KA_SADDR "counter() reject(1=00000002,2=03)"

TEST(egress_refusal_is_a_reset_or_admin_prohibited)
{
	static unsigned char buf[64 << 10];
	static struct nft_batch bt;
	static struct egfw_box b;
	static struct nft_rule_info ri[EGFW_RULES_PER_BOX + 1];
	struct nl_msg m;
	size_t off = 0;
	int k = 0;

	memset(&b, 0, sizeof(b));
	snprintf(b.name, sizeof(b.name), "r");
	CHECK_INT(egress_parse("allow:a.test", &b.pol, NULL, 0), 0);
	CHECK_INT(egfw_parse_mac("00:16:3e:aa:bb:cc", b.mac), 0);
	b.has_mac = 1;
	nft_batch_init(&bt, buf, sizeof(buf), 1);
	CHECK_INT(egfw_emit(&bt, &b, 1, NULL, 0), 0);
	CHECK_INT(nft_batch_end(&bt), 0);
	while (nl_msg_at(bt.b.p, bt.b.len, &off, &m) > 0 &&
	    k <= EGFW_RULES_PER_BOX)
		if (nft_parse_rule(&m, CONTRACT_NFT_TABLE, &ri[k]) == 1)
			k++;
	CHECK_INT(k, EGFW_RULES_PER_BOX);
	if (k != EGFW_RULES_PER_BOX)
		return;
	CHECK_STR(ri[5].comment, "box r: " EGFW_REFUSED_TCP);
	CHECK_STR(ri[5].canon, KA_RESET);
	CHECK_STR(ri[6].comment, "box r: " EGFW_REFUSED);
	CHECK_STR(ri[6].canon, KA_PROHIB);
	/* nothing after them: a refused flow ends here */
	CHECK(strstr(ri[4].canon, "reject") == NULL);
	CHECK(strstr(ri[4].canon, "immediate") == NULL);
}
