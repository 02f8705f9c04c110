/*
 * dnsq.h - a DNS client of one question: the A record of a name, asked
 * over UDP of one server, or of the first IPv4 nameserver resolv.conf
 * names.  doctor and migrate-host probe a box's DNS with it, verify its
 * by-name checks, and both read their captures with dnsq_reply.
 *
 * The reply is from outside: it is read with the strict reader of
 * net/dns.h (every read bounded by the message, compression pointers
 * strictly backward).  No libc resolver: its /etc/hosts, search list
 * and services are not what a probe of DNS means.
 */
#ifndef BOX_DNSQ_H
#define BOX_DNSQ_H

#include <stddef.h>
#include <stdint.h>

/* A plain label: [A-Za-z0-9][A-Za-z0-9-]*, at most 63. */
int dnsq_plain_label(const char *s);

/*
 * A DNS query for name's A record, id in its header, into buf[0..cap):
 * its length, or -EINVAL for a name that is not plain labels.
 */
int dnsq_build(const char *name, uint16_t id, unsigned char *buf,
    size_t cap);
/*
 * The reply buf[0..n) to that query: 1 and *a (host order) when it holds
 * an A record, 0 when it holds none (*rcode says why), -EBOX_PROTO when it
 * is malformed or not an answer to id.
 */
int dnsq_reply(const unsigned char *buf, size_t n, uint16_t id,
    uint32_t *a, int *rcode);

/* nameserver lines of a resolv.conf: how many were stored in ns. */
int dnsq_resolv_parse(const char *text, size_t n, char ns[][48], int max);

/*
 * Ask server:53 (IPv4, host order) for name over UDP, bounded by
 * timeout_ms: 1 answered with an address (*a), 0 answered without one,
 * -1 no usable answer (why says what happened).
 */
int dnsq_ask(uint32_t server, const char *name, int timeout_ms,
    uint32_t *a, char *why, size_t cap);
/* The same with the query's id chosen by the caller (a capture can then
 * tell its answer from any other). */
int dnsq_ask_id(uint32_t server, const char *name, uint16_t id,
    int timeout_ms, uint32_t *a, char *why, size_t cap);

/* name asked of the first IPv4 nameserver /etc/resolv.conf names, the
 * same verdicts as dnsq_ask */
int dnsq_resolve(const char *name, int timeout_ms, uint32_t *a,
    char *why, size_t cap);

#endif
