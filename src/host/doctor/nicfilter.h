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

#endif
