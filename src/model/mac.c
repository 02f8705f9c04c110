/*
 * mac.c - MAC text and the static allocation line (see mac.h).
 */
#include "model/mac.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int
mac_parse(const char *s, unsigned char mac[6])
{
	unsigned v[6];
	int i, n = 0;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &v[0], &v[1], &v[2], &v[3],
	    &v[4], &v[5], &n) != 6 || n != 17 || s[n] != '\0')
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (unsigned char)v[i];
	return 0;
}

int
mac_static_parse(const char *text, size_t n, const unsigned char mac[6],
    uint32_t *addr)
{
	char line[128], m[18];
	unsigned a, b, c, d;
	unsigned char got[6];
	int k = 0;

	if (n >= sizeof(line))
		return -EINVAL;
	memcpy(line, text, n);
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%17[0-9a-fA-F:],%u.%u.%u.%u%n", m, &a, &b, &c, &d,
	    &k) != 5 || (line[k] != '\0' && line[k] != ',') || a > 255 ||
	    b > 255 || c > 255 || d > 255 || mac_parse(m, got) < 0)
		return -EINVAL;
	if (memcmp(got, mac, 6) != 0)
		return -ESRCH;
	*addr = a << 24 | b << 16 | c << 8 | d;
	return 0;
}
