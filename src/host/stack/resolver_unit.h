/*
 * resolver_unit.h - box's resolver as the host runs it: the boot unit setup-host
 * writes (box-resolver.service, running the root-owned copy the firewall's
 * unit runs too), started by systemd where it runs and, where it does not,
 * started detached by setup-host itself (its pid in RSVD_PIDFILE, its
 * output in RSVD_LOG); stopped and removed by teardown-host.  And the one
 * liveness probe setup-host and doctor share: the host's own query to the
 * gateway, which box's resolver (and nothing else) answers REFUSED with
 * an Extended DNS Error starting RSVD_HOST_TEXT.
 */
#ifndef BOX_RSVD_UNIT_H
#define BOX_RSVD_UNIT_H

#include <stdint.h>

#include "util/err.h"

#define RSVD_UNIT	"box-resolver.service"
#define RSVD_UNIT_PATH	"/etc/systemd/system/" RSVD_UNIT
#define RSVD_PIDFILE	"/run/box-resolver.pid"
#define RSVD_LOG	"/var/log/box-resolver.log"
#define RSVD_HOST_TEXT	"box resolver: answering"
/* What the boxes lose when dnsmasq serves their DNS (BOX_RESOLVER=dnsmasq,
 * the fallback): setup-host's warning and doctor's WARN say it. */
#define RSVD_LOST	"no view per box (an allowlisted box resolves any " \
	"name: DNS carries data out), one cache for all (a box reads its " \
	"siblings' lookups), no budget per box (one box's flood denies DNS " \
	"to all), CH answers (version.bind), no refusal log by name"

enum rsvd_mode { RSVD_SYSTEMD = 1, RSVD_DETACHED = 2 };

/*
 * Write the unit for gateway gw (host order) and the upstreams
 * up[0..nup) (IPv4 text; others are skipped, said in *skipped), then
 * (re)start it: through systemd, else detached (a running one of ours is
 * stopped first, so the arguments are always the current ones).  Waits
 * until it answers the probe (3 s).  *mode says which.
 */
int rsvd_install(uint32_t gw, const char *const *up, int nup, int *mode,
    int *skipped, struct box_err *e);

/* Stop it and remove the unit and the pid file; absent is fine. */
int rsvd_remove(struct box_err *e);

/*
 * Ask gw:53 from the host within timeout_ms: 1 when box's resolver
 * answered (REFUSED with RSVD_HOST_TEXT), 0 when something else answered
 * (what in why), -ETIMEDOUT when nothing did, or -errno.
 */
int rsvd_probe(uint32_t gw, int timeout_ms, char *why, size_t cap);

/*
 * The host's kick: after a policy changed, ask gw:53 for RSVD_KICK_NAME;
 * box's resolver answers once it has read the boxes again (their
 * policies with it), so what the change allows or takes away holds in
 * DNS when this returns.  1 read, 0 not box's resolver or it could not
 * read them (why), -ETIMEDOUT nobody answered within timeout_ms.
 */
#define RSVD_KICK_NAME	"kick.box.invalid"
int rsvd_kick(uint32_t gw, int timeout_ms, char *why, size_t cap);

/*
 * The host's view question (host/resolver/view.h): what box's resolver
 * would tell the box at host octet `octet` of gw's /24 when it asked for
 * name (A, IN), asked from the host (the gateway's own address), so the
 * box's own routing and responders play no part.  0 with *rcode, *ede
 * (-1: none) and text; -ETIMEDOUT nobody answered within timeout_ms;
 * -EINVAL name too long; -EPROTO an answer that is not the view's (a
 * resolver without view questions answers the host's probe).
 */
#define RSVD_VIEW_SUFFIX	"view.box.invalid"
int rsvd_view(uint32_t gw, unsigned octet, const char *name, int timeout_ms,
    int *rcode, int *ede, char *text, size_t cap);

/* The detached resolver's pid (its pid file, checked against its
 * command line), or 0. */
int rsvd_detached_pid(void);

#endif
