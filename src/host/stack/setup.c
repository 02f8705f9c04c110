/*
 * setup.c - box setup-host: decide, then converge the host stack (see
 * setup.h).  Each step says what it did on stderr as it goes.
 */
#include "host/stack/setup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/egress/egress_sync.h"
#include "box/remote/tier.h"
#include "host/install/nestguard.h"
#include "host/stack/resolver_unit.h"
#include "host/stack/fwdata.h"
#include "host/stack/hostinfo.h"
#include "host/stack/pins.h"
#include "host/stack/guard_unit.h"
#include "host/stack/sysd.h"
#include "incus/cluster.h"
#include "incus/server.h"

/* The run's own state; the plan it decides is the caller's. */
struct setup {
	struct incus c;
	struct subnet_host host;
	struct setup_plan p;	/* copied out to the caller's at the end */
	const char *pool_asked;	/* --pool, or NULL */
	int json;
};

/* Does the daemon answer?  A missing daemon is a fact for the plan. */
static int
probe_daemon(struct setup *s, struct box_err *e)
{
	struct box_err probe;
	int rc;

	rc = incus_init(&s->c, e);
	if (rc < 0)
		return rc;
	err_clear(&probe);
	if (incus_server_ping(&s->c, &probe) == 0)
		s->p.daemon = 1;
	return 0;
}

static int
decide(struct setup *s, struct box_err *e)
{
	int rc;

	rc = host_read(s->p.daemon ? &s->c : NULL, &s->host, e);
	if (rc < 0)
		return rc;
	rc = subnet_decide(&s->host, getenv("BOX_SUBNET"), &s->p.plan, e);
	if (rc < 0)
		return rc;
	s->p.conf.net = s->p.plan.net;
	if ((rc = stack_resolver_parse(getenv("BOX_RESOLVER"), &s->p.conf,
	    e)) < 0)
		return rc;
	return stack_dns_parse(getenv("BOX_DNS"), &s->p.conf, e);
}

/* The plan: what is there and what a run would do; nothing changes. */
static int
dry_run(struct setup *s, struct box_err *e)
{
	struct box_err ignore;
	int rc;

	if (s->p.daemon) {
		rc = stack_observe(&s->c, &s->p.conf, &s->p.st, e);
		if (rc == 0)
			rc = pool_decide(&s->c, s->pool_asked, 0, &s->p.pool,
			    e);
		if (rc < 0)
			return rc;
	}
	err_clear(&ignore);
	/* unprivileged: unknown */
	fw_read(STACK_BRIDGE, s->p.plan.net, &s->p.fw, &ignore);
	s->p.systemd = sysd_present();
	return 0;
}

/* Incus missing: install it with apt; not answering: say how to start it. */
static int
ensure_daemon(struct setup *s, struct box_err *e)
{
	char *update[] = { "apt-get", "update", NULL };
	char *install[] = { "apt-get", "install", "-y", "incus", NULL };
	int rc;

	if (s->p.daemon)
		return 0;
	if (access("/usr/libexec/incus/incusd", X_OK) != 0 &&
	    access("/usr/bin/incus", X_OK) != 0) {
		fprintf(stderr,
		    "box: installing Incus (apt-get install incus)...\n");
		setenv("DEBIAN_FRONTEND", "noninteractive", 1);
		if ((rc = sysd_run(update, e)) < 0 ||
		    (rc = sysd_run(install, e)) < 0)
			return rc;
	}
	incus_close(&s->c);
	rc = probe_daemon(s, e);
	if (rc == 0 && !s->p.daemon) {
		err_set(e, -ECONNREFUSED, "Incus is installed but its daemon "
		    "is not answering on %s", s->c.socket_path);
		err_fix(e, sysd_present() ? "systemctl start incus, then "
		    "re-run box setup-host" : "start incusd (no systemd "
		    "here), then re-run box setup-host");
		return -ECONNREFUSED;
	}
	return rc;
}

static void
said(const char *what, int changed, const char *how)
{
	fprintf(stderr,
	    "box: %-9s %s\n", what, changed ? how : "ok (unchanged)");
}

/* route_localnet: on only while a VM door needs it (see expose.c). */
static void
local_route(struct setup *s)
{
	struct box_err e;
	int doors;

	err_clear(&e);
	doors = stack_vm_doors(&s->c, &e);
	if (doors < 0)
		return;
	if (fw_route_localnet_set(STACK_BRIDGE, doors > 0, &e) == 0)
		fprintf(stderr,
		    "box: loopback route_localnet %s on %s\n", doors > 0 ?
		    "on: a VM door needs it" : "off: no VM door needs it",
		    STACK_BRIDGE);
}

