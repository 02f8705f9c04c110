/*
 * verify.h - `box verify <box>`: the isolation contract probed live from
 * inside one box, every verdict observed.
 *
 * The host side (verify.c) works out the targets (the box's policy, the
 * gateway, every host address over rtnetlink, the host's LAN, the siblings'
 * leased addresses) and runs the plan (verify_probe.c): for a container in
 * a child of its own that entered the box's network namespace (net/netns.h:
 * nothing put into the box, no box process involved); for a VM in the
 * guest, as `verify --inside` with the plan in BOX_VERIFY_PLAN, by the one
 * in-box runner (life_run_inside: the guest's word).  Meanwhile it listens
 * on the box's port and the bridge (net/sniff.h): what left the box and
 * what went into it is the host's to see.  The probes only send and
 * report what came back: connected, refused (a RST: the packet arrived),
 * dropped (silence), reply, none.
 */
#ifndef BOX_VERIFY_H
#define BOX_VERIFY_H

#include <stddef.h>
#include <sys/types.h>

#include "incus/api.h"
#include "util/err.h"

#define VERIFY_NIC	"eth0"	/* the box's NIC on its bridge */
#define VERIFY_ID	16
#define VERIFY_VERDICT	200	/* one probe's "<verdict> <detail>" */
#define VERIFY_REPORT_MAX (64u << 10)

/* In a VM: run the plan in BOX_VERIFY_PLAN, report by life_report_write. */
int verify_inside_main(struct box_err *e);

/*
 * Run the plan plan[0..n) here (in this process's network namespace: the
 * host's own process that entered a container's, or the guest of a VM)
 * and write the report into out[0..cap): its length, -EBOX_PROTO when it is
 * not a plan, -ENOSPC when the report does not fit.
 */
ssize_t verify_run(const char *plan, size_t n, char *out, size_t cap);

/*
 * The plan (host -> box) and the report (box -> host) are our own line
 * records (util/lines.h), not JSON: neither is Incus's and neither nests.
 *   verify-plan 1            verify-report 1
 *   t <ms>                   r <id>
 *   p <id>   (a new probe)   v <verdict> <detail>
 *   k|a|s|n|tok <text>, port <n>   (the probe's fields)
 */
#define VERIFY_PLAN_MAGIC	"verify-plan"
#define VERIFY_REPORT_MAGIC	"verify-report"
#define VERIFY_FORMAT		"1"

/*
 * The report's verdicts, each handed to fn(arg, id, verdict) (the box's
 * word: sanitise before showing it).  0, or -EBOX_PROTO when it is not a
 * report.
 */
int verify_report_parse(const char *txt, size_t n,
    void (*fn)(void *arg, const char *id, const char *verdict), void *arg);

/*
 * On the host: probe box name; 0 every clause held, 1 a breach.  names
 * is the name server this host asks for the boxes' names (host order;
 * box/bridge.h's bridge_name_server), 0 none: with box's resolver the view
 * hides a refused name from the box, so its address, asked there, is
 * probed too.
 */
int verify_box(struct incus *c, const char *name, uint32_t names, int json,
    struct box_err *e);

/*
 * The box's egress policy, read from its config (user.box.egress): absent
 * or "open" -> 0; "allow:<pattern>,..." -> 1 with the list copied into
 * allow; anything egress_parse (box/egress/egress.c) refuses -> -EINVAL.
 */
int verify_policy_read(const char *value, char *allow, size_t cap);

/*
 * Pure line readers of the box's /proc/net files, for the IPv6 clause
 * (what the box's own kernel says it has): 1 and a description when the
 * line is a global address (if_inet6) / a route beyond the link
 * (ipv6_route), 0 when not, -1 when malformed.
 */
int verify_v6_addr_line(const char *line, char *desc, size_t cap);
int verify_v6_route_line(const char *line, char *desc, size_t cap);

#endif
