/*
 * nicfilter.h - a box's NIC filter (Incus's per-port chains in table
 * bridge incus), read back from the kernel and checked by content.  See
 * nicfilter.c for the rules and why they are the ones that matter.
 */
#ifndef BOX_NICFILTER_H
#define BOX_NICFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "net/nft.h"
#include "util/err.h"

struct nicf;

/* Read table bridge incus once (heap; nicf_free()).  Needs CAP_NET_ADMIN. */
int nicf_read(struct nicf **f, struct box_err *e);
void nicf_free(struct nicf *f);

/*
 * Does the kernel filter box inst's port host (its veth) to mac and addr
 * (host order)?  1 yes; 0 no, with why naming the missing or weakening
 * rule; < 0 an error.
 */
int nicf_check(const struct nicf *f, const char *inst, const char *host,
    const unsigned char mac[6], uint32_t addr, char *why, size_t cap);

/* "aa:bb:cc:dd:ee:ff" -> 6 bytes; -EINVAL otherwise. */
int nicf_parse_mac(const char *s, unsigned char mac[6]);

/*
 * A dnsmasq static allocation line as Incus writes it ("MAC,IP" and
 * optionally ",name"): 0 and *addr when its MAC is mac, -ESRCH when it is
 * another MAC's, -EINVAL when it is not such a line.
 */
int nicf_parse_static(const char *text, size_t n, const unsigned char mac[6],
    uint32_t *addr);

#endif
