/* nestguard.c - host-stack verbs refuse inside a box (see nestguard.h). */
#include "host/install/nestguard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/install/nested.h"

const char nestguard_why[] =
    "a box host stack built inside a box puts a second bridge on the box's "
    "own uplink subnet and takes its gateway's address; the box then loses "
    "its network in bursts that look like flaky internet (the #80 outage)";

static int
allowed(void)
{
	const char *v = getenv("BOX_ALLOW_NESTED");

	return v != NULL && strcmp(v, "1") == 0;
}

int
nestguard_check(const char *verb, int mode, int *would_refuse,
    struct box_err *e)
{
	struct nested_facts *f = calloc(1, sizeof(*f));
	struct nested_report *r = calloc(1, sizeof(*r));
	int verdict;

	if (would_refuse != NULL)
		*would_refuse = 0;
	if (f == NULL || r == NULL) {
		free(f);
		free(r);
		return err_set(e, -ENOMEM, "out of memory");
	}
	nested_probe(f, NESTED_GUESTAPI);
	nested_classify(f, r);
	verdict = r->verdict;
	free(f);
	free(r);
	if (verdict == NESTED_INSTANCE) {
		fprintf(stderr, "box: note: this is an Incus instance, not a "
		    "box as far as can be seen (box whereami): %s goes ahead "
		    "only on a subnet nothing here claims\n", verb);
		return 0;
	}
	if (verdict != NESTED_BOX)
		return 0;
	if (allowed()) {
		fprintf(stderr, "box: inside a box, and BOX_ALLOW_NESTED=1: %s "
		    "goes ahead, on a subnet nothing here claims\n", verb);
		return 0;
	}
	if (mode == NG_PLAN) {
		if (would_refuse != NULL)
			*would_refuse = 1;
		fprintf(stderr, "box: inside a box: 'box %s' would be refused "
		    "(%s); BOX_ALLOW_NESTED=1 overrides\n", verb, nestguard_why);
		return 0;
	}
	err_set(e, -EPERM, "refusing to %s: this machine is inside a box (box "
	    "whereami says why), and %s. Nothing was changed", verb,
	    nestguard_why);
	err_fix(e, "run it on the host; to build a stack here anyway: "
	    "BOX_ALLOW_NESTED=1 box %s", verb);
	return -EPERM;
}
