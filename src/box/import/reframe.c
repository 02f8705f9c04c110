/* reframe.c - a container export re-framed as a private image (see
 * reframe.h). */
#include "box/import/reframe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/import_mark.h"
#include "box/import/tar.h"
#include "box/import/vet_export.h"
#include "util/err.h"

enum { ST_HDR = 0, ST_DATA, ST_END };
enum { K_PASS, K_SKIP, K_PAX, K_LNAME, K_LLINK, K_CT };

#define ROOTFS		"backup/container/rootfs"
#define ROOTFS_N	(sizeof(ROOTFS) - 1)

void
reframe_init(struct reframe *r, reframe_out out, void *ctx, const char *arch,
    long long when)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->ctx = ctx;
	r->arch = arch;
	r->when = when;
}

static void
clear_ext(struct reframe *r)
{
	free(r->pax);
	free(r->lname);
	free(r->llink);
	r->pax = r->lname = r->llink = NULL;
	r->paxn = 0;
}

void
reframe_free(struct reframe *r)
{
	clear_ext(r);
	free(r->buf);
	free(r->ct);
	r->buf = r->ct = NULL;
}

static unsigned long long
padded(unsigned long long n)
{
	return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static void
sum_header(unsigned char *h)
{
	unsigned sum = 0;
	size_t i;
	char num[8];

	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf(num, sizeof(num), "%06o", sum & 0777777u);
	memcpy(h + 148, num, 7);	/* six digits, a NUL, the space */
}

/* A member box writes whole: metadata.yaml, a PAX header. */
static int
own(struct reframe *r, const char *name, char type, const void *body,
    size_t n)
{
	static const unsigned char zero[TAR_BLOCK];
	unsigned char h[TAR_BLOCK];
	char num[16];
	int rc;

	memset(h, 0, sizeof(h));
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	snprintf(num, sizeof(num), "%011llo", (unsigned long long)n &
	    077777777777ull);
	memcpy(h + 124, num, 12);
	snprintf(num, sizeof(num), "%011llo", (unsigned long long)r->when &
	    077777777777ull);
	memcpy(h + 136, num, 12);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	sum_header(h);
	if ((rc = r->out(r->ctx, h, TAR_BLOCK)) < 0 ||
	    (n > 0 && (rc = r->out(r->ctx, body, n)) < 0))
		return rc;
	if (padded(n) > n)
		rc = r->out(r->ctx, zero, (size_t)(padded(n) - n));
	return rc < 0 ? rc : 0;
}

static int
begin(struct reframe *r)
{
	char m[384];
	int n = snprintf(m, sizeof(m), "architecture: %.64s\ncreation_date: "
	    "%lld\nproperties:\n  description: box import\n%s%.128s%s",
	    r->arch, r->when, r->mark != NULL ? "  " IMPORT_MARK_PROP ": \"" :
	    "", r->mark != NULL ? r->mark : "", r->mark != NULL ? "\"\n" : "");

	r->began = 1;
	return own(r, "metadata.yaml", '0', m, (size_t)n);
}

/* A name with an empty, "." or ".." part: the daemon's tar would climb. */
static int
unclean(const char *name)
{
	const char *p = name;

	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

/* Append the record "key=v" (its length counts its own digits). */
static size_t
rec_put(char *b, size_t at, const char *key, const char *v)
{
	size_t body = strlen(key) + strlen(v) + 3, len = body + 1;

	while ((size_t)snprintf(NULL, 0, "%zu", len) + body != len)
		len = (size_t)snprintf(NULL, 0, "%zu", len) + body;
	return at + (size_t)sprintf(b + at, "%zu %s=%s\n", len, key, v);
}

/* A kept member's headers out: name, link as they are to be. */
static int
write_member(struct reframe *r, const char *name, const char *link,
    int had_path, int had_link)
{
	unsigned char h[TAR_BLOCK];
	size_t nn = strlen(name), ln = strlen(link), bn = 0, at = 0;
	struct tar_rec x;
	char *b;
	int rc;

	if ((b = malloc(r->paxn + nn + ln + 64)) == NULL)
		return -ENOMEM;
	if (nn > 100 || had_path)
		bn = rec_put(b, bn, "path", name);
	if (ln > 100 || had_link)
		bn = rec_put(b, bn, "linkpath", link);
	while ((rc = tar_pax_next(r->pax, r->paxn, &at, &x)) == 0)
		if (!(x.kn == 4 && memcmp(x.k, "path", 4) == 0) &&
		    !(x.kn == 8 && memcmp(x.k, "linkpath", 8) == 0)) {
			memcpy(b + bn, x.p, x.n);
			bn += x.n;
		}
	if (rc == 1)
		rc = bn > 0 ? own(r, "././@PaxHeader", 'x', b, bn) : 0;
	free(b);
	if (rc < 0)
		return rc;
	memcpy(h, r->hdr, TAR_BLOCK);
	memset(h, 0, 100);
	memcpy(h, name, nn < 100 ? nn : 100);
	memset(h + 157, 0, 100);
	memcpy(h + 157, link, ln < 100 ? ln : 100);
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 345, 0, TAR_BLOCK - 345);
	sum_header(h);
	r->members++;
	return r->out(r->ctx, h, TAR_BLOCK);
}

/* The member's data all read. */
static void
data_done(struct reframe *r)
{
	char **to = r->kind == K_LNAME ? &r->lname : r->kind == K_LLINK ?
	    &r->llink : r->kind == K_CT ? &r->ct : r->kind == K_PAX ?
	    &r->pax : NULL;

	r->state = ST_HDR;
	if (to == NULL)
		return;
	free(*to);
	r->buf[r->bn] = '\0';
	*to = r->buf;
	if (r->kind == K_PAX)
		r->paxn = r->bn;
	if (r->kind == K_CT)
		r->ctn = r->bn;
	r->buf = NULL;
}

/* The member's data next: size bytes (and padding) to pass, skip or
 * gather as kind. */
static int
data(struct reframe *r, int kind, unsigned long long size)
{
	r->kind = kind;
	r->left = padded(size);
	r->bn = 0;
	r->bcap = (size_t)size;
	if (kind != K_PASS && kind != K_SKIP &&
	    (r->buf = malloc((size_t)size + 1)) == NULL)
		return -ENOMEM;
	r->state = ST_DATA;
	if (r->left == 0)
		data_done(r);
	return 0;
}

/* A whole header in r->hdr. */
static int
take_header(struct reframe *r)
{
	static const unsigned char zero[TAR_BLOCK];
	const unsigned char *h = r->hdr;
	char name[VET_NAME_MAX + 8], link[VET_NAME_MAX + 8];
	unsigned char t = h[156];
	struct tar_pax f;
	int rc, kind, pp, pl;
	long long size;
	size_t n;

	if (memcmp(h, zero, TAR_BLOCK) == 0) {
		r->state = ST_END;	/* what follows is the vet's to judge */
		return 0;
	}
	if (tar_header_bad(h) != NULL || (size = tar_num(h + 124, 12)) < 0 ||
	    t == 'g')
		return -EBOX_PROTO;
	if (t == 'x' || t == 'L' || t == 'K') {
		if ((unsigned long long)size > (t == 'x' ? VET_PAX_MAX :
		    VET_NAME_MAX - 1))
			return -EBOX_PROTO;
		return data(r, t == 'x' ? K_PAX : t == 'L' ? K_LNAME :
		    K_LLINK, (unsigned long long)size);
	}
	/* the name, the link target and the size by the vet's own reader */
	if (r->pax != NULL && tar_pax_read(r->pax, r->paxn, &f) != NULL)
		return -EBOX_PROTO;
	pp = r->pax != NULL && f.has_path;
	pl = r->pax != NULL && f.has_link;
	if (pp)
		snprintf(name, sizeof(name), "%s", f.path);
	if (pl)
		snprintf(link, sizeof(link), "%s", f.link);
	if (r->pax != NULL && f.has_size)
		size = (long long)f.size;
	if (r->lname != NULL)
		snprintf(name, sizeof(name), "%s", r->lname);
	else if (pp == 0 && memcmp(h + 257, "ustar\0", 6) == 0 && h[345])
		snprintf(name, sizeof(name), "%.155s/%.100s", (const char *)h +
		    345, (const char *)h);
	else if (pp == 0)
		snprintf(name, sizeof(name), "%.100s", (const char *)h);
	if (r->llink != NULL)
		snprintf(link, sizeof(link), "%s", r->llink);
	else if (pl == 0)
		snprintf(link, sizeof(link), "%.100s", (const char *)h + 157);
	for (n = strlen(name); n > 0 && name[n - 1] == '/'; )
		name[--n] = '\0';
	if (r->seen != NULL)
		r->seen(r->seen_ctx, name, (char)t, size, link);
	if (strncmp(name, ROOTFS, ROOTFS_N) != 0 ||
	    (name[ROOTFS_N] != '\0' && name[ROOTFS_N] != '/')) {
		kind = K_SKIP;
		if (r->ct == NULL && (t == '0' || t == '\0') &&
		    strcmp(name, "backup/container/backup.yaml") == 0
		    && size <= (long long)VET_DOC_MAX)
			kind = K_CT;
		if (t == '5' && strncmp(name, "backup/snapshots/", 17) == 0 &&
		    name[17] != '\0' && strchr(name + 17, '/') == NULL)
			r->snaps++;
		clear_ext(r);
		return data(r, kind, (unsigned long long)size);
	}
	/* rootfs/../ would be a name outside the image's root filesystem */
	if (unclean(name) || (t == '1' && unclean(link)))
		return -EBOX_PROTO;
	/* rootfs[/...] under its new name; a hard link's target too */
	memmove(name, name + ROOTFS_N - 6, strlen(name + ROOTFS_N - 6) + 1);
	if (t == '1') {
		if (strncmp(link, ROOTFS "/", ROOTFS_N + 1) != 0)
			return -EBOX_PROTO;
		memmove(link, link + ROOTFS_N - 6, strlen(link + ROOTFS_N - 6) +
		    1);
	}
	rc = write_member(r, name, link, pp || r->lname != NULL,
	    pl || r->llink != NULL);
	clear_ext(r);
	return rc < 0 ? rc : data(r, K_PASS, (unsigned long long)size);
}

int
reframe_feed(struct reframe *r, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	size_t k;
	int rc;

	if (!r->began && r->rc == 0 && (rc = begin(r)) < 0)
		r->rc = rc;
	while (n > 0 && r->rc == 0 && r->state != ST_END) {
		if (r->state == ST_HDR) {
			k = TAR_BLOCK - r->hn < n ? TAR_BLOCK - r->hn : n;
			memcpy(r->hdr + r->hn, p, k);
			if ((r->hn += k) == TAR_BLOCK) {
				r->hn = 0;
				if ((rc = take_header(r)) < 0)
					r->rc = rc;
			}
		} else {
			k = r->left < n ? (size_t)r->left : n;
			if (r->kind == K_PASS && (rc = r->out(r->ctx, p, k)) < 0)
				r->rc = rc;
			if (r->buf != NULL) {	/* the data, not its padding */
				size_t c = r->bcap - r->bn < k ? r->bcap - r->bn : k;

				memcpy(r->buf + r->bn, p, c);
				r->bn += c;
			}
			if ((r->left -= k) == 0)
				data_done(r);
		}
		p += k;
		n -= k;
	}
	return r->rc;
}

int
reframe_end(struct reframe *r)
{
	static const unsigned char zero[2 * TAR_BLOCK];

	if (r->rc == 0 && !r->began)
		r->rc = begin(r);
	if (r->rc < 0)
		return r->rc;
	if (r->state == ST_DATA || r->hn != 0 || r->pax != NULL ||
	    r->lname != NULL || r->llink != NULL)
		return -ENODATA;
	return r->out(r->ctx, zero, sizeof(zero));
}
