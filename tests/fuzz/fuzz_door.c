/*
 * fuzz_door - what the credential door reads from a box and from an
 * upstream: a request head, a chunked body (in pieces of the sizes the
 * input's bytes pick), a response head and its redaction.  The first
 * byte picks the reader.  A parsed head's fields lie inside it; the
 * chunked reader never takes more than it was given; a redacted head
 * holds no copy of the secret.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/door/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dh_req r;
static struct dh_resp rs;
static char out[DH_HEADMAX + 64];

static void
request(const char *p, size_t n)
{
	long end = dh_head_end(p, n);
	size_t i;

	if (end <= 0)
		return;
	if ((size_t)end > n)
		abort();
	if (dh_req_parse(p, (size_t)end, &r, NULL, 0) != 0)
		return;
	if (r.target < p || r.target + r.tlen > p + end || r.target[0] != '/'
	    || (r.chunked && r.has_len) || r.nh > DH_MAXHDR)
		abort();
	for (i = 0; i < r.nh; i++)
		if (r.h[i].value + r.h[i].vlen > p + end ||
		    memchr(r.h[i].value, '\n', r.h[i].vlen) != NULL)
			abort();
}

static void
chunked(const char *p, size_t n)
{
	struct dh_chunked c;
	size_t off = 0, step;
	long k;

	memset(&c, 0, sizeof(c));
	while (off < n && !c.done) {
		step = 1 + (unsigned char)p[off] % 7;
		if (step > n - off)
			step = n - off;
		if ((k = dh_chunked_feed(&c, p + off, step)) < 0)
			return;
		if ((size_t)k > step || ((size_t)k < step && !c.done))
			abort();
		off += (size_t)k;
	}
}

static void
response(const char *p, size_t n)
{
	long end = dh_head_end(p, n), w;
	int red;

	if (end <= 0 || dh_resp_parse(p, (size_t)end, &rs, NULL, 0) != 0)
		return;
	if (rs.status < 100 || rs.status > 599)
		abort();
	w = dh_resp_redact(p, &rs, "SECRETVALUE", 11, out, sizeof(out), &red);
	if (w >= 0 && memmem(out, (size_t)w, "SECRETVALUE", 11) != NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[DH_HEADMAX + 1];

	if (size == 0 || size - 1 > DH_HEADMAX)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		request(buf, size - 1);
		break;
	case 1:
		chunked(buf, size - 1);
		break;
	default:
		response(buf, size - 1);
	}
	return 0;
}
