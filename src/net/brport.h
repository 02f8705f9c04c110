/*
 * brport.h - one bridge-port write: the kernel's isolated flag (what
 * `bridge link set dev <port> isolated on` does), over rtnetlink.
 *
 * Why a writer exists: `box doctor --fix` puts back the flag a box's port
 * lost, so two boxes stop reaching each other now, not at their next
 * restart.  Everything else about bridge ports is read with rtnl.h.
 * And a link's up flag (`ip link set dev X down`): box's guard takes the
 * bridge down when it cannot put the contract back (fail closed).
 */
#ifndef BOX_BRPORT_H
#define BOX_BRPORT_H

#include <stddef.h>

#include "net/nl.h"
#include "util/err.h"

/*
 * The RTM_SETLINK request (family AF_BRIDGE, IFLA_PROTINFO nest holding
 * IFLA_BRPORT_ISOLATED) for ifindex into buf[0..cap); its length, or
 * -ENOSPC.  Pure: tests compare it with what iproute2 sends.
 */
int brport_isolated_msg(void *buf, size_t cap, int ifindex, int on,
    uint32_t seq);

/* Set the flag on port ifindex (name is for the message only). */
int brport_set_isolated(struct nl_sock *s, int ifindex, const char *name,
    int on, struct box_err *e);

/* RTM_NEWLINK changing only IFF_UP of ifindex: its length, or -ENOSPC. */
int link_up_msg(void *buf, size_t cap, int ifindex, int up, uint32_t seq);

/* Set link ifindex up (1) or down (0); name is for the message only. */
int link_set_up(struct nl_sock *s, int ifindex, const char *name, int up,
    struct box_err *e);

#endif
