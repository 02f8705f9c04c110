/*
 * edit_test.h - what only the tests reach of edit.h: seams and helpers the
 * product does not call.  The tests and edit.c include it; nothing
 * else does.
 */
#ifndef BOX_BOX_EDIT_TEST_H
#define BOX_BOX_EDIT_TEST_H

#include "box/edit.h"

/* Apply the edit to in (as read) and build its PUT body (for tests). */
int life_edit_body(struct incus_instance *in, struct life_edit *ed,
    char **body, struct box_err *e);

#endif
