/*
 * tar.c - reading one tar header (see tar.h).
 */
#include "box/import/tar.h"

#include <string.h>

/* far beyond any file, and v * 8 + 7 or v << 8 | 255 cannot overflow */
#define TAR_NUM_LIMIT	(1LL << 50)

static long long
tar_octal(const unsigned char *p, size_t n)
{
	long long v = 0;
	size_t i = 0;

	/* leading NULs are not skipped: GNU tar and Go zero-pad */
	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v > TAR_NUM_LIMIT)
			return -1;
		v = v * 8 + (p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	return v;
}

long long
tar_num(const unsigned char *p, size_t n)
{
	long long v = 0;
	size_t i;

	if (n == 0 || !(p[0] & 0x80))
		return tar_octal(p, n);
	if (p[0] != 0x80)
		return -1;		/* negative, or too big */
	for (i = 1; i < n; i++) {
		if (v > TAR_NUM_LIMIT)
			return -1;
		v = v << 8 | p[i];
	}
	return v;
}

const char *
tar_header_bad(const unsigned char *h)
{
	long long want = tar_octal(h + 148, 8), sum = 0;
	size_t i;

	for (i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	if (want < 0 || sum != want)
		return "a tar header with a bad checksum";
	if (!(memcmp(h + 257, "ustar\0" "00", 8) == 0 ||
	    memcmp(h + 257, "ustar  \0", 8) == 0))
		return "a tar header that is neither ustar nor GNU";
	return NULL;
}

int
tar_pax_next(const char *p, size_t n, size_t *at, struct tar_rec *x)
{
	size_t i = *at, j = i, l = 0;
	const char *eq;

	if (i >= n)
		return 1;
	while (j < n && p[j] >= '0' && p[j] <= '9' && l <= n)
		l = l * 10 + (size_t)(p[j++] - '0');
	if (j == i || j >= n || p[j] != ' ' || l > n - i || l < j - i + 3 ||
	    p[i + l - 1] != '\n')
		return -1;
	x->p = p + i;
	x->n = l;
	x->k = p + j + 1;
	if ((eq = memchr(x->k, '=', (size_t)(p + i + l - 1 - x->k))) == NULL)
		return -1;
	x->kn = (size_t)(eq - x->k);
	x->v = eq + 1;
	x->vn = (size_t)(p + i + l - 1 - x->v);
	*at = i + l;
	return 0;
}

static int
key_is(const struct tar_rec *x, const char *k)
{
	return x->kn == strlen(k) && memcmp(x->k, k, x->kn) == 0;
}

/* Has a record before the one at end the same key as x? */
static int
seen_before(const char *p, size_t end, const struct tar_rec *x)
{
	struct tar_rec y;
	size_t at = 0;

	while (at < end && tar_pax_next(p, end, &at, &y) == 0)
		if (y.kn == x->kn && memcmp(y.k, x->k, x->kn) == 0)
			return 1;
	return 0;
}

static const char *
pax_name(const struct tar_rec *x, char *out, int *has, const char *why)
{
	if (x->vn == 0 || x->vn >= TAR_PAX_NAME ||
	    memchr(x->v, '\0', x->vn) != NULL)
		return why;
	memcpy(out, x->v, x->vn);
	out[x->vn] = '\0';
	*has = 1;
	return NULL;
}

static const char *
pax_size(const struct tar_rec *x, struct tar_pax *f)
{
	size_t m;

	if (x->vn == 0 || x->vn > 18)
		return "a PAX size box cannot use";
	f->size = 0;
	for (m = 0; m < x->vn; m++) {
		if (x->v[m] < '0' || x->v[m] > '9')
			return "a PAX size box cannot use";
		f->size = f->size * 10 + (unsigned)(x->v[m] - '0');
	}
	f->has_size = 1;
	return NULL;
}

const char *
tar_pax_read(const char *p, size_t n, struct tar_pax *f)
{
	struct tar_rec x;
	size_t at = 0, start, k = 0;
	const char *bad = NULL;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	while (bad == NULL && (start = at,
	    rc = tar_pax_next(p, n, &at, &x)) == 0) {
		/* the repeat check is quadratic: a bound on records */
		if (++k > TAR_PAX_RECS)
			bad = "a PAX header of more records than box reads";
		else if (seen_before(p, start, &x))
			bad = "a PAX header that repeats a key";
		else if (key_is(&x, "path"))
			bad = pax_name(&x, f->path, &f->has_path,
			    "a PAX path box cannot use");
		else if (key_is(&x, "linkpath"))
			bad = pax_name(&x, f->link, &f->has_link,
			    "a PAX link target box cannot use");
		else if (key_is(&x, "size"))
			bad = pax_size(&x, f);
		else if (x.kn >= 11 && memcmp(x.k, "GNU.sparse.", 11) == 0)
			bad = "a sparse member";
	}
	if (bad == NULL && rc < 0)
		bad = "a malformed PAX header";
	return bad;
}
