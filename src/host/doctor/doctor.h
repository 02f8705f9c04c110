/*
 * doctor.h - is the isolation contract in force here?  Judged from ground
 * truth (what the kernel, the process table and the daemon hold), never
 * from what a config file says should hold: the original's contract was
 * false for months while every config said boxes could not reach each
 * other.
 *
 * Two places to stand:
 *   on a host     the box-net stack, layer by layer: the kernel's isolated
 *                 flag on every port of the bridge, our nft tables as the
 *                 kernel holds them, a dnsmasq process really serving the
 *                 bridge and what it forwards to, the bridge's keys, the
 *                 ACL against the gateway the kernel holds, the profile,
 *                 each box's own NIC; then, inside every running box, the
 *                 checks below (this binary is pushed in, run, removed).
 *   inside a box  (an agent asking) what the guest can see: where it is,
 *                 the nested-box signature on its own network, its lease,
 *                 routing by address and DNS by name with the split
 *                 diagnosis, no global IPv6, the gateway dropping it.
 *                 Never a host-level fix: building a stack here is the
 *                 outage the signature describes.
 *
 * Every check yields one finding: PASS, WARN (not verified, or a weaker
 * form), FAIL (the contract does not hold, with the fix), or INFO (a fact,
 * not a verdict).  A layer that could not be read is never a PASS.
 *
 * The parsers below are pure and bounded: their input may come from
 * inside a box, which is not trusted.
 */
#ifndef BOX_DOCTOR_H
#define BOX_DOCTOR_H

#include <stddef.h>
#include <stdint.h>

#include "incus/api.h"
#include "util/err.h"

enum dr_status { DR_PASS = 0, DR_INFO, DR_WARN, DR_FAIL };

/*
 * Findings kept: DR_MAX in all, DR_BOX_MAX for any one box (a subject
 * "box <name>"), so one box's findings cannot push another's out.  Past
 * either cap a FAIL or a WARN takes the place of the latest lesser finding
 * (of that box, or of any subject), so no FAIL is lost while a PASS is
 * kept; what cannot be kept is counted in dropped.
 */
#define DR_MAX		1024
#define DR_BOX_MAX	48
#define DR_MAX_FIXED	16

struct dr_finding {
	char id[48];		/* "bridge.dns_mode", "box.routing" */
	char subject[80];	/* "boxnet", "box web", "this machine" */
	int status;		/* enum dr_status */
	int fixable;		/* --fix (or --pin-dns) can repair it */
	char text[400];
	char fix[256];		/* what to run, "" when none */
};

enum dr_where { DR_HOST = 0, DR_INSIDE };

struct dr_report {
	int where;		/* enum dr_where */
	char where_text[160];	/* "on a host", "inside a box (...)" */
	int fresh;		/* host: no box stack here yet */
	int n, dropped;
	int last_kept;		/* the latest dr_add's finding is r->f[n-1] */
	int fails, warns;
	struct dr_finding *f;	/* heap, DR_MAX */
	int nfixed;
	char fixed[DR_MAX_FIXED][200];	/* what --fix did */
};

int dr_report_init(struct dr_report *r);
void dr_report_reset(struct dr_report *r);	/* keeps the array */
void dr_report_free(struct dr_report *r);

