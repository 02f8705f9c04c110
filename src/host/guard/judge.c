/*
 * judge.c - what differs from the contract in one look at the kernel (see
 * guard.h, guard_judge).  Pure: the unit tests give it views by hand.
 */
#include "host/guard/guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void
say(char *what, size_t cap, const char *fmt, ...)
{
	size_t at = strlen(what);
	va_list ap;

	if (at + 3 >= cap)
		return;
	if (at > 0) {
		memcpy(what + at, "; ", 3);
		at += 2;
	}
	va_start(ap, fmt);
	vsnprintf(what + at, cap - at, fmt, ap);
	va_end(ap);
}

static unsigned
judge_rules(const struct guard_view *v, char *what, size_t cap)
{
	int i;

	if (!v->fw_read) {
		say(what, cap, "the rules could not be read");
		return GD_RULES;
	}
	if (v->fw.ok)
		return 0;
	if (v->fw.ndiff == 0)
		say(what, cap, "the rules differ (%u of %u held)", v->fw.held,
		    v->fw.want);
	/* the first few name it; the count says the rest */
	for (i = 0; i < v->fw.ndiff && i < 3; i++)
		say(what, cap, "%s", v->fw.diff[i]);
	if (v->fw.ndiff > 3)
		say(what, cap, "and %d more differences", v->fw.ndiff - 3);
	return GD_RULES;
}

unsigned
guard_judge(const struct guard_view *v, char *what, size_t cap)
{
	unsigned bits;
	size_t i;

	if (cap > 0)
		what[0] = '\0';
	bits = judge_rules(v, what, cap);
	if (v->arp == 0) {
		say(what, cap, "ARP sysctls: %s", v->arp_why);
		bits |= GD_ARP;
	}
	/* on only while a VM door needs it; unknown wanted: off is safe */
	if (v->rln == 1 && v->rln_want != 1) {
		say(what, cap, "route_localnet is on on the bridge with no "
		    "VM door needing it");
		bits |= GD_RLN;
	} else if (v->rln == 0 && v->rln_want == 1) {
		bits |= GD_RLN;	/* a door of the operator's: no risk, said */
		say(what, cap, "route_localnet is off though a VM door needs "
		    "it");
	}
	for (i = 0; i < v->nports && i < GUARD_MAXPORT; i++)
		if (v->ports[i].isolated == 0) {
			say(what, cap, "port %s is NOT isolated",
			    v->ports[i].name);
			bits |= GD_PORTS;
		}
	return bits;
}
