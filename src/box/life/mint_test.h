/*
 * mint_test.h - what only the tests reach of mint.h: seams and helpers the
 * product does not call.  The tests and mint.c include it; nothing
 * else does.
 */
#ifndef BOX_BOX_LIFE_MINT_TEST_H
#define BOX_BOX_LIFE_MINT_TEST_H

#include "box/life/mint.h"

/* The create request's body of a fresh mint (for tests). */
int mint_body(const struct mint_plan *p, char **body, struct box_err *e);

#endif