void dr_add(struct dr_report *r, const char *id, const char *subject,
    int status, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The last finding added (to mark it fixable), or NULL. */
struct dr_finding *dr_last(struct dr_report *r);
void dr_note_fixed(struct dr_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

const char *dr_status_name(int s);	/* "PASS" ... */
/* "pass" ... -> enum, or -1. */
int dr_status_parse(const char *s);

/* The report as JSON (*out malloc'd). */
int dr_report_json(const struct dr_report *r, char **out);

/*
 * The report as the line record an in-box doctor hands the host (our own
 * transport, util/lines.h; --json stays the users' format): *out
 * malloc'd, *len its length.  -ENOSPC when it would not fit what the host
 * reads back.
 */
int dr_report_lines(const struct dr_report *r, char **out, size_t *len);

/*
 * Merge the record a box wrote (dr_report_lines's shape) into r, every
 * finding under subject, ids prefixed "box.".  Text is sanitised (it
 * comes from inside the box).  Judged whole before anything is merged:
 * -EBOX_PROTO, and r untouched, when it is not such a record, has a line
 * that is not ours, or stops before its closing count.  *where gets the
 * box's own view ("inside", "host").  Pure and bounded.
 */
int dr_merge_box(struct dr_report *r, const char *subject, const char *txt,
    size_t n, char *where, size_t wcap, struct box_err *e);

/* ---------------------------------------------------- the network picture */

#define DR_NET_MAX 64

/* What the nested-box signature is judged from (addresses host order). */
struct dr_net {
	int has_gw;
	uint32_t gw;
	char gw_dev[16];
	int nlocal;
	struct {
		uint32_t a;
		uint8_t plen;
		char dev[16];
	} local[DR_NET_MAX];
	int nconn;			/* connected (proto kernel) routes */
	struct {
		uint32_t net;
		uint8_t plen;
		char dev[16];
	} conn[DR_NET_MAX];
};

#define DR_SIG_GW_LOCAL	0x1	/* the default gateway is our own address */
#define DR_SIG_DUP_ROUTE 0x2	/* the uplink subnet is on two devices */

/*
 * The nested-box signature (the #80 outage: a bridge built inside a box
 * takes the box's own gateway address and a second route to its uplink
 * subnet).  Returns 0 when clean, else DR_SIG_* bits, and one sentence in
 * why either way.
 */
int dr_net_judge(const struct dr_net *n, char *why, size_t cap);

/* This machine's picture, from rtnetlink. */
int dr_net_read(struct dr_net *n, struct box_err *e);

/* --------------------------------------------------------------- parsers */

/* What a dnsmasq's command line says about it. */
struct dr_dnsmasq {
	char conf[256];		/* --conf-file= (raw.dnsmasq lives there) */
	char listen[64];	/* --listen-address= */
	char leases[256];	/* --dhcp-leasefile= */
};

/*
 * Is the NUL-separated argv buf[0..n) (a /proc/<pid>/cmdline) a dnsmasq
 * serving bridge br (--interface=<br>)?  1 yes (and d filled), 0 no.
 */
int dr_dnsmasq_argv(const char *buf, size_t n, const char *br,
    struct dr_dnsmasq *d);

#define DR_DNS_MAX 8

/* A dnsmasq configuration as box cares about it. */
struct dr_dns {
	int no_resolv;
	int nserver;
	char server[DR_DNS_MAX][64];	/* the values of server= lines */
	int more;			/* servers beyond DR_DNS_MAX */
	int dhcp_dns;			/* a dhcp-option hands out DNS */
	int ignore_names;		/* dhcp-ignore-names */
	int domain_needed;		/* plain names never go upstream */
};

/* Parse raw.dnsmasq (or dnsmasq's conf file) text. */
void dr_dns_parse(const char *text, size_t n, struct dr_dns *d);

/*
 * The hostnames boxes sent in DHCP, from a dnsmasq lease file ("expiry mac
 * ip name clientid" lines; "*" when none): plain names (a letter or digit,
 * then letters, digits and hyphens, at most 63) into names; how many.  A
 * name is the box's choice: anything else is skipped.
 */
int dr_leases_names(const char *text, size_t n, char names[][64], int max);

/*
 * /proc/net/if_inet6: 1 when an interface other than lo holds a global
 * address (scope 0x00), its name in dev; 0 otherwise.
 */
int dr_inet6_global(const char *text, size_t n, char *dev, size_t cap);

/* ---------------------------------------------------------------- probes */

enum dr_verdict { DR_CONNECTED = 0, DR_REFUSED, DR_DROPPED, DR_ERROR };

/*
 * A TCP connect to addr:port (IPv4, host order) bounded by timeout_ms.
 * connected / refused (a RST came back: the packet arrived) / dropped
 * (silence, or no route: nothing came back) / error (we could not even
 * try).  why gets the detail.
 */
int dr_tcp_probe(uint32_t addr, int port, int timeout_ms, char *why,
    size_t cap);
const char *dr_verdict_name(int v);

/* ---------------------------------------------------------------- running */

struct dr_opts {
	int fix;		/* repair what is safely convergent */
	int pin_dns;		/* re-pin the bridge's upstreams from BOX_DNS */
	int probe_boxes;	/* run the in-box checks in running boxes */
	char probe_addr[64];	/* a public address:port (routing) */
	char probe_name[128];	/* a public name (DNS) */
	int rejoin;		/* a cluster member that holds the contract
				   again rejoins group box (--fix) */
	int members;		/* --members: a probe box on every member */
	char *const *boxes;	/* only these boxes (NULL: every box) */
	int nboxes;
};

/* BOX_DOCTOR_PROBE_ADDR / _NAME, or the defaults. */
void dr_opts_defaults(struct dr_opts *o);

/* Checks run on a host (everything but a usage error is a finding). */
int dr_host(struct dr_report *r, const struct dr_opts *o, struct box_err *e);
/* What --fix / --pin-dns change; the caller re-checks afterwards. */
int dr_host_fix(struct dr_report *r, const struct dr_opts *o,
    struct box_err *e);

/* Checks run inside a box (or any instance). */
void dr_inside(struct dr_report *r, const struct dr_opts *o);

/*
 * Inside, run by a host (life_run_inside): the report (dr_report_lines)
 * written whole to the file the host named (life_report_write), so the
 * host reads either all of it or nothing, never a short or empty copy.
 */
int dr_report_save(const struct dr_report *r, struct box_err *e);

/*
 * Host side, a VM alone (no kernel shared with this host): the in-box
 * checks run in the guest by the one in-box runner (life_run_inside),
 * their report merged under "box <name>", said to be the guest's word.
 */
void dr_box_probe_vm(struct incus *c, const char *name, struct dr_report *r,
    const struct dr_opts *o);

/*
 * A container: its network probed by this host's own process in a child
 * that entered the namespace of its init (net/netns.h) - nothing pushed
 * in, no box process involved.  Routing, DNS (asked of the gateway) and
 * the host's drop are judged from what the box's port (veth) carried;
 * what only the box's own state says (its addresses, routes, IPv6, its
 * resolv.conf) is labelled "the box says".
 */
struct dr_box_target {
	const char *name;
	long long pid;		/* its init, on this host */
	const char *veth;	/* the host side of its eth0 */
	uint32_t self, gw;	/* its pinned lease, the gateway (host order) */
};
void dr_box_probe_ns(const struct dr_box_target *bt, struct dr_report *r,
    const struct dr_opts *o);

#endif
