/*
 * fuzz_tar_diff - the vet and the re-framer, differentially (issue 35):
 * the granted import's vet judges an export and the re-framer writes the
 * image the daemon unpacks, so they must read every member alike.  For
 * any bytes both accept, member by member and in order: the same name
 * (a trailing '/' aside), the same type, the same link target and the
 * same size.  Both read PAX records with one reader (box/tar.h), and a
 * key said twice is refused by it: the re-framer once took the first
 * path, the vet the last.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/import/reframe.h"
#include "box/import/vet_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXM	64

struct m {
	char name[VET_NAME_MAX + 8], link[VET_NAME_MAX + 8];
	char type;
	long long size;
};

struct seen {
	struct m v[MAXM];
	size_t n;
	int over;
};

static struct seen by_vet, by_reframe;

static void
note(void *ctx, const char *name, char type, long long size,
    const char *link)
{
	struct seen *s = ctx;
	size_t k;

	if (s->n == MAXM) {
		s->over = 1;
		return;
	}
	snprintf(s->v[s->n].name, sizeof(s->v[s->n].name), "%s", name);
	k = strlen(s->v[s->n].name);
	while (k > 0 && s->v[s->n].name[k - 1] == '/')
		s->v[s->n].name[--k] = '\0';
	snprintf(s->v[s->n].link, sizeof(s->v[s->n].link), "%s",
	    type == '1' || type == '2' ? link : "");
	s->v[s->n].type = type;
	s->v[s->n].size = size;
	s->n++;
}

static int
sink(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reframe r;
	size_t i;
	int rr, rv;

	memset(&by_vet, 0, sizeof(by_vet));
	memset(&by_reframe, 0, sizeof(by_reframe));
	reframe_init(&r, sink, NULL, "x86_64", 1);
	r.seen = note;
	r.seen_ctx = &by_reframe;
	rr = reframe_feed(&r, data, size);
	if (rr == 0)
		rr = reframe_end(&r);
	reframe_free(&r);
	rv = vet_tar_members(data, size, note, &by_vet);
	if (rr != 0 || rv != 0 || by_vet.over || by_reframe.over)
		return 0;
	if (by_vet.n != by_reframe.n)
		abort();
	for (i = 0; i < by_vet.n; i++) {
		const struct m *a = &by_vet.v[i], *b = &by_reframe.v[i];

		if (strcmp(a->name, b->name) != 0 || a->type != b->type ||
		    strcmp(a->link, b->link) != 0 || a->size != b->size)
			abort();
	}
	return 0;
}
