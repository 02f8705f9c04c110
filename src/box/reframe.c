/* reframe.c - an export's tar re-framed for a restricted project (see
 * reframe.h). */
#include "box/reframe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/vet_export.h"
#include "util/err.h"

enum { ST_HDR = 0, ST_PASS, ST_GATHER, ST_SKIP };

void
reframe_init(struct reframe *r, reframe_out out, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->ctx = ctx;
}

void
reframe_free(struct reframe *r)
{
	free(r->doc);
	r->doc = NULL;
}

static size_t
indent_of(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && *q == ' ')
		q++;
	return (size_t)(q - p);
}

/* Is v[0..n) a scalar that ends on its own line? */
static int
scalar_whole(const char *v, size_t n)
{
	size_t i, q = 0, bs;

	if (n == 0)
		return 0;
	if (v[0] == '\'') {
		for (i = 0; i < n; i++)
			q += v[i] == '\'';
		return n >= 2 && v[n - 1] == '\'' && q % 2 == 0;
	}
	if (v[0] == '"') {
		if (n < 2 || v[n - 1] != '"')
			return 0;
		for (bs = 0, i = n - 1; i > 1 && v[i - 1] == '\\'; i--)
			bs++;
		return bs % 2 == 0;
	}
	/* plain: nothing that opens a block, a flow, an alias or a tag */
	return strchr("|>&*!%@`{[#,?-", v[0]) == NULL &&
	    memchr(v, '\t', n) == NULL;
}

/* Is line l[0..n) (no newline) a whole "volatile.<key>: scalar"? */
static int
volatile_line(const char *l, size_t n)
{
	size_t i = indent_of(l, l + n);

	if (n - i < 10 || memcmp(l + i, "volatile.", 9) != 0)
		return 0;
	for (; i < n && l[i] != ':'; i++)
		if (!((l[i] >= 'a' && l[i] <= 'z') || (l[i] >= '0' &&
		    l[i] <= '9') || l[i] == '.' || l[i] == '_' || l[i] == '-'))
			return 0;
	if (i >= n || i + 1 >= n || l[i + 1] != ' ')
		return 0;
	return scalar_whole(l + i + 2, n - i - 2);
}

size_t
reframe_drop_volatile(char *doc, size_t n, unsigned *dropped)
{
	char *end = doc + n, *p = doc, *w = doc, *nl, *q;
	size_t len, ind;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		if (volatile_line(p, len)) {
			/* the next line that holds anything is no deeper */
			ind = indent_of(p, p + len);
			for (q = nl; q != NULL && q + 1 < end; ) {
				char *l = q + 1, *e2 = memchr(l, '\n',
				    (size_t)(end - l));
				size_t ll = (size_t)((e2 != NULL ? e2 : end) - l);

				if (indent_of(l, l + ll) == ll) {	/* blank */
					q = e2;
					continue;
				}
				if (indent_of(l, l + ll) > ind)
					goto keep;
				break;
			}
			(*dropped)++;
			p = nl != NULL ? nl + 1 : end;
			continue;
		}
keep:
		len += nl != NULL;
		memmove(w, p, len);
		w += len;
		p += len;
	}
	return (size_t)(w - doc);
}

/* The member's name as a header alone gives it (no trailing slash). */
static void
hdr_name(const unsigned char *h, char *out, size_t cap)
{
	size_t n;

	if (memcmp(h + 257, "ustar\0", 6) == 0 && h[345] != '\0')
		snprintf(out, cap, "%.155s/%.100s", (const char *)h + 345,
		    (const char *)h);
	else
		snprintf(out, cap, "%.100s", (const char *)h);
	n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
}

