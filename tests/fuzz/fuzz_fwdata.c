/*
 * fuzz_fwdata - the firewall data file (host/stack/fwdata.h), which every
 * firewall apply and show reads: a parse that succeeds must format back
 * to text that parses to the same data, within the blocklist's bound and
 * with every prefix's host bits clear; and a prefix argument of the block
 * sub-verb, alone.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/stack/fwdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char text[FWDATA_TEXTMAX + 1];
static char out[FWDATA_TEXTMAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fwdata d, again;
	uint32_t a;
	uint8_t p;
	size_t i;

	if (size > FWDATA_TEXTMAX)
		size = FWDATA_TEXTMAX;
	memcpy(text, data, size);
	text[size] = '\0';
	if (fwdata_prefix_parse(text, &a, &p) == 0 &&
	    (p > 32 || (p < 32 && (a & (0xffffffffu >> p)) != 0)))
		abort();
	if (fwdata_parse(text, size, &d) != 0)
		return 0;
	if (d.nblock > FWDATA_MAXBLOCK || d.conn_max > CONTRACT_CONN_MAX_LIMIT)
		abort();
	for (i = 0; i < d.nblock; i++)
		if (d.block[i].plen > 32 || (d.block[i].plen < 32 &&
		    (d.block[i].addr & (0xffffffffu >> d.block[i].plen)) != 0))
			abort();
	if (fwdata_format(&d, out, sizeof(out)) != 0 ||
	    fwdata_parse(out, strlen(out), &again) != 0 ||
	    again.conn_max != d.conn_max || again.nblock != d.nblock ||
	    memcmp(again.block, d.block, d.nblock * sizeof(d.block[0])) != 0)
		abort();
	return 0;
}
