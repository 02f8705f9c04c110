/*
 * fuzz_reframe - the re-framer a granted user's import sends through
 * (box/import/reframe.h: an export's tar in, an image tarball out), over any
 * bytes:
 *   - fed whole and fed in pieces the input's first byte picks, the
 *     result and the output are the same (no state lost at a boundary);
 *   - for an input the vet's own tar walk reads whole (vet_tar_members),
 *     libarchive reads from the output metadata.yaml, then exactly the
 *     walk's members at or under backup/container/rootfs, in order,
 *     renamed to rootfs/..., with the same type, the same hard link
 *     target (renamed) or symlink target, and the same size; nothing else.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/reframe.h"
#include "box/import/vet_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXM	64
#define PFX	"backup/container/rootfs"

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

	reframe_init(&r, put, out, "x86_64", 1);
	for (o = 0; o < n && rc == 0; o += k) {
		k = step == 0 || n - o < step ? n - o : step;
		rc = reframe_feed(&r, d + o, k);
	}
	if (rc == 0)
		rc = reframe_end(&r);
	reframe_free(&r);
	return rc;
}

struct m {
	char name[VET_NAME_MAX + 8], link[VET_NAME_MAX + 8];
	char type;
	long long size;
};

static struct m want[MAXM];
static size_t nwant, over;

static void
on_member(void *ctx, const char *name, char type, long long size,
    const char *link)
{
	(void)ctx;
	if (strncmp(name, PFX, sizeof(PFX) - 1) != 0 ||
	    (name[sizeof(PFX) - 1] != '\0' && name[sizeof(PFX) - 1] != '/'))
		return;
	if (nwant == MAXM) {
		over = 1;
		return;
	}
	snprintf(want[nwant].name, sizeof(want[nwant].name), "rootfs%s",
	    name + sizeof(PFX) - 1);
	if (type == '1')
		snprintf(want[nwant].link, sizeof(want[nwant].link),
		    "rootfs%s", link + sizeof(PFX) - 1);
	else
		snprintf(want[nwant].link, sizeof(want[nwant].link), "%s",
		    type == '2' ? link : "");
	want[nwant].type = type == '\0' || type == '7' ? '0' : type;
	want[nwant].size = type == '0' || type == '\0' || type == '7' ?
	    size : 0;
	nwant++;
}

static char
type_of(struct archive_entry *en)
{
	if (archive_entry_hardlink(en) != NULL)
		return '1';
	switch (archive_entry_filetype(en)) {
	case AE_IFREG:	return '0';
	case AE_IFLNK:	return '2';
	case AE_IFDIR:	return '5';
	case AE_IFIFO:	return '6';
	default:	return '?';
	}
}

static void
check(const unsigned char *d, size_t n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *en;
	size_t k = 0;
	char nm[VET_NAME_MAX + 8];
	int rc;

	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, d, n) != ARCHIVE_OK)
		abort();
	if (archive_read_next_header(a, &en) != ARCHIVE_OK ||
	    strcmp(archive_entry_pathname(en), "metadata.yaml") != 0)
		abort();
	/* a warning is a name not in UTF-8: read all the same */
	while ((rc = archive_read_next_header(a, &en)) == ARCHIVE_OK ||
	    rc == ARCHIVE_WARN) {
		const char *p = archive_entry_pathname(en), *l;
		size_t pn;

		if (k == nwant)
			abort();	/* a member the walk did not keep */
		snprintf(nm, sizeof(nm), "%s", p ? p : "");
		pn = strlen(nm);
		while (pn > 0 && nm[pn - 1] == '/')
			nm[--pn] = '\0';
		if (strcmp(nm, want[k].name) != 0 ||
		    type_of(en) != want[k].type)
			abort();
		l = want[k].type == '1' ? archive_entry_hardlink(en) :
		    want[k].type == '2' ? archive_entry_symlink(en) : NULL;
		if (l != NULL && strcmp(l, want[k].link) != 0)
			abort();
		if (want[k].type == '0' && archive_entry_size(en) !=
		    want[k].size)
			abort();
		k++;
	}
	if (k != nwant)
		abort();		/* a kept member lost */
	archive_read_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = { 0 }, parts = { 0 };
	size_t step = size > 0 ? (size_t)data[0] % 700 + 1 : 1;
	int r1, r2;

	r1 = run(data, size, 0, &whole);
	r2 = run(data, size, step, &parts);
	if (r1 != r2 || (r1 == 0 && (whole.n != parts.n || (whole.n > 0 &&
	    memcmp(whole.p, parts.p, whole.n) != 0))))
		abort();
	nwant = over = 0;
	if (r1 == 0 && vet_tar_members(data, size, on_member, NULL) == 0 &&
	    !over)
		check(whole.p, whole.n);
	free(whole.p);
	free(parts.p);
	return 0;
}
