/*
 * ip4text.h - an IPv4 address as text, written once for the whole tree:
 * box/, host/ and cmd/ all print addresses they hold as numbers (the
 * bridge's net, a gateway, a lease, a probe's target).
 *
 * Part of the model floor (src/model/): names and pure rules that box/ and
 * host/ both use, below both, depending on nothing but libc.
 */
#ifndef BOX_IP4TEXT_H
#define BOX_IP4TEXT_H

#include <stddef.h>
#include <stdint.h>

#define IP4_TEXT_MAX	16	/* "255.255.255.255" and its NUL */

/* a (host byte order) as a dotted quad into buf, truncated to cap. */
void ip4_fmt(uint32_t a, char *buf, size_t cap);

#endif
