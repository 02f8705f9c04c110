/*
 * ip4text.c - an IPv4 address as text (see ip4text.h).
 */
#include "model/ip4text.h"

#include <stdio.h>

void
ip4_fmt(uint32_t a, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
	    (a >> 8) & 255, a & 255);
}
