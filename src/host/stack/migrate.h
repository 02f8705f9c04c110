/*
 * migrate.h - re-homing legacy (pre-0.4, "claudebox") boxes onto the
 * hardened stack, and retiring the legacy stack once none is left.
 *
 * A legacy box carries user.claudebox=1 and not user.box=1.  Re-homing
 * is done in an order where every step leaves a box that is valid under
 * one tag or the other, never an orphan:
 *
 *   stamp    user.box=1 and the stamps box reads (template, user, schema,
 *            mode, origin=migrate, when, by which box): from here the box
 *            carries BOTH tags, and is a box to every verb whatever fails
 *   stop     if it runs (gracefully first)
 *   move     profiles = [box-net] only; its own NIC devices and legacy
 *            doors (bound to the old bridge's addresses) left behind; the
 *            limits and nesting its old profile gave it kept as its own
 *            keys.  Its MAC (volatile.eth0.hwaddr) is KEPT: the box is
 *            not a copy, so no other NIC can hold it, and it is its
 *            network identity (the lease Incus pins and the NIC filter
 *            binds are per MAC; a guest's network config may match on it)
 *   shape    the daemon's record judged with the shape check doctor uses
 *            too (host/stack/shape.h)
 *   start
 *   verify   from inside: a container by this host's own process in its
 *            network namespace (nothing put into the box), a VM by this
 *            binary run in the guest by the one in-box runner (nothing
 *            needed from the guest's userland; the guest's word): an IPv4
 *            lease in the bridge's /24, chosen by subnet, never by
 *            interface name; the
 *            gateway's DNS answering the box (its own NXDOMAIN for a
 *            plain name, which dnsmasq never forwards: this proves the
 *            box reaches the gateway's resolver whatever the upstream
 *            does); and a public name (BOX_MIGRATE_PROBE_NAME) asked of
 *            the gateway, whose answer is reported, not required: it
 *            depends on the host's upstream resolvers, not on the box
 *   untag    only now user.claudebox is removed
 *
 * Any failure after the stamp rolls back: stopped, its old profiles and
 * devices put back (its own keys as they were, both tags kept), started
 * again if it was running.  Running migrate-host again resumes.
 *
 * Retiring refuses while any instance still carries user.claudebox=1 (a
 * box with both tags is one whose re-homing did not finish) or still uses
 * the legacy profile or bridge.  A box re-homed here has lost the legacy
 * tag and is not counted (the original counted it, and its retire could
 * never succeed).
 */
#ifndef BOX_MIGRATE_H
#define BOX_MIGRATE_H

#include <stddef.h>
#include <stdint.h>

#include "box/box.h"
#include "box/life/mint.h"
#include "incus/api.h"
#include "incus/json.h"
#include "util/err.h"

/* What a legacy box was minted as (checklist §5.1). */
#define MIGRATE_TEMPLATE	"claude-box"
#define MIGRATE_USER		"claude"
/* A plain name: dnsmasq (domain-needed) answers it itself, never upstream. */
#define MIGRATE_GW_NAME		"box-migrate-probe"
#define MIGRATE_TIMEOUT_S	120

enum migrate_kind {
	MIG_NOT_BOX = 0,	/* neither tag */
	MIG_LEGACY,		/* user.claudebox=1 only */
	MIG_HALFWAY,		/* both tags: a re-homing that did not finish */
	MIG_DONE,		/* user.box=1 only */
};

/* The readers, on a typed instance (incus/instance.h). */
struct incus_instance;
struct incus_kvs;
int migrate_kind_of(const struct incus_instance *in);
/* 1 when it uses the legacy profile or has a NIC on the legacy bridge. */
int migrate_uses_legacy_of(const struct incus_instance *in);
/*
 * The instance's own devices that cannot follow it onto the stack and
 * are not box's to drop (anything but NICs, proxies and the root disk):
 * their names, comma-separated, into buf; how many.
 */
int migrate_foreign_devices_of(const struct incus_instance *in, char *buf,
    size_t cap);
/* life_edit's drop_device: its own NICs and doors (the old bridge's). */
int migrate_drop_device(const char *name, const struct incus_kvs *dev);
/*
 * The stamps for in (only those it lacks; user.box always), the time
 * now.  Never user.box.created or user.box.version: box did not mint it.
 */
int migrate_stamps_of(const struct incus_instance *in, const char *now,
    struct mint_kv *kv);
