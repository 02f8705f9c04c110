/*
 * import.h - the pipeline behind `box import`: an export back into a box
 * on this host's terms (its SHA-256 checked and its configs vetted while
 * it uploads, re-homed, vetted again as the daemon holds it, booted), with
 * its stages narrated on stderr and a half-imported box removed
 * (box/life/discard.h).  force replaces a box of that name, after a yes on a
 * terminal, only once the new one is up under a temporary name.
 */
#ifndef BOX_IMPORT_H
#define BOX_IMPORT_H

#include "box/box.h"
#include "util/err.h"

/* What was asked. */
struct box_import_req {
	const char *file;
	const char *name;	/* --name, or NULL: the one recorded inside */
	int force;		/* replace a box of that name (asks first) */
};

/* The verb's result. */
struct box_import_out {
	char name[BOX_NAME_MAX + 64];	/* the box, as imported */
};

int box_import(const struct box_import_req *q, struct box_import_out *res,
    struct box_err *e);

#endif
