/*
 * server_test.h - what only the tests reach of server.h: seams and helpers the
 * product does not call.  The tests and server.c include it; nothing
 * else does.
 */
#ifndef BOX_INCUS_SERVER_TEST_H
#define BOX_INCUS_SERVER_TEST_H

#include "incus/server.h"

/* Does the daemon name API extension ext? */
int incus_server_has_ext(const struct incus_server *s, const char *ext);

#endif
