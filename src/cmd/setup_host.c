/*
 * box setup-host [--dry-run] [--json] - build, or converge, the host
 * stack: the storage pool, the boxnet bridge on a subnet decided before
 * anything changes, the box-isolate ACL on that bridge, the box-net
 * profile, and the host firewall (one netlink batch), which is then read
 * back from the kernel.  --dry-run prints the decision and the plan and
 * changes nothing: agents inside boxes use it as a check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/egress_sync.h"
#include "box/tier.h"
#include "cmd/cmd.h"
#include "host/install/nestguard.h"
#include "host/resolver/unit.h"
#include "host/stack/firewall.h"
#include "host/stack/fwdata.h"
#include "host/stack/hostinfo.h"
#include "host/stack/pins.h"
#include "host/stack/pool.h"
#include "host/stack/stack.h"
#include "host/stack/subnet.h"
#include "host/stack/sysd.h"
#include "incus/api.h"
#include "incus/cluster.h"
#include "incus/server.h"
#include "model/ip4text.h"
#include "util/opt.h"

struct setup {
	struct incus c;
	int daemon;		/* the daemon answered */
	struct subnet_host host;
	struct subnet_plan plan;
	struct stack_conf conf;
	struct stack_state st;
	struct fw_status fw;
	struct pool_choice pool;
	const char *pool_asked;	/* --pool, or NULL */
	int json;
	int refused;		/* inside a box: the run would be refused */
};

static const char *
why_name(int why)
{
	switch (why) {
	case SUBNET_WHY_DEFAULT:
		return "default";
	case SUBNET_WHY_PINNED:
		return "pinned";
	case SUBNET_WHY_EXISTING:
		return "existing";
	default:
		return "autopick";
	}
}

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
		s->daemon = 1;
	return 0;
}

static int
decide(struct setup *s, struct box_err *e)
{
	int rc;

	rc = host_read(s->daemon ? &s->c : NULL, &s->host, e);
	if (rc < 0)
		return rc;
	rc = subnet_decide(&s->host, getenv("BOX_SUBNET"), &s->plan, e);
	if (rc < 0)
		return rc;
	s->conf.net = s->plan.net;
	if ((rc = stack_resolver_parse(getenv("BOX_RESOLVER"), &s->conf,
	    e)) < 0)
		return rc;
	return stack_dns_parse(getenv("BOX_DNS"), &s->conf, e);
}

static const char *
todo(int exists, int ok)
{
	return !exists ? "create" : ok ? "ok" : "update";
}

static void
plan_text(const struct setup *s)
{
	char gw[16], dns[256] = "";
	int i;

	ip4_fmt(s->plan.net | 1, gw, sizeof(gw));
	for (i = 0; i < s->conf.ndns; i++)
		snprintf(dns + strlen(dns), sizeof(dns) - strlen(dns), "%s%s",
		    i ? " " : "", s->conf.dns[i]);
	if (s->refused)
		printf("refused    inside a box: box setup-host would refuse "
		    "to run here (BOX_ALLOW_NESTED=1 overrides)\n");
	printf("subnet     %s\n", s->plan.note);
	printf("gateway    %s\n", gw);
	printf("dns        %s (pinned upstreams; the host's resolvers are "
	    "never used)\n", dns);
	printf("resolver   %s\n", s->conf.own_resolver ? "box's own on the "
	    "gateway's port 53 (dnsmasq: DHCP only)" : "Incus's dnsmasq "
	    "(BOX_RESOLVER=dnsmasq: " RSVD_LOST ")");
	if (!s->daemon) {
		printf("incus      not answering: would be installed/started "
		    "first\n");
		return;
	}
	if (s->pool.create)
		printf("pool       %s create (btrfs, %u GiB: %s)\n",
		    s->pool.name, s->pool.size_gib, s->pool.size_why);
	else if (s->pool.create_default)
		printf("pool       %s create (btrfs if the daemon can, else "
		    "dir)\n", s->pool.name);
	else
		printf("pool       %s ok (driver %s%s; %s)\n", s->pool.name,
		    s->pool.driver, pool_cow(s->pool.driver, NULL) ? "" :
		    ", no copy-on-write", s->pool.why);
	printf("network    %s %s%s%s\n", STACK_BRIDGE,
	    todo(s->st.net_exists, s->st.net_keys_ok),
	    s->st.net_keys_ok || !s->st.net_exists ? "" : ": ",
	    s->st.net_drift);
	printf("acl        %s %s (ingress rules kept: %d)\n", STACK_ACL,
	    todo(s->st.acl_exists, s->st.acl_ok), s->st.acl_ingress);
	printf("profile    %s %s\n", STACK_PROFILE,
	    todo(s->st.profile_exists, s->st.profile_ok));
	printf("firewall   %s (%u of %u contract rules held by content)\n",
	    s->fw.ok ? "ok" : "apply", s->fw.held, s->fw.want);
	printf("boot       %s runs %s before Incus%s\n", SYSD_UNIT,
	    SYSD_BOOT_BIN, sysd_present() ? "" : " (no systemd here: "
	    "written, not enabled)");
}

