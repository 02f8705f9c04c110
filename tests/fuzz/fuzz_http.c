/*
 * fuzz_http - the HTTP response parser (status line, headers, Content-
 * Length, chunked framing, trailers, EOF bodies) on arbitrary bytes, fed in
 * reads of varying size so that every buffer boundary is exercised.  Up to
 * three responses are read from one input (keep-alive).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "incus/http.h"
#include "incus/transport_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem_transport m;
	struct http_conn *c;
	struct http_resp r;
	struct box_err e;
	static struct http_conn conn;
	int i;

	if (size < 1)
		return 0;
	mem_transport_init(&m, data + 1, size - 1, NULL, 0);
	m.max_read = data[0] % 17;	/* 0: whatever is there */
	c = &conn;
	http_conn_init(c, &m.base);
	for (i = 0; i < 3; i++) {
		err_clear(&e);
		if (http_read_head(c, &r, &e) < 0)
			break;
		if (http_read_body(c, &r, 1 << 16, &e) < 0)
			break;
		if (r.body_len > 0 && r.body[r.body_len] != '\0')
			__builtin_trap();
		http_resp_free(&r);
		if (!c->reusable)
			break;
	}
	return 0;
}
