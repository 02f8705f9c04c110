/*
 * neigh.h - forget one IPv4 neighbour entry (what `ip neigh del ADDR dev
 * DEV` does), over rtnetlink.
 *
 * Why a writer exists: when `box verify` sees a box's forged ARP for a
 * sibling's address get past the port, the host's entry for that sibling
 * may now point at the wrong MAC; verify forgets it, so the host asks
 * again and the sibling is reached at its own MAC, not at the next expiry.
 */
#ifndef BOX_NEIGH_H
#define BOX_NEIGH_H

#include <stddef.h>
#include <stdint.h>

#include "net/nl.h"
#include "util/err.h"

/*
 * The RTM_DELNEIGH request for addr (host order) on ifindex into
 * buf[0..cap); its length, or -ENOSPC.  Pure.
 */
int neigh_del_msg(void *buf, size_t cap, int ifindex, uint32_t addr,
    uint32_t seq);

/* Forget the entry; -ENOENT when there was none. */
int neigh_del(struct nl_sock *s, int ifindex, uint32_t addr,
    struct box_err *e);

#endif
