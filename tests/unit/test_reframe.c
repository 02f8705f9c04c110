/*
 * The re-framer a granted user's import goes through (src/box/import/reframe.c):
 * an export's tar in, a unified image tarball out - box's metadata.yaml,
 * then the container's rootfs members renamed, their data as it came,
 * everything else left out; a long name through PAX both ways, a hard
 * link's target renamed, a cut input said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/import_mark.h"
#include "box/import/reframe.h"
#include "box/import/tar.h"
#include "box/import/vet_export.h"
#include "t.h"

static const char CT[] =
    "container:\n"
    "  config:\n"
    "    limits.memory: 256MiB\n"
    "    volatile.uuid: 3870da7a-6e9b-453a-a26a-96808aed8c46\n"
    "  devices: {}\n";

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

static void
header_sum(unsigned char *h)
{
	unsigned sum = 0;
	size_t i;
	char sumtext[32];

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

/* The member at *off of o: its header checked, name (through a PAX path
 * before it) into name; its data's offset returned, *off moved past it. */
static size_t
next(const struct out *o, size_t *off, char *name, size_t cap, char *link,
    size_t lcap)
{
	const unsigned char *h = o->p + *off;
	long long n;
	size_t at;

	name[0] = link[0] = '\0';
	CHECK(tar_header_bad(h) == NULL);
	if (h[156] == 'x') {
		char rec[1024], *p, *q;

		n = tar_num(h + 124, 12);
		snprintf(rec, sizeof(rec), "%.*s", (int)n, (const char *)h +
		    TAR_BLOCK);
		if ((p = strstr(rec, " path=")) != NULL &&
		    (q = strchr(p, '\n')) != NULL)
			snprintf(name, cap, "%.*s", (int)(q - p - 6), p + 6);
		if ((p = strstr(rec, " linkpath=")) != NULL &&
		    (q = strchr(p, '\n')) != NULL)
			snprintf(link, lcap, "%.*s", (int)(q - p - 10), p + 10);
		*off += TAR_BLOCK + (size_t)(n + TAR_BLOCK - 1) / TAR_BLOCK *
		    TAR_BLOCK;
		h = o->p + *off;
		CHECK(tar_header_bad(h) == NULL);
	}
	CHECK(memcmp(h + 257, "ustar\0" "00", 8) == 0);
	if (name[0] == '\0')
		snprintf(name, cap, "%.100s", (const char *)h);
	if (link[0] == '\0')
		snprintf(link, lcap, "%.100s", (const char *)h + 157);
	n = tar_num(h + 124, 12);
	at = *off + TAR_BLOCK;
	*off = at + (size_t)(n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	return at;
}

TEST(reframe_makes_an_image_of_the_rootfs)
{
	static unsigned char in[32768];
	static struct out o;
	static char longname[300], pax[400];
	struct reframe r;
	size_t n = 0, i, off = 0, d;
	char name[400], link[400];

	snprintf(longname, sizeof(longname), "backup/container/rootfs/%0150d",
	    7);
	n += member(in + n, "backup/index.yaml", '0', "name: c1\n");
	n += member(in + n, "backup/container", '5', "");
	n += member(in + n, "backup/container/backup.yaml", '0', CT);
	n += member(in + n, "backup/container/metadata.yaml", '0', "x: 1\n");
	n += member(in + n, "backup/container/templates", '5', "");
	n += member(in + n, "backup/container/rootfs", '5', "");
	n += member(in + n, "backup/container/rootfs/etc/hosts", '0', "h\n");
	header(in + n, "backup/container/rootfs/etc/hl", '1', 0);
	snprintf((char *)in + n + 157, 100, "%s",
	    "backup/container/rootfs/etc/hosts");
	header_sum(in + n);
	n += TAR_BLOCK;
	snprintf(pax, sizeof(pax), "%zu path=%s\n", strlen(longname) + 10,
	    longname);
	n += member(in + n, "PaxHeaders/x", 'x', pax);
	n += member(in + n, "backup/container/rootfs/l", '0', "long\n");
	n += member(in + n, "backup/snapshots", '5', "");
	n += member(in + n, "backup/snapshots/s0", '5', "");
	n += member(in + n, "backup/snapshots/s0/etc", '5', "");
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;

	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 1700000000);
	for (i = 0; i < n; i++)		/* a byte at a time */
		CHECK_INT(reframe_feed(&r, in + i, 1), 0);
	CHECK_INT(reframe_end(&r), 0);
	CHECK_INT(r.members, 4);
	CHECK_INT(r.snaps, 1);
	CHECK(r.ct != NULL && r.ctn == strlen(CT) && strcmp(r.ct, CT) == 0);

	d = next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, "metadata.yaml");
	CHECK(memcmp(o.p + d, "architecture: x86_64\ncreation_date: "
	    "1700000000\n", 46) == 0);
	next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, "rootfs");
	CHECK_INT(o.p[off - TAR_BLOCK + 156], '5');
	d = next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, "rootfs/etc/hosts");
	CHECK(memcmp(o.p + d, "h\n", 2) == 0);
	next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, "rootfs/etc/hl");
	CHECK_STR(link, "rootfs/etc/hosts");
	d = next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, longname + 17);		/* "rootfs/000...7" */
	CHECK(memcmp(o.p + d, "long\n", 5) == 0);
	/* then only the end blocks */
	CHECK_INT(o.n, off + 2 * TAR_BLOCK);
	for (i = off; i < o.n; i++)
		CHECK_INT(o.p[i], 0);
	reframe_free(&r);

	/* cut inside a member: said */
	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 0);
	CHECK_INT(reframe_feed(&r, in, 3 * TAR_BLOCK + 10), 0);
	CHECK_INT(reframe_end(&r), -61);	/* -ENODATA */
	reframe_free(&r);
}

