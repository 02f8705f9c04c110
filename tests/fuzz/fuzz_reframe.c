/*
 * fuzz_reframe - the tar re-framer a granted user's import sends through
 * (box/reframe.h), over any bytes:
 *   - fed whole and fed in pieces the input's first byte picks, the
 *     output is the same (no state lost at a boundary);
 *   - every member libarchive reads from the input it reads from the
 *     output in the same order, with the same name, type and bytes, but
 *     for config documents, which may only lose whole lines that name
 *     idmap (checked line by line here, independently);
 *   - reframe_drop_volatile on the bytes themselves keeps every line that
 *     does not say "idmap", in order.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/reframe.h"
#include "box/vet_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static int
put(void *ctx, const void *p, size_t n)
{
	struct buf *b = ctx;

	if (b->n + n > b->cap) {
		size_t c = (b->n + n) * 2 + 1024;
		unsigned char *q = realloc(b->p, c);

		if (q == NULL)
			abort();
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int
run(const uint8_t *d, size_t n, size_t step, struct buf *out)
{
	struct reframe r;
	size_t o, k;
	int rc = 0;

	reframe_init(&r, put, out);
	for (o = 0; o < n && rc == 0; o += k) {
		k = step == 0 || n - o < step ? n - o : step;
		rc = reframe_feed(&r, d + o, k);
	}
	if (rc == 0)
		rc = reframe_end(&r);
	reframe_free(&r);
	return rc;
}

/* b's lines are a(n in-order) subset of a's, each left out naming volatile. */
static void
lines_subset(const unsigned char *a, size_t an, const unsigned char *b,
    size_t bn)
{
	size_t i = 0, j = 0;

	while (i < an) {
		const unsigned char *e = memchr(a + i, '\n', an - i);
		size_t len = (e != NULL ? (size_t)(e - a) + 1 : an) - i;

		if (j + len <= bn && memcmp(a + i, b + j, len) == 0)
			j += len;
		else if (memmem(a + i, len, "volatile.", 9) == NULL)
			abort();	/* a line without volatile. was lost */
		i += len;
	}
	if (j != bn)
		abort();		/* something added */
}

struct member {
	char name[512];
	int type;
	unsigned char *p;
	size_t n;
};

static size_t
members(const unsigned char *d, size_t n, struct member *m, size_t cap)
{
	struct archive *a = archive_read_new();
	struct archive_entry *en;
	size_t k = 0;

	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, d, n) != ARCHIVE_OK) {
		archive_read_free(a);
		return 0;
	}
	while (k < cap && archive_read_next_header(a, &en) == ARCHIVE_OK) {
		const char *nm = archive_entry_pathname(en);
		unsigned char tmp[4096];
		la_ssize_t r;

		memset(&m[k], 0, sizeof(m[k]));
		snprintf(m[k].name, sizeof(m[k].name), "%s", nm ? nm : "");
		m[k].type = (int)archive_entry_filetype(en);
		while ((r = archive_read_data(a, tmp, sizeof(tmp))) > 0) {
			unsigned char *q = realloc(m[k].p, m[k].n + (size_t)r);

			if (q == NULL)
				abort();
			memcpy(q + m[k].n, tmp, (size_t)r);
			m[k].p = q;
			m[k].n += (size_t)r;
		}
		k++;
		if (r < 0)
			break;
	}
	archive_read_free(a);
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct member ma[64], mb[64];
	struct buf whole = { 0 }, parts = { 0 };
	size_t na, nb, i, step = size > 0 ? (size_t)data[0] % 700 + 1 : 1;
	int r1, r2;
	char *doc;
	unsigned dropped = 0;

	/* the line dropper over the raw bytes */
	if ((doc = malloc(size + 1)) == NULL)
		return 0;
	if (size > 0)
		memcpy(doc, data, size);
	lines_subset(data, size, (unsigned char *)doc,
	    reframe_drop_volatile(doc, size, &dropped));
	free(doc);

	r1 = run(data, size, 0, &whole);
	r2 = run(data, size, step, &parts);
	if (r1 != r2 || (r1 == 0 && (whole.n != parts.n || (whole.n > 0 &&
	    memcmp(whole.p, parts.p, whole.n) != 0))))
		abort();
	if (r1 == 0) {
		na = members(data, size, ma, 64);
		nb = members(whole.p, whole.n, mb, 64);
		if (nb < na)
			abort();
		for (i = 0; i < na; i++) {
			if (strcmp(ma[i].name, mb[i].name) != 0 ||
			    ma[i].type != mb[i].type)
				abort();
			if (vet_export_doc_kind(ma[i].name) >= 0)
				lines_subset(ma[i].p, ma[i].n, mb[i].p,
				    mb[i].n);
			else if (ma[i].n != mb[i].n || (ma[i].n > 0 &&
			    memcmp(ma[i].p, mb[i].p, ma[i].n) != 0))
				abort();
		}
		for (i = 0; i < na || i < nb; i++) {
			if (i < na)
				free(ma[i].p);
			if (i < nb)
				free(mb[i].p);
		}
	}
	free(whole.p);
	free(parts.p);
	return 0;
}
