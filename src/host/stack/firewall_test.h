/*
 * firewall_test.h - what only the tests reach of firewall.h: seams and helpers the
 * product does not call.  The tests and firewall.c include it; nothing
 * else does.
 */
#ifndef BOX_HOST_STACK_FIREWALL_TEST_H
#define BOX_HOST_STACK_FIREWALL_TEST_H

#include "host/stack/firewall.h"

int fw_compare(const struct fw_kernel *k, const char *br, uint32_t net,
    int brname, struct fw_status *st, struct box_err *e);

#endif
