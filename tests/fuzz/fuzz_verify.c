/*
 * fuzz_verify.c - what box verify reads that it did not write: every
 * frame on the bridge (net/sniff.c: any box may send anything), the box's
 * own /proc/net lines (the IPv6 clause's readers), the policy value on
 * the instance, the box's report and (in the box) the plan (line records,
 * util/lines.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/verify/verify.h"
#include "box/verify/verify_test.h"
#include "net/sniff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void
count(void *arg, const char *id, const char *v)
{
	if (strlen(id) >= VERIFY_ID)
		abort();
	*(unsigned *)arg += (unsigned)strlen(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned n = 0;
	struct sniff_frame fr;
	char d[96], *copy = malloc(size + 1), *l, *save = NULL;

	if (copy == NULL)
		return 0;
	if (sniff_parse(data, size, &fr) == 1 && fr.kind == SNIFF_UDP4)
		(void)sniff_has_token(fr.payload, fr.plen, "box-verify-x");
	(void)verify_report_parse((const char *)data, size, count, &n);
	n += (unsigned)verify_plan_count((const char *)data, size);
	sink = n;
	memcpy(copy, data, size);
	copy[size] = '\0';
	(void)verify_policy_read(copy, d, sizeof(d));
	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		(void)verify_v6_addr_line(l, d, sizeof(d));
		(void)verify_v6_route_line(l, d, sizeof(d));
	}
	free(copy);
	return 0;
}
