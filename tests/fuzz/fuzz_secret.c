/*
 * fuzz_secret - what the secret store and the use log read back: a
 * record's file, a grant list (an instance key anyone with the daemon
 * can set) and a use log line.  The first byte picks the reader.  A
 * parsed record formats back to exactly its input; a parsed log line too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/secret/secret.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct secret s;
static struct secret_use u;
static char text[SECRET_FILEMAX + 64], out[SECRET_FILEMAX + 64];

static void
record(const char *p, size_t n)
{
	int k;

	if (secret_parse(p, n, &s, NULL, 0) != 0)
		return;
	k = secret_format(&s, out, sizeof(out));
	if (k < 0 || (size_t)k != n || memcmp(out, p, n) != 0)
		abort();
	if (secret_header_line(&s, out, sizeof(out)) < 0 ||
	    strchr(out, '\r') != NULL || strchr(out, '\n') != NULL)
		abort();
}

static void
grants(const char *p, size_t n)
{
	char names[SECRET_GRANTMAX][SECRET_NAMEMAX + 1], o[2048];
	size_t k;

	if (memchr(p, '\0', n) != NULL || n >= sizeof(text))
		return;
	if (secret_grants_parse(p, names, &k) == 0 && k > SECRET_GRANTMAX)
		abort();
	if (secret_grants_edit(p, "x", (int)(n & 1), o, sizeof(o)) >= 0 &&
	    secret_grants_parse(o, names, &k) != 0)
		abort();
}

static void
useline(const char *p, size_t n)
{
	int k;

	if (secret_use_parse(p, n, &u) != 0)
		return;
	k = secret_use_format(&u, out, sizeof(out));
	if (k < 0 || (size_t)k != n + 1 || memcmp(out, p, n) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size - 1 >= sizeof(text))
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		record(text, size - 1);
		break;
	case 1:
		grants(text, size - 1);
		break;
	default:
		useline(text, size - 1);
	}
	return 0;
}