static void
plan_json(const struct setup *s)
{
	struct json_w w;
	char net[16], *out;
	int i;

	ip4_fmt(s->plan.net, net, sizeof(net));
	json_w_init(&w, 1 << 16);
	json_w_obj(&w);
	json_w_key(&w, "subnet");
	json_w_obj(&w);
	json_w_key(&w, "network");
	json_w_str(&w, net);
	json_w_key(&w, "prefix");
	json_w_int(&w, 24);
	json_w_key(&w, "reason");
	json_w_str(&w, why_name(s->plan.why));
	json_w_key(&w, "note");
	json_w_str(&w, s->plan.note);
	if (s->plan.why == SUBNET_WHY_AUTOPICK) {
		json_w_key(&w, "default_claimed_by");
		json_w_str(&w, s->plan.claimant);
	}
	json_w_end(&w, '}');
	json_w_key(&w, "dns");
	json_w_arr(&w);
	for (i = 0; i < s->conf.ndns; i++)
		json_w_str(&w, s->conf.dns[i]);
	json_w_end(&w, ']');
	json_w_key(&w, "resolver");
	json_w_str(&w, s->conf.own_resolver ? "box" : "dnsmasq");
	json_w_key(&w, "refused_nested");
	json_w_bool(&w, s->refused);
	json_w_key(&w, "daemon");
	json_w_bool(&w, s->daemon);
	if (s->daemon) {
		json_w_key(&w, "pool");
		json_w_str(&w, todo(!s->pool.create &&
		    !s->pool.create_default, 1));
		json_w_key(&w, "pool_name");
		json_w_str(&w, s->pool.name);
		json_w_key(&w, "pool_driver");
		json_w_str(&w, s->pool.create ? "btrfs" : s->pool.driver);
		json_w_key(&w, "network");
		json_w_str(&w, todo(s->st.net_exists, s->st.net_keys_ok));
		json_w_key(&w, "acl");
		json_w_str(&w, todo(s->st.acl_exists, s->st.acl_ok));
		json_w_key(&w, "profile");
		json_w_str(&w, todo(s->st.profile_exists, s->st.profile_ok));
		json_w_key(&w, "boxes");
		json_w_int(&w, s->st.boxes);
	}
	json_w_key(&w, "firewall");
	json_w_str(&w, s->fw.ok ? "ok" : "apply");
	json_w_key(&w, "systemd");
	json_w_bool(&w, sysd_present());
	json_w_end(&w, '}');
	if (json_w_finish(&w, &out, NULL) == 0) {
		puts(out);
		free(out);
	}
}

static int
dry_run(struct setup *s, struct box_err *e)
{
	struct box_err ignore;
	int rc;

	if (s->daemon) {
		rc = stack_observe(&s->c, &s->conf, &s->st, e);
		if (rc == 0)
			rc = pool_decide(&s->c, s->pool_asked, 0, &s->pool, e);
		if (rc < 0)
			return rc;
	}
	err_clear(&ignore);
	/* unprivileged: unknown */
	fw_read(STACK_BRIDGE, s->plan.net, &s->fw, &ignore);
	if (s->json)
		plan_json(s);
	else
		plan_text(s);
	return 0;
}