/* The guard that keeps the contract in force (host/guard/guard.h). */
static int
guard(struct box_err *e)
{
	int rc, mode;

	if ((rc = guard_install(&mode, e)) < 0)
		return rc;
	if (mode == GUARD_OFF)
		fprintf(stderr, "box: WARNING: BOX_GUARD=0: no guard runs; "
		    "a flush of the ruleset leaves the boxes open until the "
		    "next 'box firewall apply'\n");
	else
		fprintf(stderr, "box: guard    %s: it puts the contract back "
		    "when anything changes it, and takes %s down when it "
		    "cannot\n", mode == GUARD_SYSTEMD ? GUARD_UNIT " started" :
		    "started detached (no systemd; " GUARD_PIDFILE ")",
		    STACK_BRIDGE);
	return 0;
}

/* Box's own resolver on the gateway (the default), answering. */
static int
resolver(struct setup *s, struct box_err *e)
{
	const char *up[STACK_MAX_DNS];
	int i, mode, skipped, rc;

	for (i = 0; i < s->p.conf.ndns; i++)
		up[i] = s->p.conf.dns[i];
	guard_pause();	/* it would race us to start the resolver */
	if ((rc = rsvd_install(s->p.conf.net | 1, up, s->p.conf.ndns, &mode,
	    &skipped, e)) < 0)
		return rc;
	fprintf(stderr, "box: resolver %s answers on the gateway's port 53 "
	    "(dnsmasq: DHCP only)%s\n", mode == RSVD_SYSTEMD ? RSVD_UNIT
	    " (systemd) restarted and" : "no systemd here: started detached "
	    "(pid in " RSVD_PIDFILE ", log " RSVD_LOG "); after a reboot "
	    "re-run box setup-host;", skipped ? "; BOX_DNS's IPv6 "
	    "resolvers are not asked" : "");
	return 0;
}

/*
 * The pool (host/stack/pool.h): chosen, made when it is box's own, and
 * the boxes already on another pool kept there before the profile moves.
 */
static int
setup_pool(struct setup *s, struct box_err *e)
{
	char warn[768];
	int created, pinned, rc;

	rc = pool_decide(&s->c, s->pool_asked, isatty(STDIN_FILENO) &&
	    isatty(STDERR_FILENO), &s->p.pool, e);
	if (rc == 0 && s->p.pool.create)
		fprintf(stderr, "box: storage  creating box's own btrfs pool "
		    "'%s': %u GiB loop file (%s)\n", s->p.pool.name,
		    s->p.pool.size_gib, s->p.pool.size_why);
	if (rc == 0)
		rc = pool_ensure(&s->c, &s->p.pool, &created, warn,
		    sizeof(warn), e);
	if (rc < 0)
		return rc;
	said("pool", created, "created");
	if (warn[0] != '\0')
		fprintf(stderr, "box: WARNING: %s\n", warn);
	fprintf(stderr, "box: storage  pool '%s' uses %s%s\n",
	    s->p.pool.name, s->p.pool.driver,
	    pool_cow(s->p.pool.driver, NULL) ?
	    " (copy-on-write; root disks sized by --disk)" :
	    strcmp(s->p.pool.driver, "dir") == 0 ? " — no copy-on-write: "
	    "every snapshot and clone is a full copy; box setup-host --pool "
	    "btrfs makes box's own" : "");
	if (s->p.st.pool[0] == '\0' ||
	    strcmp(s->p.st.pool, s->p.pool.name) == 0)
		return 0;
	if ((rc = pool_pin_boxes(&s->c, s->p.st.pool, &pinned, e)) < 0)
		return rc;
	if (pinned > 0)
		fprintf(stderr, "box: storage  %d existing box%s stay%s on pool "
		    "'%s' (box move <box> --pool %s moves a stopped one)\n",
		    pinned, pinned == 1 ? "" : "es", pinned == 1 ? "s" : "",
		    s->p.st.pool, s->p.pool.name);
	return 0;
}

/*
 * On a cluster this member holds the contract now (its firewall was read
 * back by content above, its resolver answers): it joins box's group,
 * read back, and new boxes may land on it.  Run on every member.
 */
static int
join_group(struct setup *s, struct box_err *e)
{
	struct incus_cluster k;
	int rc;

	if ((rc = incus_cluster_read(&s->c, NULL, &k, e)) < 0 || !k.on)
		return rc;
	if ((rc = incus_cluster_group_set(&s->c, CONTRACT_GROUP, k.self, 1,
	    e)) < 0)
		return rc;
	fprintf(stderr, "box: cluster  member %s is in group %s (read back): "
	    "new boxes may land here; run box setup-host on every member\n",
	    k.self, CONTRACT_GROUP);
	return 0;
}

