/*
 * cmd_test.h - what only the tests reach of cmd.h: seams and helpers the
 * product does not call.  The tests and cmd.c include it; nothing
 * else does.
 */
#ifndef BOX_CMD_CMD_TEST_H
#define BOX_CMD_CMD_TEST_H

#include "cmd/cmd.h"

/* "<box>|all [--force]", from the verb's rows; 0, or -ENOENT (no rows) */
int verb_synopsis(const struct verb *v, char *buf, size_t size);

#endif
