/*
 * fuzz_lease - dnsmasq's lease file and the times around it (box/lease.h),
 * as a box can shape them: a box chooses its DHCP client id and host name,
 * and dnsmasq writes them into the file box reads.  The parser must stay
 * inside its n bytes (the copy is exactly n long), find at most one lease
 * per line, and every lease it keeps must name a MAC and an IPv4 address
 * that appear, as text, on some line of the input.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/lease.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* needle in text[0..n) as a whole token (sscanf's %s splits at any
 * white space) */
static int
appears(const char *text, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= n && i <= n - k; i++)
		if (strncasecmp(text + i, needle, k) == 0 &&
		    (i == 0 || isspace((unsigned char)text[i - 1])) &&
		    (i + k == n ||
		    strchr("0123456789abcdefABCDEF.:", text[i + k]) == NULL ||
		    text[i + k] == '\0'))
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1), s[64];
	struct leases l;
	long long t;
	size_t lines = 1, i;
	int k;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	for (i = 0; i < size; i++)
		lines += text[i] == '\n';
	memset(&l, 0, sizeof(l));
	if (lease_parse(text, size, &l) == 0) {
		if (l.n < 0 || (size_t)l.n > lines)
			abort();
		for (k = 0; k < l.n; k++) {
			const unsigned char *m = l.v[k].mac;

			snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x",
			    m[0], m[1], m[2], m[3], m[4], m[5]);
			if (!appears(text, size, s))
				abort();
			snprintf(s, sizeof(s), "%u.%u.%u.%u",
			    l.v[k].addr >> 24, l.v[k].addr >> 16 & 255,
			    l.v[k].addr >> 8 & 255, l.v[k].addr & 255);
			if (!appears(text, size, s))
				abort();
		}
		lease_free(&l);
	}
	(void)lease_time_from_record(text, size, &t);
	/* the small parsers over a NUL-terminated prefix */
	if (size > 0 && size < sizeof(s)) {
		memcpy(s, data, size);
		s[size] = '\0';
		(void)lease_duration(s, &t);
		(void)lease_iso_time(s, &t);
	}
	free(text);
	return 0;
}