/* A hard link out of the rootfs and a PAX global header: refused. */
TEST(reframe_refuses_what_it_will_not_rename)
{
	static unsigned char in[8192];
	static struct out o;
	struct reframe r;
	size_t n = 0;

	header(in, "backup/container/rootfs/x", '1', 0);
	snprintf((char *)in + 157, 100, "%s", "backup/container/backup.yaml");
	header_sum(in);
	n = TAR_BLOCK;
	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 0);
	CHECK(reframe_feed(&r, in, n) < 0);
	reframe_free(&r);
	n = member(in, "g", 'g', "20 comment=abcdefg\n");
	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 0);
	CHECK(reframe_feed(&r, in, n) < 0);
	reframe_free(&r);
}

/* The importing process's mark (box/import/import_mark.h): in the metadata.yaml
 * box writes, and judged live or gone by the sweep. */
TEST(reframe_marks_the_image_and_the_sweep_judges_the_mark)
{
	static struct out o;
	static unsigned char in[4096];
	struct reframe r;
	char mine[IMPORT_MARK_MAX], other[IMPORT_MARK_MAX + 32], boot[64];
	char name[200], link[200];
	unsigned long ns;
	unsigned long long start;
	size_t n = 0, off = 0, d;
	long pid;
	int k;

	CHECK_INT(import_mark_own(mine, sizeof(mine)), 0);
	n += member(in + n, "backup/container/rootfs", '5', "");
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;
	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 1700000000);
	r.mark = mine;
	CHECK_INT(reframe_feed(&r, in, n), 0);
	CHECK_INT(reframe_end(&r), 0);
	d = next(&o, &off, name, sizeof(name), link, sizeof(link));
	CHECK_STR(name, "metadata.yaml");
	snprintf(other, sizeof(other), "  box.import: \"%s\"\n", mine);
	CHECK(memmem(o.p + d, off - d, other, strlen(other)) != NULL);
	reframe_free(&r);

	/* this process lives: never stale, however old */
	CHECK_INT(import_mark_stale(mine, 0, 1LL << 40), 0);
	CHECK_INT(sscanf(mine, "%63s %lu %ld %llu%n", boot, &ns, &pid, &start,
	    &k), 4);
	/* the same pid with another start time: a reused pid, gone */
	snprintf(other, sizeof(other), "%s %lu %ld %llu", boot, ns, pid,
	    start + 1);
	CHECK_INT(import_mark_stale(other, 0, 0), 1);
	/* a pid nobody has */
	snprintf(other, sizeof(other), "%s %lu %ld %llu", boot, ns, 0x3fffffffL,
	    start);
	CHECK_INT(import_mark_stale(other, 0, 0), 1);
	/* from elsewhere (another boot, another pid namespace): by age */
	snprintf(other, sizeof(other), "%s %lu %ld %llu", boot, ns + 1, pid,
	    start);
	CHECK_INT(import_mark_stale(other, 1000, 1000 + IMPORT_MARK_AGE_S), 0);
	CHECK_INT(import_mark_stale(other, 1000, 1001 + IMPORT_MARK_AGE_S), 1);
	/* not a mark: the user's own, never touched */
	CHECK_INT(import_mark_stale("", 0, 1LL << 40), 0);
	CHECK_INT(import_mark_stale("box import", 0, 1LL << 40), 0);
	snprintf(other, sizeof(other), "%s %lu %ld %llu x", boot, ns + 1, pid,
	    start);
	CHECK_INT(import_mark_stale(other, 0, 1LL << 40), 0);
}

