/*
 * guard.h - box's guard: watches the kernel and puts the contract back.
 *
 * The contract (host/stack/contract.h) holds only while nothing else
 * rewrites the ruleset; Docker, firewalld, ufw, a configuration manager or
 * an admin's `nft flush ruleset` do, at any time.  The guard is a
 * long-running host process (`box guard run`, its own process, supervised
 * the way box's resolver is: see guard_supervise) that
 *   - listens to the kernel's nf_tables and link notifications
 *     (net/nlmon.h: NFNLGRP_NFTABLES, RTNLGRP_LINK) and, every
 *     GUARD_PERIOD_MS, reads the state back anyway (what no notification
 *     reports: a sysctl written through /proc);
 *   - judges it against the contract by content (guard_judge: the rules
 *     as firewall show compares them, the bridge's ARP sysctls,
 *     route_localnet, every port's isolated flag);
 *   - puts back what differs: the rules in ONE netlink batch through the
 *     same code `box firewall apply` runs (fw_apply_more), with the saved
 *     egress part and the port bindings (as last collected from Incus) in
 *     that same batch; then the sysctls and the port flags;
 *   - fails closed: when that batch fails twice it takes the bridge down
 *     (no box then reaches anything, not even the gateway), says so, and
 *     retries with a back-off; it brings the bridge up again only once the
 *     contract reads back clean;
 *   - logs every heal (what differed, the window from the kernel's
 *     notification to the contract read back clean, what was put back, and
 *     the process the kernel named as the changer), at most GUARD_LOGCAP
 *     lines a minute, to the guard's log, which doctor and `firewall show`
 *     read back (guard_heals_read).
 *   - keeps box's other daemons running where systemd does not (the
 *     resolver: daemons.c), each restart logged as a "revive" event;
 * It never names a table that is not box's: the batch is the contract's.
 */
#ifndef BOX_GUARD_H
#define BOX_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "host/stack/firewall.h"
#include "host/stack/guard_unit.h"
#include "util/err.h"

#define GUARD_CLOSED	"/run/box-guard.closed"	/* the guard took br down */
#define GUARD_LOG	"/var/log/box-guard.log"	/* $BOX_GUARD_LOG */
#define GUARD_PERIOD_MS	3000	/* the read-back without a notification */
#define GUARD_REFRESH_MS 30000	/* the port bindings from Incus again */
#define GUARD_LOGCAP	20	/* log lines a minute at most */
#define GUARD_MAXPORT	256	/* ports of the bridge judged */
#define GUARD_FREQUENT	5	/* heals in GUARD_RECENT_S: a fight */
#define GUARD_RECENT_S	600

struct guard_opts {
	const char *br;		/* CONTRACT_BRIDGE */
	uint32_t net;		/* the /24; 0: the bridge's, read each time */
	/*
	 * Tests only (`box guard run --test-refuse FILE`, said in its help):
	 * while FILE exists, every heal's batch also carries a rule for a
	 * chain that does not exist, so the kernel itself refuses the batch
	 * (nothing in it applies) - the fail-closed path, for real.
	 */
	const char *refuse;
	int once;		/* judge and heal once, then return */
};

/* A port of the bridge as judged. */
struct guard_port {
	int ifindex;
	char name[16];
	int isolated;		/* 1, 0, -1 the kernel did not say */
};

/* What one look at the kernel found. */
struct guard_view {
	struct fw_status fw;	/* the rules, by content (fw_read) */
	int fw_read;		/* fw was read (0: the kernel refused) */
	int arp;		/* ARP sysctls: 1 in force, 0 not, -1 no br */
	char arp_why[200];
	int rln;		/* route_localnet: 1, 0, -1 no br */
	int rln_want;		/* 1 a VM door needs it, 0 not, -1 unknown */
	int br_index;		/* 0: no bridge */
	int br_up;
	size_t nports;
	struct guard_port ports[GUARD_MAXPORT];
};

enum {
	GD_RULES = 1,	/* tables, chains, rules of box's */
	GD_ARP = 2,	/* arp_ignore / arp_announce */
	GD_RLN = 4,	/* route_localnet */
	GD_PORTS = 8,	/* a port of br not isolated */
};

/*
 * Pure: which parts of v differ from the contract (GD_* bits, 0 when it
 * is in force) and, in what[0..cap), the differences in words.
 */
unsigned guard_judge(const struct guard_view *v, char *what, size_t cap);

/* Run the guard in the foreground until SIGTERM (or once). */
int guard_run(const struct guard_opts *o, struct box_err *e);

/*
 * The supervisor: its own pid in GUARD_PIDFILE, the guard in a child,
 * restarted when it dies with a back-off (0.5 s doubling to 30 s, back to
 * 0.5 s after a minute's run); SIGTERM ends both.  What a boot unit's
 * Restart= does where systemd runs, here where it does not.
 */
int guard_supervise(const struct guard_opts *o, struct box_err *e);

/* --- the log, as doctor and firewall show read it --------------------- */

#define GUARD_TEXT	240
struct guard_event {
	long long at;		/* epoch seconds */
	char kind[8];		/* heal, close, open, restart, fail, start,
				   revive (a daemon started again) */
	long window_ms;		/* heal: notification to clean; -1 unknown */
	char by[48];		/* the changer the kernel named, or "" */
	char what[GUARD_TEXT];	/* what differed / why */
	char back[GUARD_TEXT];	/* what was put back */
};

/* The log's path: $BOX_GUARD_LOG, else GUARD_LOG. */
const char *guard_log_path(void);

/*
 * Parse one log line (without its newline) of n bytes: 1 and *ev, 0 not a
 * guard record.  Pure and bounded (the fuzzer drives it).
 */
int guard_event_parse(const char *line, size_t n, struct guard_event *ev);

/*
 * The last max events of the log into ev (oldest first, *n of them) and,
 * in *recent, how many heals it holds since now - GUARD_RECENT_S.  An
 * absent log is 0 events.  Reads at most the log's last 64 KiB.
 */
int guard_events_read(struct guard_event *ev, size_t max, size_t *n,
    unsigned *recent, long long now, struct box_err *e);

#endif