/*
 * What its old profiles gave it that box-net does not, kept as its own
 * keys: limits.cpu, limits.memory, and security.nesting=true on a
 * container.  Only keys it does not set itself.
 */
int migrate_carry_of(const struct incus_instance *in, struct mint_kv *kv);
/*
 * The record that puts a box back: cur's config (fresh volatile keys,
 * both tags) less the carried keys, orig's devices and profiles.  0 with
 * out filled (incus_instance_free), or -ENOMEM.
 */
int migrate_rollback_of(const struct incus_instance *cur,
    const struct incus_instance *orig, const struct mint_kv *carried,
    struct incus_instance *out);

/* --- the in-box probe ----------------------------------------------------- */

#define MIGRATE_MAX_ADDRS 8

struct migrate_probe {
	int naddr;
	uint32_t addr[MIGRATE_MAX_ADDRS];	/* host order */
	unsigned plen[MIGRATE_MAX_ADDRS];
	char dev[MIGRATE_MAX_ADDRS][16];
	int gw;			/* 1: the gateway answered its own name */
	char gw_why[64];
	int name;		/* 1 resolved, 0 answered without, -1 none */
	uint32_t name_a;
	char name_why[64];
	int user;		/* the legacy user exists in /etc/passwd */
};

/* Does the passwd text[0..n) hold user?  Pure and bounded. */
int migrate_has_user(const char *text, size_t n, const char *user);

/*
 * In the box's network (gw host order; name: the public name): its
 * addresses and the gateway's answers; not the user.
 */
void migrate_probe_gather(struct migrate_probe *p, uint32_t gw,
    const char *name);
/* Its report, a line record (util/lines.h); *out is malloc'd. */
int migrate_probe_print(const struct migrate_probe *p, char **out);
/* The box's report (hostile: bounded, checked). */
int migrate_probe_parse(const char *txt, size_t n, struct migrate_probe *p,
    struct box_err *e);
/* Its address inside net/24 (host order), or 0. */
uint32_t migrate_probe_lease(const struct migrate_probe *p, uint32_t net);

/* The hidden in-guest entry (a VM): the report for BOX_MIGRATE_GATEWAY. */
int migrate_probe_main(struct box_err *e);

/* BOX_MIGRATE_PROBE_NAME, else BOX_DOCTOR_PROBE_NAME, else deb.debian.org. */
const char *migrate_probe_name(void);

/*
 * From the host: probe the running box (a container in its network
 * namespace, a VM in the guest) until it holds a lease in net/24 (host
 * order) and the gateway's DNS answers it, or the deadline (clock_ms());
 * p gets the last report.
 */
int migrate_verify_inside(struct incus *c, const char *name, uint32_t net,
    long long deadline, struct migrate_probe *p, struct box_err *e);

/* --- acting --------------------------------------------------------------- */

enum migrate_outcome {
	MIG_R_DONE = 0,		/* re-homed and verified */
	MIG_R_SKIPPED,		/* already on the stack */
	MIG_R_ROLLED_BACK,	/* failed; back where it was, both tags */
	MIG_R_STRANDED,		/* failed, and so did the rollback */
	MIG_R_REFUSED,		/* nothing was changed */
};

struct migrate_result {
	int outcome;
	const char *stage;	/* where it failed */
	char addr[16];		/* its lease on the stack */
	char note[200];		/* what the user should know besides */
};

/*
 * The hardened stack a box is re-homed onto: the box-net profile and the
 * boxnet bridge with its /24 (*net, may be NULL).  Refused with the fix
 * (box setup-host) when either is missing.
 */
int migrate_require_stack(struct incus *c, uint32_t *net, struct box_err *e);

/*
 * Re-home one box (see above).  0 when done or skipped; on failure e
 * says what failed and res->outcome whether it was put back.
 */
int migrate_box(struct incus *c, const char *name, struct migrate_result *res,
    struct box_err *e);

/*
 * Names of the instances carrying user.claudebox=1 (legacy or halfway)
 * that start with prefix ("" or NULL: all), sorted, into names; *n how
 * many (at most max; *more beyond).
 */
int migrate_legacy_names(struct incus *c, const char *prefix,
    char (*names)[BOX_NAME_MAX], int max, int *n, int *more,
    struct box_err *e);

/* Retire the legacy stack (root), then assert that nothing of it is left. */
int migrate_retire(struct incus *c, struct box_err *e);

#endif
