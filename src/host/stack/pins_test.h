/*
 * pins_test.h - what only the tests reach of pins.h: seams and helpers the
 * product does not call.  The tests and pins.c include it; nothing
 * else does.
 */
#ifndef BOX_HOST_STACK_PINS_TEST_H
#define BOX_HOST_STACK_PINS_TEST_H

#include "host/stack/pins.h"

/* The lease hook's text for box binary bin (dnsmasq's dhcp-script). */
int pins_hook_text(const char *bin, char *buf, size_t cap);

#endif
