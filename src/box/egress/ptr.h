/*
 * ptr.h - asking the gateway's resolver which name an address was
 * answered for: a DNS PTR query, and its answer read strictly.  dnsmasq
 * answers PTR for a public address from its cache of forward answers, so
 * this names a refused destination when a box resolved it through the
 * gateway in the last few minutes (CONTRACT_DNS_CACHE_TTL); otherwise it
 * asks upstream, and whatever upstream says is a hint, nothing more.
 */
#ifndef BOX_PTR_H
#define BOX_PTR_H

#include <stddef.h>
#include <stdint.h>

#define PTR_NAME_MAX 254

/* The query for addr (host order) with id: its length, or -ENOSPC. */
int ptr_build(uint32_t addr, uint16_t id, unsigned char *buf, size_t cap);

/*
 * The answer buf[0..n) to it: 1 and name (lower-case, dotted, printable
 * LDH only) when it holds a PTR record, 0 when it holds none,
 * -EBOX_PROTO when malformed or not an answer to id.
 */
int ptr_reply(const unsigned char *buf, size_t n, uint16_t id, char *name,
    size_t cap);

/* Ask server:53 over UDP within timeout_ms: 1 and name, else 0. */
int ptr_ask(uint32_t server, uint32_t addr, int timeout_ms, char *name,
    size_t cap);

/* The A query for name (LDH, dotted, < 254) with id: its length, or
 * -ENOSPC / -EINVAL. */
int ptr_build_a(const char *name, uint16_t id, unsigned char *buf,
    size_t cap);

/*
 * The answer buf[0..n) to an A query with id: the A records of its answer
 * section (whatever owner: a CNAME chain ends in them), at most max, into
 * addr[] (host order) and ttl[] (seconds; may be NULL): their count, 0
 * for none (NXDOMAIN, an error, no A record), -EBOX_PROTO when malformed
 * or not an answer to id.
 */
int ptr_a_reply(const unsigned char *buf, size_t n, uint16_t id,
    uint32_t *addr, uint32_t *ttl, size_t max);

/* Ask server:53 for name's A records within timeout_ms: their count (0
 * when none or no answer). */
int ptr_ask_a(uint32_t server, const char *name, int timeout_ms,
    uint32_t *addr, uint32_t *ttl, size_t max);

/*
 * What a PTR answer may be shown as: ptr_ask() for addr, then name's A
 * records asked for again.  1: name resolves forward to addr (shown as
 * the name); 0 with name set: the reverse zone claims name but it does
 * not resolve to addr ("unverified: <name>"); 0 with name "": no PTR.
 */
int ptr_confirmed(uint32_t server, uint32_t addr, int timeout_ms,
    char *name, size_t cap);

#endif
