/*
 * fuzz_tar - box's tar walk (box/import/vet_export.c, box/import/tar.c) against an
 * independent reader, libarchive (Debian's libarchive-dev, linked into
 * this harness alone: the binary never carries it).  Every archive box
 * reads whole must be read by libarchive as the same members in the same
 * order - name, kind, size of a regular file, link target - or the
 * harness aborts: two readers that disagree are how an export shows the
 * vet one archive and the daemon's tar another (a size read from 11 of
 * its 12 bytes, a prefix field taken or dropped, a PAX record applied to
 * the wrong member).  Archives box refuses are not compared: refusing is
 * always safe.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box/import/vet_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed);
static void compare(const uint8_t *data, size_t size);

#define MAXM	256

struct mem {
	char name[VET_NAME_MAX + 1];
	char kind;		/* f d l (symlink) h (hardlink) c b p */
	long long size;		/* regular files only, else 0 */
	char link[VET_NAME_MAX + 1];
};

struct list {
	struct mem m[MAXM];
	int n, over;
};

static struct list ours, theirs;
static char why[256];		/* libarchive's error, if any */

static char
kind_of_type(char t)
{
	switch (t) {
	case '1': return 'h';
	case '2': return 'l';
	case '3': return 'c';
	case '4': return 'b';
	case '5': return 'd';
	case '6': return 'p';
	default: return 'f';	/* '0', '\0', '7' */
	}
}

static void
strip(char *s)
{
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == '/')
		s[n - 1] = '\0';
}

static void
on_member(void *ctx, const char *name, char type, long long sz,
    const char *link)
{
	struct list *l = ctx;
	struct mem *m;

	if (l->n == MAXM) {
		l->over = 1;
		return;
	}
	m = &l->m[l->n++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	strip(m->name);
	m->kind = kind_of_type(type);
	m->size = m->kind == 'f' ? sz : 0;
	snprintf(m->link, sizeof(m->link), "%s", m->kind == 'l' ||
	    m->kind == 'h' ? link : "");
}

static int
theirs_read(const uint8_t *data, size_t size)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc, ok = 1;

	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, data, size) != ARCHIVE_OK) {
		archive_read_free(a);
		return 0;
	}
	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    rc == ARCHIVE_WARN) {
		const char *p = archive_entry_pathname(e), *h, *s;
		struct mem *m;
		mode_t t = archive_entry_filetype(e);

		if (theirs.n == MAXM) {
			theirs.over = 1;
			break;
		}
		m = &theirs.m[theirs.n++];
		snprintf(m->name, sizeof(m->name), "%s", p ? p : "");
		strip(m->name);
		h = archive_entry_hardlink(e);
		s = archive_entry_symlink(e);
		m->kind = h != NULL ? 'h' : t == AE_IFDIR ? 'd' :
		    t == AE_IFLNK ? 'l' : t == AE_IFCHR ? 'c' :
		    t == AE_IFBLK ? 'b' : t == AE_IFIFO ? 'p' : 'f';
		m->size = m->kind == 'f' ? (long long)archive_entry_size(e) : 0;
		snprintf(m->link, sizeof(m->link), "%s", h ? h : s ? s : "");
		if (archive_read_data_skip(a) != ARCHIVE_OK) {
			ok = 0;
			break;
		}
	}
	if (rc == ARCHIVE_FATAL || rc == ARCHIVE_FAILED)
		ok = 0;
	snprintf(why, sizeof(why), "%s", archive_error_string(a) ?
	    archive_error_string(a) : "");
	archive_read_free(a);
	return ok;
}

static void
differ(int i, const char *what)
{
	fprintf(stderr, "fuzz_tar: member %d: box and libarchive read it "
	    "differently (%s): box \"%s\" %c %lld \"%s\", libarchive "
	    "\"%s\" %c %lld \"%s\" (libarchive: %s)\n", i, what,
	    i < ours.n ? ours.m[i].name : "-", i < ours.n ? ours.m[i].kind :
	    '-', i < ours.n ? ours.m[i].size : -1,
	    i < ours.n ? ours.m[i].link : "-",
	    i < theirs.n ? theirs.m[i].name : "-",
	    i < theirs.n ? theirs.m[i].kind : '-',
	    i < theirs.n ? theirs.m[i].size : -1,
	    i < theirs.n ? theirs.m[i].link : "-", why);
	abort();
}

