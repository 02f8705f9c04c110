/*
 * The re-framer a granted user's import goes through (src/box/reframe.c):
 * which lines it leaves out of a config document, and that the tar it
 * sends differs from the one it read only there (the header's size and
 * checksum with it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/reframe.h"
#include "box/tar.h"
#include "t.h"

static size_t
drop(const char *in, char *out, size_t cap, unsigned *n)
{
	size_t len = strlen(in);

	*n = 0;
	if (len + 1 > cap)
		return 0;
	memcpy(out, in, len + 1);
	len = reframe_drop_volatile(out, len, n);
	out[len] = '\0';
	return len;
}

/* As Incus 6.0.4 writes an export of a started container. */
static const char INDEX[] =
    "name: c1\n"
    "config:\n"
    "  container:\n"
    "    config:\n"
    "      image.os: busybox\n"
    "      volatile.idmap.base: \"0\"\n"
    "      volatile.idmap.current: '[{\"Isuid\":true,\"Isgid\":false,"
    "\"Hostid\":1000000,\"Nsid\":0,\"Maprange\":1000000000}]'\n"
    "      volatile.idmap.next: '[]'\n"
    "      volatile.last_state.idmap: '[]'\n"
    "      volatile.last_state.power: STOPPED\n"
    "    devices: {}\n";

TEST(reframe_drops_the_volatile_lines_alone)
{
	char out[2048];
	unsigned n;

	drop(INDEX, out, sizeof(out), &n);
	CHECK_INT(n, 5);
	CHECK_STR(out, "name: c1\n"
	    "config:\n"
	    "  container:\n"
	    "    config:\n"
	    "      image.os: busybox\n"
	    "    devices: {}\n");
}

/* Nothing whose removal could change how the rest reads. */
TEST(reframe_keeps_what_is_not_a_whole_line)
{
	static const char *const keep[] = {
		"volatile.idmap.next: |\n  [1]\n",	/* a block scalar */
		"volatile.idmap.next: '[]\n  x'\n",	/* a quote that goes on */
		"volatile.idmap.next: \"a\\\"\n",	/* an escaped last quote */
		"volatile.idmap.next:\n  - 1\n",	/* no value on the line */
		"  volatile.idmap.next: x\n    y: 1\n",	/* the next line deeper */
		"volatile.idmap.next: &a x\n",		/* an anchor */
		"user.volatile: x\n",			/* not volatile. */
		"volatile: x\n",
		"volatile.Idmap.next: x\n",		/* not the grammar */
		"volatile.idmap.next : x\n",
	};
	char out[256];
	unsigned n;
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		drop(keep[i], out, sizeof(out), &n);
		CHECK_INT(n, 0);
		CHECK_STR(out, keep[i]);
	}
	/* the last line without its newline, and blank lines after one */
	drop("a: 1\n  volatile.last_state.idmap: '[]'", out, sizeof(out), &n);
	CHECK_INT(n, 1);
	CHECK_STR(out, "a: 1\n");
	drop("  volatile.idmap.base: \"0\"\n\n  b: 1\n", out, sizeof(out), &n);
	CHECK_INT(n, 1);
	CHECK_STR(out, "\n  b: 1\n");
}

static void
header(unsigned char *h, const char *name, char type, size_t size)
{
	unsigned sum = 0;
	size_t i;
	char sumtext[32], num[32];

	memset(h, 0, TAR_BLOCK);
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	snprintf(num, sizeof(num), "%011zo", size & 077777777777u);
	memcpy(h + 124, num, 12);
	memcpy(h + 136, "00000000000", 11);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf(sumtext, sizeof(sumtext), "%06o", sum & 0777777u);
	memcpy(h + 148, sumtext, 7);
}

static size_t
member(unsigned char *at, const char *name, char type, const char *body)
{
	size_t n = strlen(body), pad = (n + TAR_BLOCK - 1) / TAR_BLOCK *
	    TAR_BLOCK;

	header(at, name, type, n);
	memset(at + TAR_BLOCK, 0, pad);
	memcpy(at + TAR_BLOCK, body, n);
	return TAR_BLOCK + pad;
}

struct out {
	unsigned char p[16384];
	size_t n;
};

static int
put(void *ctx, const void *p, size_t n)
{
	struct out *o = ctx;

	if (o->n + n > sizeof(o->p))
		return -28;
	memcpy(o->p + o->n, p, n);
	o->n += n;
	return 0;
}

TEST(reframe_changes_the_documents_alone)
{
	static unsigned char in[16384];
	static struct out o;
	static const char rootfile[] = "volatile.uuid: x\n";
	struct reframe r;
	size_t n = 0, i, off, a, b;
	char want[2048];
	unsigned k;

	n += member(in + n, "backup/index.yaml", '0', INDEX);
	a = n;
	n += member(in + n, "backup/container/rootfs/etc/x", '0', rootfile);
	b = n;
	n += member(in + n, "backup/container/backup.yaml", '0', INDEX);
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;

	o.n = 0;
	reframe_init(&r, put, &o);
	for (i = 0; i < n; i++)		/* a byte at a time */
		CHECK_INT(reframe_feed(&r, in + i, 1), 0);
	CHECK_INT(reframe_end(&r), 0);
	CHECK_INT(r.lines, 10);
	CHECK_INT(r.docs, 2);
	reframe_free(&r);

	drop(INDEX, want, sizeof(want), &k);
	/* the index: a new size and checksum, the lines gone */
	CHECK(tar_header_bad(o.p) == NULL);
	CHECK_INT(tar_num(o.p + 124, 12), (long long)strlen(want));
	CHECK(memcmp(o.p + TAR_BLOCK, want, strlen(want)) == 0);
	off = TAR_BLOCK + (strlen(want) + TAR_BLOCK - 1) / TAR_BLOCK *
	    TAR_BLOCK;
	/* a rootfs file saying the same is the box's own: as it came */
	CHECK(memcmp(o.p + off, in + a, b - a) == 0);
	off += b - a;
	CHECK(tar_header_bad(o.p + off) == NULL);
	CHECK_INT(tar_num(o.p + off + 124, 12), (long long)strlen(want));
	off += TAR_BLOCK + (strlen(want) + TAR_BLOCK - 1) / TAR_BLOCK *
	    TAR_BLOCK;
	CHECK_INT(o.n, off + 2 * TAR_BLOCK);

	/* cut inside a member: said */
	o.n = 0;
	reframe_init(&r, put, &o);
	CHECK_INT(reframe_feed(&r, in, a - 10), 0);
	CHECK_INT(reframe_end(&r), -61);	/* -ENODATA */
	reframe_free(&r);
}

/* A member named by a PAX header before it is left alone. */
TEST(reframe_leaves_a_long_named_member_alone)
{
	static unsigned char in[8192];
	static struct out o;
	struct reframe r;
	size_t n = 0;

	n += member(in + n, "PaxHeaders/x", 'x', "30 path=backup/index.yaml\n");
	n += member(in + n, "backup/index.yaml", '0', INDEX);
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;
	o.n = 0;
	reframe_init(&r, put, &o);
	CHECK_INT(reframe_feed(&r, in, n), 0);
	CHECK_INT(reframe_end(&r), 0);
	CHECK_INT(r.lines, 0);
	CHECK_INT(o.n, n);
	CHECK(memcmp(o.p, in, n) == 0);
	reframe_free(&r);
}
