/*
 * ip4_test.h - what only the tests reach of ip4.h: seams and helpers the
 * product does not call.  The tests and ip4.c include it; nothing
 * else does.
 */
#ifndef BOX_NET_IP4_TEST_H
#define BOX_NET_IP4_TEST_H

#include "net/ip4.h"

/*
 * Fold every message of a datagram (as recv() returns it) into p: the
 * number stored, or the first ip4_add() failure.  Control messages (DONE,
 * ERROR) end the walk.
 */
int ip4_feed(struct ip4_picture *p, const void *buf, size_t n);

#endif
