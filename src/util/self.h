/*
 * self.h - this very binary's bytes, for the places that copy box
 * somewhere: the boot unit's root-owned copy, and the in-box runs of
 * doctor and migrate-host (pushed into a box through the files API).
 */
#ifndef BOX_SELF_H
#define BOX_SELF_H

#include <stddef.h>

#include "util/err.h"

#define SELF_MAX	(16u << 20)	/* box is ~0.4 MiB; refuse a monster */

/* /proc/self/exe read whole into *buf (malloc'd; the caller frees). */
int self_read(unsigned char **buf, size_t *n, struct box_err *e);

#endif
