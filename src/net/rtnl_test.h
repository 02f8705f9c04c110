/*
 * rtnl_test.h - what only the tests reach of rtnl.h: seams and helpers the
 * product does not call.  The tests and rtnl.c include it; nothing
 * else does.
 */
#ifndef BOX_NET_RTNL_TEST_H
#define BOX_NET_RTNL_TEST_H

#include "net/rtnl.h"

/* rtnl_links() is the product's again (box's guard reads the bridge's
 * state with it): rtnl.h. */

#endif