static unsigned long long
padded(unsigned long long n)
{
	return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

/* The gathered document out, with its header's size and checksum new. */
static int
emit_doc(struct reframe *r)
{
	static const unsigned char zero[TAR_BLOCK];
	unsigned sum = 0;
	size_t i, n;
	char num[32];
	int rc;

	n = reframe_drop_volatile(r->doc, r->dn, &r->lines);
	if (n != r->dn)
		r->docs++;
	/* n <= VET_DOC_MAX: 11 octal digits and a NUL hold it */
	snprintf(num, sizeof(num), "%011llo", (unsigned long long)n &
	    077777777777ull);
	memcpy(r->hdr + 124, num, 12);
	memset(r->hdr + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += r->hdr[i];
	snprintf(num, sizeof(num), "%06o", sum & 0777777u);
	memcpy(r->hdr + 148, num, 7);	/* six digits, a NUL, the space */
	if ((rc = r->out(r->ctx, r->hdr, TAR_BLOCK)) < 0 ||
	    (n > 0 && (rc = r->out(r->ctx, r->doc, n)) < 0))
		return rc;
	if (padded(n) > n)
		rc = r->out(r->ctx, zero, (size_t)(padded(n) - n));
	return rc < 0 ? rc : 0;
}

/* A whole header in r->hdr: pass it, or start gathering its document. */
static int
take_header(struct reframe *r)
{
	static const unsigned char zero[TAR_BLOCK];
	char name[300];
	long long size;
	unsigned char t = r->hdr[156];
	int ext = r->ext;

	if (memcmp(r->hdr, zero, TAR_BLOCK) == 0)
		return r->out(r->ctx, r->hdr, TAR_BLOCK);	/* end blocks */
	size = tar_num(r->hdr + 124, 12);
	if (size < 0)
		return -EBOX_PROTO;
	r->ext = t == 'x' || t == 'L' || t == 'K';
	r->global |= t == 'g';
	hdr_name(r->hdr, name, sizeof(name));
	if ((t == '0' || t == '\0') && !ext && !r->global &&
	    tar_header_bad(r->hdr) == NULL &&
	    (unsigned long long)size <= VET_DOC_MAX &&
	    vet_export_doc_kind(name) >= 0) {
		free(r->doc);
		if ((r->doc = malloc((size_t)size + 1)) == NULL)
			return -ENOMEM;
		r->dn = 0;
		r->dsize = (size_t)size;
		r->left = (unsigned long long)size;
		r->pad = padded((unsigned long long)size) - (unsigned long long)size;
		r->state = ST_GATHER;
		return r->left == 0 && r->pad == 0 ? (r->state = ST_HDR,
		    emit_doc(r)) : 0;
	}
	r->left = padded((unsigned long long)size);
	r->state = r->left > 0 ? ST_PASS : ST_HDR;
	return r->out(r->ctx, r->hdr, TAR_BLOCK);
}

int
reframe_feed(struct reframe *r, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	size_t k;
	int rc;

	while (n > 0 && r->rc == 0) {
		switch (r->state) {
		case ST_HDR:
			k = TAR_BLOCK - r->hn < n ? TAR_BLOCK - r->hn : n;
			memcpy(r->hdr + r->hn, p, k);
			r->hn += k;
			if (r->hn == TAR_BLOCK) {
				r->hn = 0;
				if ((rc = take_header(r)) < 0)
					r->rc = rc;
			}
			break;
		case ST_PASS:
			k = r->left < n ? (size_t)r->left : n;
			if ((rc = r->out(r->ctx, p, k)) < 0)
				r->rc = rc;
			if ((r->left -= k) == 0)
				r->state = ST_HDR;
			break;
		case ST_GATHER:
			k = r->left < n ? (size_t)r->left : n;
			memcpy(r->doc + r->dn, p, k);
			r->dn += k;
			if ((r->left -= k) == 0) {
				r->state = ST_SKIP;
				if (r->pad == 0) {
					r->state = ST_HDR;
					if ((rc = emit_doc(r)) < 0)
						r->rc = rc;
				}
			}
			break;
		default:	/* ST_SKIP: the old padding */
			k = r->pad < n ? (size_t)r->pad : n;
			if ((r->pad -= k) == 0) {
				r->state = ST_HDR;
				if ((rc = emit_doc(r)) < 0)
					r->rc = rc;
			}
			break;
		}
		p += k;
		n -= k;
	}
	return r->rc;
}

int
reframe_end(struct reframe *r)
{
	if (r->rc < 0)
		return r->rc;
	return r->state == ST_HDR && r->hn == 0 ? 0 : -ENODATA;
}
