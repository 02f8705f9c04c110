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
