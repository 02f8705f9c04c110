/*
 * verify_steer.h - what in a box's network namespace could steer verify's
 * probes off the path the contract judges.
 *
 * The probes run in the host's process inside the box's network
 * namespace, but under the box's routing: its root can add a policy rule
 * that sends only the probes' packets (their uid is no box process's) to
 * a next hop whose MAC no port has, a route of its own, or a permanent
 * neighbour entry.  The probe's packet then leaves the box's port all
 * the same, nothing answers, and silence would read "dropped" while the
 * host's hole is open.  So a namespace holding anything but the plain
 * routing a box is given makes every probe whose verdict silence could
 * give "unjudged", naming what it holds.  The plain routing:
 *   rules      pref 0 local, 32766 main, 32767 default
 *   routes     table local: its local and broadcast routes; table main:
 *              the kernel's connected routes and a default route via the
 *              gateway
 *   neighbours none permanent
 * BOX_VERIFY_TRUST_ROUTES in verify's environment skips the check (a
 * test's control: it shows the trick fooling a verify without it).
 */
#ifndef BOX_VERIFY_STEER_H
#define BOX_VERIFY_STEER_H

#include <stddef.h>
#include <stdint.h>

#include "net/rtnl.h"

#define VSTEER_MAX	256	/* entries read from a namespace */

/*
 * Of v[0..n), the entries beyond the plain routing (gw: the gateway, host
 * order): their count, the first few described in why[0..cap) ("rule
 * pref 100 table 100, route 0.0.0.0/0 via 10.88.0.250 table 100, ...").
 * Pure.
 */
int vsteer_judge(const struct rtnl_steer *v, size_t n, uint32_t gw,
    char *why, size_t cap);

/*
 * Read the namespace of pid's network (a child enters it, within
 * timeout_ms) and judge it: the count of vsteer_judge, or -errno (e set).
 */
int vsteer_read(long long pid, uint32_t gw, char *why, size_t cap,
    int timeout_ms, struct box_err *e);

#endif
