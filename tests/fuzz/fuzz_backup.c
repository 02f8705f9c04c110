/*
 * fuzz_backup - what box reads out of files and guests it did not write:
 * the gzip/DEFLATE prefix decoder, the tar walk that finds an export's
 * index.yaml and its name, and the sanitiser for guest text.  Nothing may
 * read or write out of bounds, a found name must fit, be non-empty and hold no control byte, and
 * sanitised text must hold only printable ASCII, tab and newline.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/backup.h"
#include "util/inflate.h"
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t;
	size_t n, i;
	long r;

	r = gunzip_prefix(data, size, out, sizeof(out));
	if (r > (long)sizeof(out))
		abort();
	if (r > 0)
		tar_name(out, (size_t)r);
	r = inflate_prefix(data, size, out, 1024);
	if (r > 1024)
		abort();
	tar_name(data, size);
	t = malloc(size + 1);
	if (t == NULL)
		return 0;
	memcpy(t, data, size);
	n = text_sanitize(t, size);
	if (n > size)
		abort();
	for (i = 0; i < n; i++)
		if (!(t[i] == '\t' || t[i] == '\n' || (t[i] >= 0x20 &&
		    t[i] < 0x7f)))
			abort();
	if (text_tail(t, n, 3) < t || text_tail(t, n, 3) > t + n)
		abort();
	free(t);
	return 0;
}
