/*
 * doctor_guard.c - box's guard (host/guard/guard.h): that it runs, that it
 * has not closed the bridge, its last heals, and a WARN when heals are
 * frequent (another program fights box's firewall), naming the changer
 * the kernel named; the daemons it started again, and a WARN when that is
 * frequent (one keeps dying).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/doctor/doctor_int.h"
#include "host/guard/guard.h"
#include "host/stack/guard_unit.h"

#define S_GUARD		"guard"
#define GUARD_SHOWN	3	/* the last heals shown */
#define GUARD_REVIVES	3	/* daemons revived in GUARD_RECENT_S: WARN */
#define GUARD_EVENTS_SHOWN 32	/* the log's newest events read */

static void
last_heals(struct dh_ctx *h, const struct guard_event *ev, size_t n)
{
	size_t i, shown = 0;

	for (i = n; i > 0 && shown < GUARD_SHOWN; i--) {
		const struct guard_event *x = &ev[i - 1];

		if (strcmp(x->kind, "heal") != 0)
			continue;
		shown++;
		dr_add(h->r, "guard.heal", S_GUARD, DR_INFO, NULL, "healed %lld "
		    "s ago%s%s (window %ld ms): %s; put back: %s",
		    (long long)time(NULL) - x->at, x->by[0] ? " after " : "",
		    x->by, x->window_ms, x->what, x->back);
	}
}

/*
 * The daemons the guard started again (daemons.c): the last one said,
 * and a WARN when they keep dying (a crash loop the back-off only slows).
 */
static void
revived(struct dh_ctx *h, const struct guard_event *ev, size_t n)
{
	const struct guard_event *last = NULL;
	long long now = (long long)time(NULL);
	size_t i;
	unsigned recent = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].kind, "revive") != 0)
			continue;
		last = &ev[i];
		if (ev[i].at >= now - GUARD_RECENT_S)
			recent++;
	}
	if (last == NULL)
		return;
	dr_add(h->r, "guard.revive", S_GUARD, DR_INFO, NULL, "the guard "
	    "started a daemon of box's again %lld s ago: %s; %s",
	    now - last->at, last->what, last->back);
	if (recent >= GUARD_REVIVES)
		dr_add(h->r, "guard.revive.often", S_GUARD, DR_WARN, "read "
		    "its log; box setup-host starts it afresh", "the guard "
		    "started box's daemons again %u times in the last %d "
		    "min: one keeps dying (last: %s)", recent,
		    GUARD_RECENT_S / 60, last->what);
}

/* The changer most heals name, for the WARN. */
static const char *
culprit(const struct guard_event *ev, size_t n)
{
	size_t i;

	for (i = n; i > 0; i--)
		if (strcmp(ev[i - 1].kind, "heal") == 0 && ev[i - 1].by[0])
			return ev[i - 1].by;
	return "not said by the kernel";
}

void
dh_check_guard(struct dh_ctx *h)
{
	struct guard_event *ev;
	struct box_err e;
	unsigned recent;
	size_t n;
	int pid = guard_pid();

	err_clear(&e);
	if (access(GUARD_CLOSED, F_OK) == 0)
		dr_add(h->r, "guard.closed", S_GUARD, DR_FAIL, "box firewall "
		    "apply; then see " GUARD_LOG, "the guard took %s DOWN: it "
		    "could not put the contract back (the kernel refused "
		    "it); no box has network until the contract reads back "
		    "clean", DH_BR);
	if (pid > 0)
		dr_add(h->r, "guard.running", S_GUARD, DR_PASS, NULL, "box's "
		    "guard runs (pid %d): a change to the contract is put back "
		    "as the kernel announces it", pid);
	else if (guard_off())
		dr_add(h->r, "guard.running", S_GUARD, DR_INFO, NULL, "box's "
		    "guard does not run, as BOX_GUARD=0 asks: a flush of the "
		    "ruleset leaves the boxes open until the next firewall "
		    "apply");
	else
		dr_add(h->r, "guard.running", S_GUARD, DR_WARN, "box "
		    "setup-host", "box's guard does not run: a flush of the "
		    "ruleset leaves the boxes open until the next firewall "
		    "apply");
	if ((ev = calloc(GUARD_EVENTS_SHOWN, sizeof(*ev))) == NULL ||
	    guard_events_read(ev, GUARD_EVENTS_SHOWN, &n, &recent,
	    (long long)time(NULL), &e) < 0) {
		dr_add(h->r, "guard.log", S_GUARD, DR_WARN, NULL, "the guard's "
		    "log could not be read: %s", ev == NULL ? "out of memory" :
		    e.msg);
		free(ev);
		return;
	}
	if (recent >= GUARD_FREQUENT)
		dr_add(h->r, "guard.fight", S_GUARD, DR_WARN, "find the "
		    "program that rewrites the ruleset and keep it off "
		    "table inet box and table bridge box", "%u heals in the "
		    "last %d min: another program is fighting box's firewall "
		    "(last named: %s)", recent, GUARD_RECENT_S / 60,
		    culprit(ev, n));
	last_heals(h, ev, n);
	revived(h, ev, n);
	free(ev);
}