/* Feed in[0..n) to a fresh re-framer: its result (feed, then end). */
static int
reframe_all(const unsigned char *in, size_t n)
{
	static struct out o;
	struct reframe r;
	int rc;

	o.n = 0;
	reframe_init(&r, put, &o, "x86_64", 0);
	rc = reframe_feed(&r, in, n);
	if (rc == 0)
		rc = reframe_end(&r);
	reframe_free(&r);
	return rc;
}

static void
count_member(void *ctx, const char *name, char type, long long size,
    const char *link)
{
	(void)name;
	(void)type;
	(void)size;
	(void)link;
	(*(int *)ctx)++;
}

/*
 * A PAX header that says path twice (issue 35: the re-framer took the
 * first, the vet the last, so the vet approved a link the re-framer
 * wrote under another name): refused by the one reader both use, and by
 * both.  The control: the same archive with the key once is read by both.
 */
TEST(pax_repeated_key_refused_by_vet_and_reframer)
{
	static unsigned char in[8192];
	struct tar_pax f;
	const char *twice = "34 path=backup/container/rootfs/a\n"
	    "34 path=backup/container/rootfs/b\n";
	const char *once = "34 path=backup/container/rootfs/a\n";
	size_t n;
	int k = 0;

	CHECK(tar_pax_read(twice, strlen(twice), &f) != NULL);
	CHECK_STR(tar_pax_read(twice, strlen(twice), &f),
	    "a PAX header that repeats a key");
	CHECK(tar_pax_read(once, strlen(once), &f) == NULL);
	CHECK_STR(f.path, "backup/container/rootfs/a");
	CHECK(tar_pax_read("11 mtime=1\n11 mtime=2\n", 22, &f) != NULL);

	n = member(in, "PaxHeaders/x", 'x', twice);
	n += member(in + n, "x", '0', "");
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;
	CHECK(vet_tar_members(in, n, count_member, &k) < 0);
	CHECK(reframe_all(in, n) < 0);

	n = member(in, "PaxHeaders/x", 'x', once);
	n += member(in + n, "x", '0', "");
	memset(in + n, 0, 2 * TAR_BLOCK);
	n += 2 * TAR_BLOCK;
	k = 0;
	CHECK_INT(vet_tar_members(in, n, count_member, &k), 0);
	CHECK_INT(k, 1);
	CHECK_INT(reframe_all(in, n), 0);
}

/* rootfs/../ names a place outside the image's root: refused. */
TEST(reframe_refuses_a_climb_out_of_rootfs)
{
	static unsigned char in[8192];
	size_t n;

	n = member(in, "backup/container/rootfs/../../etc/x", '0', "x");
	memset(in + n, 0, 2 * TAR_BLOCK);
	CHECK(reframe_all(in, n + 2 * TAR_BLOCK) < 0);
	n = member(in, "backup/container/rootfs/./x", '0', "x");
	memset(in + n, 0, 2 * TAR_BLOCK);
	CHECK(reframe_all(in, n + 2 * TAR_BLOCK) < 0);
	/* the control: the same member, a clean name */
	n = member(in, "backup/container/rootfs/etc/x", '0', "x");
	memset(in + n, 0, 2 * TAR_BLOCK);
	CHECK_INT(reframe_all(in, n + 2 * TAR_BLOCK), 0);
}
