/*
 * image_test.h - what only the tests reach of image.h: seams and helpers the
 * product does not call.  The tests and image.c include it; nothing
 * else does.
 */
#ifndef BOX_INCUS_IMAGE_TEST_H
#define BOX_INCUS_IMAGE_TEST_H

#include "incus/image.h"

void incus_image_alias_free(struct incus_image_alias *a);

/* Look up alias name: 0, -ENOENT when there is none, or -errno. */
int incus_image_alias_get(struct incus *c, const char *name,
    struct incus_image_alias *a, struct box_err *e);

#endif
