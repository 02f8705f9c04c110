/*
 * fuzz_ct - the connection table's dump as the kernel (or anything that
 * answers on the socket) sends it: every message through ct_parse().  An
 * entry read must carry what its protocol needs, and the delete request
 * built from it must fit its buffer and parse back as one message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/ct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char req[256];
	struct ct_tuple t;
	struct nl_msg m, back;
	struct nl_buf b;
	size_t off = 0, boff;
	int r;

	while (nl_msg_at(data, size, &off, &m) > 0) {
		r = ct_parse(&m, &t);
		if (r < -4096 || r > 1)
			abort();
		if (r != 1)
			continue;
		if (t.has_ports && t.has_icmp)
			abort();
		nl_buf_init(&b, req, sizeof(req));
		if (ct_build_delete(&b, &t, 1) != 0)
			abort();
		boff = 0;
		if (nl_msg_at(req, b.len, &boff, &back) != 1 || boff != b.len)
			abort();
	}
	return 0;
}
