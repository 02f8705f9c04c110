/*
 * transport_test.h - what only the tests reach of transport.h: seams and helpers the
 * product does not call.  The tests and transport.c include it; nothing
 * else does.
 */
#ifndef BOX_INCUS_TRANSPORT_TEST_H
#define BOX_INCUS_TRANSPORT_TEST_H

#include "incus/transport.h"

void mem_transport_init(struct mem_transport *m, const void *in, size_t n,
    void *out, size_t out_cap);

#endif
