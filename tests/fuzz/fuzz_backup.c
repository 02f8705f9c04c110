/*
 * fuzz_backup - what box reads out of files and guests it did not write:
 * the gzip/DEFLATE decoder read up to a bound (the input as gzip, and as
 * raw DEFLATE behind a gzip header), the tar walk that finds an export's
 * index.yaml and its name, and the sanitiser for guest text; and the import
 * vetting: the streaming gzip decoder, the strict YAML reader, the whole
 * tar walk with the allowlist over every config member, and the daemon
 * side check over JSON (the record typed by incus/backup.h, then judged),
 * and the id map JSON of volatile.idmap.* (incus/idmap.h, then vet_key).
 * Nothing may read or write out of bounds, a found name must fit, be
 * non-empty and hold no control byte, sanitised text must hold only
 * printable ASCII, tab and newline, a parsed YAML tree must stay inside
 * its bounds, and vetting must either refuse or list within bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/backup.h"
#include "box/life/vet.h"
#include "box/import/vet_export.h"
#include "box/import/vet_export_test.h"
#include "box/import/yaml.h"
#include "incus/backup.h"
#include "incus/idmap.h"
#include "incus/json.h"
#include "util/gzstream.h"
#include "util/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char out[1 << 16];

static int
printable(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static void
tar_name(const unsigned char *p, size_t n)
{
	char name[64];

	if (backup_tar_name(p, n, name, sizeof(name)) == 0 &&
	    (strlen(name) >= sizeof(name) || !printable(name)))
		abort();
}

static int
sink(void *ctx, const unsigned char *p, size_t n)
{
	size_t *total = ctx;

	if (n == 0 || n > 65536 || p == NULL)
		abort();
	*total += n;
	return *total > (64u << 20);	/* enough: stop */
}

/* Walk every node: children and strings inside the tree's bounds. */
static void
yaml_walk(const struct yaml_doc *d, int i, int depth)
{
	int k, n = 0;
	size_t len;
	const char *s;

	if (depth > YAML_MAX_DEPTH + 1 || i < 0 || i >= d->n)
		abort();
	switch (yaml_type(d, i)) {
	case YAML_STR:
		s = yaml_str(d, i, &len);
		if (s == NULL || s[len] != '\0' || strlen(s) != len)
			abort();
		return;
	case YAML_NULL:
		return;
	case YAML_MAP:
	case YAML_SEQ:
		for (k = yaml_child(d, i); k >= 0; k = yaml_next(d, k)) {
			if (yaml_type(d, i) == YAML_MAP && n % 2 == 0 &&
			    yaml_type(d, k) != YAML_STR)
				abort();
			yaml_walk(d, k, depth + 1);
			if (++n > YAML_MAX_NODES)
				abort();
		}
		if (yaml_type(d, i) == YAML_MAP && n % 2 != 0)
			abort();
		return;
	default:
		abort();
	}
}

/*
 * The daemon's record typed (incus/backup.h): the instance up to the
 * first newline, its snapshot list after it (each half copied to its
 * exact size, so ASan sees an overread); the index is judged when read.
 */
static void
held(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t a = nl != NULL ? (size_t)(nl - data) : size;
	size_t b = nl != NULL ? size - a - 1 : size;
	char *inst = malloc(a + 1), *snaps = malloc(b + 1);
	struct incus_backup_index ix;
	struct box_err e;
	struct vet v;
	size_t i;

	if (inst != NULL && snaps != NULL) {
		memcpy(inst, data, a);
		memcpy(snaps, nl != NULL ? nl + 1 : data, b);
		err_clear(&e);
		if (incus_backup_index_from_json(inst, a, snaps, b, &ix,
		    &e) == 0) {
			if (ix.inst.name != NULL)
				abort();
			for (i = 0; i < ix.nsnap; i++)
				if (ix.snap[i].name == NULL)
					abort();
			vet_init(&v);
			if (vet_daemon_index(&ix, &v) < 0 ||
			    v.n > VET_MAX_ITEMS)
				abort();
			incus_backup_index_free(&ix);
		}
	}
	free(inst);
	free(snaps);
}

