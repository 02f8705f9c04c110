/*
 * refusals.h - a box's refusal log as its owner reads it: what the kernel
 * refused by policy, newest first (egfw_log), and for the newest few a
 * name, shown only when the address's reverse name resolves back to it.
 * The reverse zone is the address owner's word, anyone's: a name that does
 * not resolve back is kept as "unverified", never as the name.
 */
#ifndef BOX_REFUSALS_H
#define BOX_REFUSALS_H

#include <stddef.h>
#include <stdint.h>

#include "box/egress/egress_fw.h"
#include "box/egress/ptr.h"
#include "incus/api.h"
#include "util/err.h"

#define REFUSALS_NAMED	16	/* of the newest, asked about by name */

struct refusal {
	struct egfw_refused r;
	char ptr[PTR_NAME_MAX];	/* what the reverse zone claims, or "" */
	int confirmed;		/* 1: ptr resolves forward to the address */
};

struct refusals {
	struct refusal *v;	/* newest first, n of them */
	size_t n;
	size_t total;		/* destinations the log holds */
	uint64_t refused;	/* packets its drop counter counted */
	long long since;	/* unix s the counter counts from, 0 unknown */
};

/*
 * Box's log (at most max destinations), the newest REFUSALS_NAMED of them
 * named through the name server the host's boxes use.  An open box has no
 * log: 0 with n = 0.  refusals_free() after, whatever it returned.
 */
int refusals_read(struct incus *c, const char *box, size_t max,
    struct refusals *out, struct box_err *e);
void refusals_free(struct refusals *out);

/*
 * How many destinations box's log holds (box list's marker): 0 when none
 * or the box has no log (open), -errno when the kernel's table cannot be
 * read (not root).  Names nothing, asks no name server.
 */
long refusals_count(const char *box);

#endif
