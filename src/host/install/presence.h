/*
 * presence.h - does this host have boxes, and a box host stack?
 *
 * Asked before anything that must never happen under a user's boxes
 * (switching the default version, uninstalling) and by the installer
 * (through `box whereami --json`) to decide whether to flip `current` and
 * whether the host is fresh.
 *
 * "No daemon" (its socket absent, or refusing this user) counts as no
 * boxes: nothing this user could have minted runs without it.  A daemon
 * that answers but fails the question is "cannot tell", and callers that
 * guard against boxes treat that as a refusal, not as zero.
 */
#ifndef BOX_PRESENCE_H
#define BOX_PRESENCE_H

#include "util/err.h"

#define PRESENCE_MAX_NAMES 32
#define PRESENCE_TIMEOUT_MS 10000

enum { PRES_NO_DAEMON = 0, PRES_ANSWERED = 1, PRES_UNKNOWN = -1 };

struct presence {
	int daemon;		/* PRES_* */
	char why[256];		/* no daemon / unknown: what happened */
	int boxes;		/* tagged instances (every project we may see);
				   -1 unknown */
	int nnames;		/* names kept (at most PRESENCE_MAX_NAMES) */
	char names[PRESENCE_MAX_NAMES][128];	/* "name" or "project/name" */
	int stack;		/* 1 boxnet / box-net (or legacy) exist, 0 none,
				   -1 unknown */
	char stack_what[128];	/* which ones */
};

/* Never fails; what it could not learn is -1 / PRES_UNKNOWN. */
void presence_probe(struct presence *p, int want_stack);

/*
 * For guards: 0 when there are no boxes; otherwise fill e with a refusal
 * that names them (or says why it cannot tell) and return < 0.  act is
 * "switch the default version" and the like.
 */
int presence_refuse_boxes(const struct presence *p, const char *act,
    struct box_err *e);

#endif
