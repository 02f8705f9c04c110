/*
 * verify_test.h - what only the tests reach of verify.h: seams and helpers the
 * product does not call.  The tests and verify.c include it; nothing
 * else does.
 */
#ifndef BOX_BOX_VERIFY_VERIFY_TEST_H
#define BOX_BOX_VERIFY_VERIFY_TEST_H

#include "box/verify/verify.h"

/* The plan a box would run: how many probes, or -EBOX_PROTO (fuzzed). */
int verify_plan_count(const char *txt, size_t n);

#endif
