/*
 * nestguard.h - one rule for every verb that would install or change a
 * host stack (setup-host, teardown-host, firewall apply, uninstall
 * --purge-host): inside a box they refuse, exactly like the installer,
 * unless BOX_ALLOW_NESTED=1 says to go ahead.  The verdict is whereami's
 * (host/install/nested.h); a network hint alone never makes a host a box.
 */
#ifndef BOX_NESTGUARD_H
#define BOX_NESTGUARD_H

#include "util/err.h"

enum nestguard_mode {
	NG_CHANGE = 0,	/* the verb is about to change the host */
	NG_PLAN,	/* a dry run: say it would be refused, change nothing */
};

/*
 * 0 to go ahead; -EPERM (exit 1) with the installer's explanation and the
 * one override when inside a box.  In NG_PLAN mode a refusal is not an
 * error: *would_refuse is set and a note goes to stderr.  verb names the
 * command for the messages ("setup-host").
 */
int nestguard_check(const char *verb, int mode, int *would_refuse,
    struct box_err *e);

/* The sentence every refusal shares (the installer prints the same). */
extern const char nestguard_why[];

#endif
