/*
 * hostinfo.h - the picture of this machine that the subnet decision and
 * nested-box detection read: IPv4 addresses and the default route from the
 * kernel (rtnetlink), and whether the box bridge exists (from Incus, when
 * it answers).
 */
#ifndef BOX_HOSTINFO_H
#define BOX_HOSTINFO_H

#include "host/stack/subnet.h"
#include "incus/api.h"
#include "util/err.h"

/* c may be NULL (no daemon): the bridge is then looked up in the kernel. */
int host_read(struct incus *c, struct subnet_host *h, struct box_err *e);

/* The /24 of the kernel interface ifname's first IPv4 address, or 0. */
uint32_t host_iface_net(const struct subnet_host *h, const char *ifname);

#endif
