/*
 * guard_unit.h - box's guard as the host runs it (the guard itself:
 * host/guard/guard.h): the boot unit setup-host writes
 * (box-guard.service, running the root-owned boot copy of box), started
 * by systemd where it runs and, where it does not, started detached by
 * setup-host itself (its supervisor's pid in GUARD_PIDFILE, its output in
 * GUARD_OUT); stopped and removed by teardown-host before anything of the
 * stack goes (else it would put the firewall back).
 *
 * BOX_GUARD=0 at setup-host leaves it unstarted (said): the integration
 * suite's controls break the contract on purpose, and its own test starts
 * the guard itself.
 */
#ifndef BOX_GUARD_UNIT_H
#define BOX_GUARD_UNIT_H

#include "util/err.h"

#define GUARD_UNIT	"box-guard.service"
#define GUARD_UNIT_PATH	"/etc/systemd/system/" GUARD_UNIT
#define GUARD_PIDFILE	"/run/box-guard.pid"
#define GUARD_OUT	"/var/log/box-guard.out"	/* its stdout/stderr */

enum guard_mode { GUARD_OFF = 0, GUARD_SYSTEMD = 1, GUARD_DETACHED = 2 };

/*
 * Write the unit for the boot copy and (re)start the guard: through
 * systemd, else detached (a running one stopped first).  *mode says
 * which (GUARD_OFF: BOX_GUARD=0).
 */
int guard_install(int *mode, struct box_err *e);

/*
 * Stop a detached guard while setup-host restarts the daemons it keeps
 * running (where there is no systemd): else it sees the resolver gone
 * between the stop and the start and starts one of its own from the argv
 * file, which holds port 53 and outlives the pid file setup-host writes.
 * guard_install starts it again after.
 */
void guard_pause(void);

/* Stop it and remove the unit; absent is fine. */
int guard_remove(struct box_err *e);

/* 1 when BOX_GUARD=0 turns the guard off (setup-host starts none, and
 * doctor says so as a note, not a warning: it was asked for). */
int guard_off(void);

/* The supervisor's pid when one of ours runs (checked against its
 * command line), else 0. */
int guard_pid(void);

#endif