/*
 * Every block that carries a tar magic gets the right checksum, so the
 * mutations reach the fields behind it (a digit in a size field's last
 * byte) instead of dying at the checksum both readers check.
 */
static void
fix_sums(uint8_t *p, size_t n)
{
	size_t off, i;

	for (off = 0; off + 512 <= n; off += 512) {
		uint8_t *h = p + off;
		unsigned sum = 0;

		if (memcmp(h + 257, "ustar", 5) != 0)
			continue;
		memset(h + 148, ' ', 8);
		for (i = 0; i < 512; i++)
			sum += h[i];
		snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
		h[155] = ' ';
	}
}

/*
 * Half the mutations are tar-shaped: one byte of one header's fields
 * (a number field's last byte above all) set to a digit, a space, a NUL,
 * '/' or 0x80, where blind byte flips across a 10 KiB archive rarely
 * land; the rest are libFuzzer's own.
 */
size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
    unsigned int seed)
{
	static const struct {
		unsigned short at, len;
	} fields[] = { { 100, 8 }, { 108, 8 }, { 116, 8 }, { 124, 12 },
	    { 136, 12 }, { 156, 1 }, { 157, 100 }, { 329, 8 }, { 337, 8 },
	    { 345, 155 }, { 0, 100 } };
	static const unsigned char vals[] = "01234567 \0/\x80\xff.x";
	size_t blocks = size / 512, b, nh = 0, i;
	unsigned r = seed;

	if (blocks == 0 || (r & 1))
		return LLVMFuzzerMutate(data, size, max);
	r >>= 1;
	for (b = 0; b < blocks; b++)
		if (memcmp(data + b * 512 + 257, "ustar", 5) == 0)
			nh++;
	if (nh == 0)
		return LLVMFuzzerMutate(data, size, max);
	nh = r % nh;
	r /= 7;
	for (b = 0; b < blocks; b++) {
		uint8_t *h = data + b * 512;

		if (memcmp(h + 257, "ustar", 5) != 0 || nh-- > 0)
			continue;
		i = r % (sizeof(fields) / sizeof(fields[0]));
		r /= 11;
		/* the last byte of the field half the time */
		i = fields[i].at + ((r & 1) ? fields[i].len - 1u :
		    (r >> 1) % fields[i].len);
		r >>= 5;
		h[i] = vals[r % (sizeof(vals) - 1)];
		break;
	}
	return size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	uint8_t *data = malloc(size ? size : 1);

	if (data == NULL)
		return 0;
	memcpy(data, in, size);
	fix_sums(data, size);
	compare(data, size);
	free(data);
	return 0;
}

static void
compare(const uint8_t *data, size_t size)
{
	int i;

	memset(&ours, 0, sizeof(ours));
	memset(&theirs, 0, sizeof(theirs));
	if (vet_tar_members(data, size, on_member, &ours) < 0 || ours.over)
		return;	/* box refuses it: nothing to compare */
	if (ours.n == 0)
		return;	/* nothing read: nothing to disagree on */
	/* libarchive refuses a cut end-of-archive block box reads as zeros:
	 * a failure counts only when it came before every member box read */
	if (!theirs_read(data, size) && theirs.n < ours.n)
		differ(theirs.n, "box read it, libarchive failed");
	if (theirs.over)
		return;
	for (i = 0; i < ours.n || i < theirs.n; i++) {
		if (i >= ours.n || i >= theirs.n)
			differ(i, "a member only one of them saw");
		if (strcmp(ours.m[i].name, theirs.m[i].name) != 0)
			differ(i, "name");
		if (ours.m[i].kind != theirs.m[i].kind)
			differ(i, "kind");
		if (ours.m[i].size != theirs.m[i].size)
			differ(i, "size");
		if (strcmp(ours.m[i].link, theirs.m[i].link) != 0)
			differ(i, "link target");
	}
}