static void
vetting(const uint8_t *data, size_t size)
{
	struct incus_backup_index ix;
	struct yaml_doc y;
	struct json_doc j;
	struct box_err e;
	struct vet v;
	char name[64], list[VET_MAX_ITEMS * (VET_ITEM + 2) + 64];
	size_t total = 0;

	if (gz_stream_mem(data, size, sink, &total) > 1)
		abort();
	if (yaml_parse(&y, (const char *)data, size) == 0)
		yaml_walk(&y, 0, 0);
	yaml_free(&y);
	err_clear(&e);
	vet_init(&v);
	if (vet_export_mem(data, size, &v, name, sizeof(name), &e) == 0) {
		if (strlen(name) >= sizeof(name) || v.n > VET_MAX_ITEMS ||
		    vet_list(&v, list, sizeof(list)) >= sizeof(list))
			abort();
	}
	err_clear(&e);
	if (json_parse(&j, (const char *)data, size, &e) == 0) {
		if (incus_backup_index_from_doc(&j, 0, &j, 0, &ix) == 0) {
			vet_init(&v);
			if (vet_daemon_index(&ix, &v) < 0 ||
			    v.n > VET_MAX_ITEMS)
				abort();
			incus_backup_index_free(&ix);
		}
		json_free(&j);
	}
	held(data, size);
}

/* The input as a volatile.idmap.* value: typed within cap, then judged. */
static void
idmap(const char *t)
{
	struct incus_idmap m[INCUS_IDMAP_MAX + 1];
	const char *why;
	size_t n = 99, i;
	int rc;

	rc = incus_idmap_parse(t, m, 4, &n);
	if (rc == 0 ? n > 4 : n != 0)
		abort();
	rc = incus_idmap_parse(t, m, INCUS_IDMAP_MAX + 1, &n);
	if (rc == 0 ? n > INCUS_IDMAP_MAX : n != 0)
		abort();
	for (i = 0; rc == 0 && i < n; i++)
		if ((m[i].isuid | m[i].isgid) & ~1)
			abort();
	why = vet_key("volatile.idmap.next", t, 0);
	if (why != NULL && strcmp(why, "not an id map") != 0 &&
	    strcmp(why, "maps the box onto host ids below 65536") != 0)
		abort();
	if (rc < 0 && why == NULL)	/* what the parser refused, never allowed */
		abort();
}

/* The input as raw DEFLATE, read into a buffer smaller than it may fill. */
static void
raw_deflate(const uint8_t *data, size_t size)
{
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
	    0, 3 };
	unsigned char *g = malloc(size + sizeof(hdr));
	long r;

	if (g == NULL)
		return;
	memcpy(g, hdr, sizeof(hdr));
	memcpy(g + sizeof(hdr), data, size);
	r = gz_prefix(g, size + sizeof(hdr), out, 1024);
	if (r > 1024)
		abort();
	free(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t;
	size_t n, i;
	long r;

	r = gz_prefix(data, size, out, sizeof(out));
	if (r > (long)sizeof(out))
		abort();
	if (r > 0)
		tar_name(out, (size_t)r);
	raw_deflate(data, size);
	tar_name(data, size);
	vetting(data, size);
	t = malloc(4 * size + 16);
	if (t == NULL)
		return 0;
	memcpy(t, data, size);
	t[size] = '\0';
	idmap(t);
	if (text_tail(t, size, 3) < t || text_tail(t, size, 3) > t + size)
		abort();
	/* escaped in place: no control byte is left, and nothing is cut
	 * when the room is there (4 bytes shown for each, at most) */
	n = text_shown_in(t, 4 * size + 16);
	if (n != strlen(t) || (memchr(data, '\0', size) == NULL &&
	    n < strlen(t)))
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			abort();
	free(t);
	return 0;
}