static int
converge(struct setup *s, struct box_err *e)
{
	char corrected[512];
	struct pins_result pr;
	int changed, live, rc;

	if ((rc = stack_observe(&s->c, &s->p.conf, &s->p.st, e)) < 0)
		return rc;
	if ((rc = setup_pool(s, e)) < 0)
		return rc;
	if ((rc = stack_ensure_acl(&s->c, &s->p.conf, &changed, e)) < 0)
		return rc;
	said("acl", changed, "box-isolate converged (ingress doors kept)");
	/* Back to dnsmasq's DNS: box's resolver lets go of port 53 first,
	 * or the dnsmasq that raw.dnsmasq restarts could not bind it. */
	if (!s->p.conf.own_resolver && (rc = rsvd_remove(e)) < 0)
		return rc;
	if ((rc = stack_ensure_network(&s->c, &s->p.conf, &changed, corrected,
	    sizeof(corrected), e)) < 0)
		return rc;
	if (changed && corrected[0] != '\0')
		fprintf(stderr,
		    "box: network  boxnet corrected: %s\n", corrected);
	else
		said("network", changed, "boxnet created");
	if ((rc = stack_ensure_profile_on(&s->c, s->p.pool.name, &changed,
	    e)) < 0)
		return rc;
	said("profile", changed, "box-net converged");
	if ((rc = fwdata_from_env(e)) < 0 ||
	    (rc = fw_apply(STACK_BRIDGE, s->p.conf.net, &s->p.fw, e)) < 0)
		return rc;
	fprintf(stderr,
	    "box: firewall %u rules live, each read back from the kernel "
	    "and equal to the contract by content\n", s->p.fw.held);
	fprintf(stderr, "box: siblings %s\n", s->p.fw.sibling_note);
	{
		char why[300];

		if ((rc = fw_arp_sysctls(STACK_BRIDGE, 1, why, sizeof(why),
		    e)) < 0)
			return rc;
		if (rc == 0)
			return err_set(e, -EIO, "the ARP sysctls did not hold: %s",
			    why);
		fprintf(stderr, "box: arp      arp_ignore=1 arp_announce=2 on %s, "
		    "read back from /proc (beside the gateway-only ARP rule)\n",
		    STACK_BRIDGE);
	}
	/* converging raw.dnsmasq dropped the boxes' nftset lines, if any */
	if ((rc = egress_sync_if(&s->c, 0, e)) < 0)
		return rc;
	local_route(s);
	if ((rc = sysd_install_boot(s->p.conf.net, &live, e)) < 0 ||
	    (rc = pins_install_hook(SYSD_BOOT_BIN, e)) < 0 ||
	    (rc = pins_sync(&s->c, STACK_BRIDGE, s->p.conf.net, &pr, e)) < 0)
		return rc;
	fprintf(stderr, "box: ports    %zu of %zu NICs on %s bound to their "
	    "pinned MAC (%zu to their address); dnsmasq's lease hook %s "
	    "binds each again as it leases\n", pr.bound, pr.nic, STACK_BRIDGE,
	    pr.pinned, CONTRACT_DHCP_HOOK);
	if (live)
		fprintf(stderr,
		    "box: boot     %s installed and restarted: it runs %s "
		    "before Incus starts\n", SYSD_UNIT, SYSD_BOOT_BIN);
	else
		fprintf(stderr,
		    "box: boot     no systemd here: %s and %s are written "
		    "but nothing runs them; after a reboot run 'box firewall "
		    "apply'\n", SYSD_UNIT_PATH, SYSD_BOOT_BIN);
	if (!s->p.conf.own_resolver)
		fprintf(stderr, "box: WARNING: BOX_RESOLVER=dnsmasq: Incus's "
		    "dnsmasq serves the boxes' DNS, so they have %s; box "
		    "setup-host without it gives box's own resolver back\n",
		    RSVD_LOST);
	if (s->p.conf.own_resolver && (rc = resolver(s, e)) < 0)
		return rc;
	if ((rc = guard(e)) < 0)
		return rc;
	return join_group(s, e);
}

int
setup_host_run(const struct setup_opts *o, struct setup_plan *p,
    struct box_err *e)
{
	struct setup *s;
	int rc;

	if (!o->dry && (rc = tier_require_admin("setup-host", e)) < 0)
		return rc;
	if (!o->dry && geteuid() != 0) {
		err_set(e, -EPERM, "setup-host changes the host: it needs root");
		err_fix(e, "sudo box setup-host   (or: box setup-host --dry-run)");
		return -EPERM;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	s->json = o->json;
	s->pool_asked = o->pool;
	rc = nestguard_check("setup-host", o->dry ? NG_PLAN : NG_CHANGE,
	    &s->p.refused, e);
	if (rc == 0)
		rc = probe_daemon(s, e);
	if (rc == 0)
		rc = decide(s, e);	/* before any change */
	if (rc == 0 && s->p.plan.why == SUBNET_WHY_AUTOPICK && !s->json)
		fprintf(stderr, "box: WARNING: %s\n", s->p.plan.note);
	if (rc == 0 && o->dry)
		rc = dry_run(s, e);
	else if (rc == 0) {
		fprintf(stderr, "box: subnet   %s\n", s->p.plan.note);
		rc = ensure_daemon(s, e);
		if (rc == 0)
			rc = converge(s, e);
	}
	*p = s->p;
	incus_close(&s->c);
	free(s);
	return rc;
}
