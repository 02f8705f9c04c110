/*
 * rtnl_test.h - what only the tests reach of rtnl.h: seams and helpers the
 * product does not call.  The tests and rtnl.c include it; nothing
 * else does.
 */
#ifndef BOX_NET_RTNL_TEST_H
#define BOX_NET_RTNL_TEST_H

#include "net/rtnl.h"

/* Every link (ip link). */
int rtnl_links(struct nl_sock *s, struct rtnl_link *out, size_t max,
    struct box_err *e);

#endif
