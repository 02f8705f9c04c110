/*
 * box setup-host [--dry-run] [--json] - build, or converge, the host
 * stack: the storage pool, the boxnet bridge on a subnet decided before
 * anything changes, the box-isolate ACL on that bridge, the box-net
 * profile, and the host firewall (one netlink batch), which is then read
 * back from the kernel.  --dry-run prints the decision and the plan and
 * changes nothing: agents inside boxes use it as a check.  The steps are
 * host/stack/setup.c; this file is the options, one call and the plan or
 * the verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/model.h"
#include "host/stack/resolver_unit.h"
#include "host/stack/setup.h"
#include "host/stack/sysd.h"
#include "incus/json.h"
#include "model/ip4text.h"
#include "util/opt.h"

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

static const char *
todo(int exists, int ok)
{
	return !exists ? "create" : ok ? "ok" : "update";
}

static void
plan_text(const struct setup_plan *p)
{
	char gw[16], dns[256] = "";
	int i;

	ip4_fmt(p->plan.net | 1, gw, sizeof(gw));
	for (i = 0; i < p->conf.ndns; i++)
		snprintf(dns + strlen(dns), sizeof(dns) - strlen(dns), "%s%s",
		    i ? " " : "", p->conf.dns[i]);
	if (p->refused)
		printf("refused    inside a box: box setup-host would refuse "
		    "to run here (BOX_ALLOW_NESTED=1 overrides)\n");
	printf("subnet     %s\n", p->plan.note);
	printf("gateway    %s\n", gw);
	printf("dns        %s (pinned upstreams; the host's resolvers are "
	    "never used)\n", dns);
	printf("resolver   %s\n", p->conf.own_resolver ? "box's own on the "
	    "gateway's port 53 (dnsmasq: DHCP only)" : "Incus's dnsmasq "
	    "(BOX_RESOLVER=dnsmasq: " RSVD_LOST ")");
	if (!p->daemon) {
		printf("incus      not answering: would be installed/started "
		    "first\n");
		return;
	}
	if (p->pool.create)
		printf("pool       %s create (btrfs, %u GiB: %s)\n",
		    p->pool.name, p->pool.size_gib, p->pool.size_why);
	else if (p->pool.create_default)
		printf("pool       %s create (btrfs if the daemon can, else "
		    "dir)\n", p->pool.name);
	else
		printf("pool       %s ok (driver %s%s; %s)\n", p->pool.name,
		    p->pool.driver, pool_cow(p->pool.driver, NULL) ? "" :
		    ", no copy-on-write", p->pool.why);
	printf("network    %s %s%s%s\n", STACK_BRIDGE,
	    todo(p->st.net_exists, p->st.net_keys_ok),
	    p->st.net_keys_ok || !p->st.net_exists ? "" : ": ",
	    p->st.net_drift);
	printf("acl        %s %s (ingress rules kept: %d)\n", STACK_ACL,
	    todo(p->st.acl_exists, p->st.acl_ok), p->st.acl_ingress);
	printf("profile    %s %s\n", STACK_PROFILE,
	    todo(p->st.profile_exists, p->st.profile_ok));
	printf("firewall   %s (%u of %u contract rules held by content)\n",
	    p->fw.ok ? "ok" : "apply", p->fw.held, p->fw.want);
	printf("boot       %s runs %s before Incus%s\n", SYSD_UNIT,
	    SYSD_BOOT_BIN, p->systemd ? "" : " (no systemd here: "
	    "written, not enabled)");
}

static void
plan_json(const struct setup_plan *p)
{
	struct json_w w;
	struct box_err ignore;
	char net[16];
	int i;

	ip4_fmt(p->plan.net, net, sizeof(net));
	json_w_init(&w, 1 << 16);
	json_w_obj(&w);
	json_w_key(&w, "subnet");
	json_w_obj(&w);
	json_w_key(&w, "network");
	json_w_str(&w, net);
	json_w_key(&w, "prefix");
	json_w_int(&w, 24);
	json_w_key(&w, "reason");
	json_w_str(&w, why_name(p->plan.why));
	json_w_key(&w, "note");
	json_w_str(&w, p->plan.note);
	if (p->plan.why == SUBNET_WHY_AUTOPICK) {
		json_w_key(&w, "default_claimed_by");
		json_w_str(&w, p->plan.claimant);
	}
	json_w_end(&w, '}');
	json_w_key(&w, "dns");
	json_w_arr(&w);
	for (i = 0; i < p->conf.ndns; i++)
		json_w_str(&w, p->conf.dns[i]);
	json_w_end(&w, ']');
	json_w_key(&w, "resolver");
	json_w_str(&w, p->conf.own_resolver ? "box" : "dnsmasq");
	json_w_key(&w, "refused_nested");
	json_w_bool(&w, p->refused);
	json_w_key(&w, "daemon");
	json_w_bool(&w, p->daemon);
	if (p->daemon) {
		json_w_key(&w, "pool");
		json_w_str(&w, todo(!p->pool.create &&
		    !p->pool.create_default, 1));
		json_w_key(&w, "pool_name");
		json_w_str(&w, p->pool.name);
		json_w_key(&w, "pool_driver");
		json_w_str(&w, p->pool.create ? "btrfs" : p->pool.driver);
		json_w_key(&w, "network");
		json_w_str(&w, todo(p->st.net_exists, p->st.net_keys_ok));
		json_w_key(&w, "acl");
		json_w_str(&w, todo(p->st.acl_exists, p->st.acl_ok));
		json_w_key(&w, "profile");
		json_w_str(&w, todo(p->st.profile_exists, p->st.profile_ok));
		json_w_key(&w, "boxes");
		json_w_int(&w, p->st.boxes);
	}
	json_w_key(&w, "firewall");
	json_w_str(&w, p->fw.ok ? "ok" : "apply");
	json_w_key(&w, "systemd");
	json_w_bool(&w, p->systemd);
	json_w_end(&w, '}');
	(void)model_flush(&w, &ignore);	/* out of memory: no document */
}

int
cmd_setup_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct setup_opts o = { 0 };
	struct setup_plan p;
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
	o.pool = pool;
	o.dry = dry;
	o.json = json;
	if ((rc = setup_host_run(&o, &p, e)) < 0)
		return rc;
	if (dry && json)
		plan_json(&p);
	else if (dry)
		plan_text(&p);
	else
		fprintf(stderr,
		    "box: host ready — mint a box: box new --name <box>\n");
	return 0;
}