/* Incus missing: install it with apt; not answering: say how to start it. */
static int
ensure_daemon(struct setup *s, struct box_err *e)
{
	char *update[] = { "apt-get", "update", NULL };
	char *install[] = { "apt-get", "install", "-y", "incus", NULL };
	int rc;

	if (s->daemon)
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
	if (rc == 0 && !s->daemon) {
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

/* Box's own resolver on the gateway (the default), answering. */
static int
resolver(struct setup *s, struct box_err *e)
{
	const char *up[STACK_MAX_DNS];
	int i, mode, skipped, rc;

	for (i = 0; i < s->conf.ndns; i++)
		up[i] = s->conf.dns[i];
	if ((rc = rsvd_install(s->conf.net | 1, up, s->conf.ndns, &mode,
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
	    isatty(STDERR_FILENO), &s->pool, e);
	if (rc == 0 && s->pool.create)
		fprintf(stderr, "box: storage  creating box's own btrfs pool "
		    "'%s': %u GiB loop file (%s)\n", s->pool.name,
		    s->pool.size_gib, s->pool.size_why);
	if (rc == 0)
		rc = pool_ensure(&s->c, &s->pool, &created, warn, sizeof(warn),
		    e);
	if (rc < 0)
		return rc;
	said("pool", created, "created");
	if (warn[0] != '\0')
		fprintf(stderr, "box: WARNING: %s\n", warn);
	fprintf(stderr, "box: storage  pool '%s' uses %s%s\n", s->pool.name,
	    s->pool.driver, pool_cow(s->pool.driver, NULL) ? " (copy-on-write"
	    "; root disks sized by --disk)" : strcmp(s->pool.driver, "dir") ==
	    0 ? " — no copy-on-write: every snapshot and clone is a full copy"
	    "; box setup-host --pool btrfs makes box's own" : "");
	if (s->st.pool[0] == '\0' || strcmp(s->st.pool, s->pool.name) == 0)
		return 0;
	if ((rc = pool_pin_boxes(&s->c, s->st.pool, &pinned, e)) < 0)
		return rc;
	if (pinned > 0)
		fprintf(stderr, "box: storage  %d existing box%s stay%s on pool "
		    "'%s' (box move <box> --pool %s moves a stopped one)\n",
		    pinned, pinned == 1 ? "" : "es", pinned == 1 ? "s" : "",
		    s->st.pool, s->pool.name);
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

	if ((rc = stack_observe(&s->c, &s->conf, &s->st, e)) < 0)
		return rc;
	if ((rc = setup_pool(s, e)) < 0)
		return rc;
	if ((rc = stack_ensure_acl(&s->c, &s->conf, &changed, e)) < 0)
		return rc;
	said("acl", changed, "box-isolate converged (ingress doors kept)");
	/* Back to dnsmasq's DNS: box's resolver lets go of port 53 first,
	 * or the dnsmasq that raw.dnsmasq restarts could not bind it. */
	if (!s->conf.own_resolver && (rc = rsvd_remove(e)) < 0)
		return rc;
	if ((rc = stack_ensure_network(&s->c, &s->conf, &changed, corrected,
	    sizeof(corrected), e)) < 0)
		return rc;
	if (changed && corrected[0] != '\0')
		fprintf(stderr,
		    "box: network  boxnet corrected: %s\n", corrected);
	else
		said("network", changed, "boxnet created");
	if ((rc = stack_ensure_profile_on(&s->c, s->pool.name, &changed,
	    e)) < 0)
		return rc;
	said("profile", changed, "box-net converged");
	if ((rc = fwdata_from_env(e)) < 0 ||
	    (rc = fw_apply(STACK_BRIDGE, s->conf.net, &s->fw, e)) < 0)
		return rc;
	fprintf(stderr,
	    "box: firewall %u rules live, each read back from the kernel "
	    "and equal to the contract by content\n", s->fw.held);
	fprintf(stderr, "box: siblings %s\n", s->fw.sibling_note);
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
	if ((rc = sysd_install_boot(s->conf.net, &live, e)) < 0 ||
	    (rc = pins_install_hook(SYSD_BOOT_BIN, e)) < 0 ||
	    (rc = pins_sync(&s->c, STACK_BRIDGE, s->conf.net, &pr, e)) < 0)
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
	if (!s->conf.own_resolver)
		fprintf(stderr, "box: WARNING: BOX_RESOLVER=dnsmasq: Incus's "
		    "dnsmasq serves the boxes' DNS, so they have %s; box "
		    "setup-host without it gives box's own resolver back\n",
		    RSVD_LOST);
	if (s->conf.own_resolver && (rc = resolver(s, e)) < 0)
		return rc;
	return join_group(s, e);
}

int
cmd_setup_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct setup *s;
	int rc, dry, json;
	const char *pool = NULL;
	const struct opt rows[] = {
		OPT_STR("--pool", "dir|btrfs[:SIZE]|<name>", &pool, OC_NONE,
		    "the storage pool boxes live on: dir, box's own btrfs pool "
		    "on a loop file (SIZE like 20GiB; default a quarter of "
		    "free disk, 5 to 100 GiB), or an existing pool by name.  "
		    "Without it: a copy-on-write pool in use or there is kept, "
		    "else a terminal is asked"),
		OPT_FLAG("--dry-run", NULL, &dry, "print the decision and the "
		    "plan, change nothing"),
		OPT_FLAG("--json", NULL, &json, "the same as JSON (with "
		    "--dry-run)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (json && !dry)
		return err_usage(e, "--json goes with --dry-run");
	if (!dry && (rc = tier_require_admin("setup-host", e)) < 0)
		return rc;
	if (!dry && geteuid() != 0) {
		err_set(e, -EPERM, "setup-host changes the host: it needs root");
		err_fix(e, "sudo box setup-host   (or: box setup-host --dry-run)");
		return -EPERM;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	s->json = json;
	s->pool_asked = pool;
	rc = nestguard_check("setup-host", dry ? NG_PLAN : NG_CHANGE,
	    &s->refused, e);
	if (rc == 0)
		rc = probe_daemon(s, e);
	if (rc == 0)
		rc = decide(s, e);	/* before any change */
	if (rc == 0 && s->plan.why == SUBNET_WHY_AUTOPICK && !s->json)
		fprintf(stderr, "box: WARNING: %s\n", s->plan.note);
	if (rc == 0 && dry)
		rc = dry_run(s, e);
	else if (rc == 0) {
		fprintf(stderr, "box: subnet   %s\n", s->plan.note);
		rc = ensure_daemon(s, e);
		if (rc == 0)
			rc = converge(s, e);
		if (rc == 0)
			fprintf(stderr,
			    "box: host ready — mint a box: box new --name "
			    "<box>\n");
	}
	incus_close(&s->c);
	free(s);
	return rc;
}
