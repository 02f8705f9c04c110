/*
 * box firewall [apply|show|sync|block] [--subnet A.B.C.0/24] [--json] - the
 * host firewall alone.  `apply` is what the boot unit runs, before Incus:
 * it needs no daemon and no bridge, only the kernel and the subnet (the
 * unit passes --subnet; by hand the bridge interface, or the daemon, says
 * it).  Rules match the bridge by name, so they hold, and drop, before
 * the bridge exists.  `show` reads every rule back and compares it, by
 * content, with the contract (host/stack/contract.c); exit 1 when anything
 * differs.  `sync` binds the bridge's ports to what Incus pinned
 * (host/stack/pins.h; dnsmasq's lease hook runs it); `block add|rm|list`
 * edits the operator's blocklist (host/stack/fwdata.h) and re-applies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/bridge.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "host/guard/guard.h"
#include "host/install/nestguard.h"
#include "host/stack/contract.h"
#include "host/stack/firewall.h"
#include "host/stack/fwdata.h"
#include "host/stack/pins.h"
#include "host/stack/hostinfo.h"
#include "host/stack/subnet.h"
#include "incus/api.h"
#include "incus/json.h"
#include "model/ip4text.h"
#include "util/opt.h"

static const char *
sibling_name(int m)
{
	return m == FW_SIBLING_BRNAME ? "brname" :
	    m == FW_SIBLING_SUBNET ? "subnet" : "absent";
}

static void
show_text(const struct fw_status *st)
{
	char net[20];
	int i;

	ip4_fmt(st->net, net, sizeof(net));
	printf("firewall     %s: %u of %u contract rules held by content%s "
	    "(subnet %s/24)\n", st->ok ? "as the contract says" :
	    "DIFFERS from the contract", st->held, st->want,
	    st->extra ? ", plus rules that are not box's" : "",
	    st->net ? net : "unknown");
	printf("inet box     %s\n", st->inet_table ? "present" : "ABSENT");
	printf("bridge box   %s (sibling drop: %s)\n",
	    st->bridge_table ? "present" : "ABSENT", sibling_name(st->sibling));
	if (st->sibling_note[0] != '\0')
		printf("             %s\n", st->sibling_note);
	for (i = 0; i < st->ndiff; i++)
		printf("DIFF         %s\n", st->diff[i]);
	printf("conn cap     %u connections per box (ct count)\n",
	    st->conn_max);
	printf("named drops  %u (this host's uplink, the operator's "
	    "blocklist)\n", st->nnamed);
	printf("route_localnet on %s: %s\n", CONTRACT_BRIDGE,
	    st->route_localnet < 0 ? "no such interface" :
	    st->route_localnet ? "on (a VM door needs it; the input chain "
	    "drops 127/8 from boxes regardless)" : "off");
}

/* The guard: whether it runs, and its last heals (host/guard/guard.h). */
static void
show_guard(void)
{
	struct guard_event ev[16];
	struct box_err ignore;
	unsigned recent = 0;
	size_t n = 0, i, shown = 0;
	int pid = guard_pid();

	err_clear(&ignore);
	(void)guard_events_read(ev, 16, &n, &recent, (long long)time(NULL),
	    &ignore);
	printf("guard        %s; %u heals in the last %d min\n", pid ?
	    "runs: a change is put back as the kernel announces it" :
	    "does NOT run: nothing puts the contract back until the next "
	    "apply", recent, GUARD_RECENT_S / 60);
	for (i = n; i > 0 && shown < 3; i--) {
		const struct guard_event *x = &ev[i - 1];

		if (strcmp(x->kind, "heal") != 0 &&
		    strcmp(x->kind, "close") != 0)
			continue;
		shown++;
		printf("HEAL         %lld s ago%s%s, window %ld ms: %s; put "
		    "back: %s\n", (long long)time(NULL) - x->at,
		    x->by[0] ? " after " : "", x->by, x->window_ms, x->what,
		    x->back);
	}
}

static void
show_json(const struct fw_status *st)
{
	struct json_w w;
	struct box_err ignore;
	char net[20];
	int i;

	ip4_fmt(st->net, net, sizeof(net));
	json_w_init(&w, 64u << 10);
	json_w_obj(&w);
	json_w_key(&w, "ok");
	json_w_bool(&w, st->ok);
	json_w_key(&w, "subnet");
	if (st->net)
		json_w_str(&w, net);
	else
		json_w_null(&w);
	json_w_key(&w, "rules_wanted");
	json_w_int(&w, st->want);
	json_w_key(&w, "rules_held");
	json_w_int(&w, st->held);
	json_w_key(&w, "rules_extra");
	json_w_int(&w, st->extra);
	json_w_key(&w, "inet_table");
	json_w_bool(&w, st->inet_table);
	json_w_key(&w, "bridge_table");
	json_w_bool(&w, st->bridge_table);
	json_w_key(&w, "sibling_drop");
	json_w_str(&w, sibling_name(st->sibling));
	json_w_key(&w, "differences");
	json_w_arr(&w);
	for (i = 0; i < st->ndiff; i++)
		json_w_str(&w, st->diff[i]);
	json_w_end(&w, ']');
	json_w_key(&w, "conn_max");
	json_w_int(&w, st->conn_max);
	json_w_key(&w, "named_drops");
	json_w_int(&w, st->nnamed);
	json_w_key(&w, "route_localnet");
	if (st->route_localnet < 0)
		json_w_null(&w);
	else
		json_w_bool(&w, st->route_localnet);
	json_w_end(&w, '}');
	(void)model_flush(&w, &ignore);	/* out of memory: no document */
}

/*
 * The subnet: --subnet, else the bridge interface's, else the daemon's
 * (the bridge may be down while Incus is up).  0 when none says.
 */
static int
find_subnet(const char *pin, uint32_t *net, struct box_err *e)
{
	struct subnet_host h;
	struct incus c;
	struct box_err ignore;

	*net = 0;
	if (pin != NULL) {
		if (subnet_parse(pin, net) < 0)
			return err_usage(e, "--subnet takes A.B.C.0/24, not "
			    "'%s'", pin);
		return 0;
	}
	err_clear(&ignore);
	if (host_read(NULL, &h, &ignore) == 0)
		*net = host_iface_net(&h, CONTRACT_BRIDGE);
	if (*net == 0 && incus_init(&c, &ignore) == 0) {
		c.timeout_ms = 3000;	/* at boot the daemon is not up */
		(void)bridge_net(&c, net, &ignore);
		incus_close(&c);
	}
	return 0;
}

/*
 * After an apply, the port bindings again when the daemon answers (at
 * boot it does not: dnsmasq's lease hook binds each box as it leases).
 */
static void
resync(uint32_t net)
{
	struct pins_result r;
	struct incus c;
	struct box_err ignore;

	err_clear(&ignore);
	if (incus_init(&c, &ignore) < 0)
		return;
	c.timeout_ms = 3000;
	if (pins_sync(&c, CONTRACT_BRIDGE, net, &r, &ignore) < 0 &&
	    ignore.msg[0] != '\0')
		fprintf(stderr, "box: the ports of %s were not bound again "
		    "(%s); each box is when it next leases\n", CONTRACT_BRIDGE,
		    ignore.msg);
}

static int
need_root(const char *what, struct box_err *e)
{
	if (geteuid() == 0)
		return 0;
	err_set(e, -EPERM, "%s needs root", what);
	err_fix(e, "sudo box firewall %s", what);
	return -EPERM;
}

/* The bridge's ARP sysctls again (Incus makes the bridge anew at boot);
 * an absent bridge is fine. */
static void
arp_again(void)
{
	char why[300];
	struct box_err ignore;

	err_clear(&ignore);
	(void)fw_arp_sysctls(CONTRACT_BRIDGE, 1, why, sizeof(why), &ignore);
}

/* Bind the bridge's ports to what Incus pinned, now. */
static int
do_sync(uint32_t net, int hook, struct box_err *e)
{
	struct pins_result r;
	struct incus c;
	int rc;

	if ((rc = need_root("sync", e)) < 0)
		return rc;
	if (net == 0)
		return err_set(e, -ENOENT, "neither the bridge %s nor the "
		    "daemon says which subnet the boxes are on",
		    CONTRACT_BRIDGE);
	if (hook)
		return pins_hook_sync(CONTRACT_BRIDGE, net, e);
	arp_again();
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = pins_sync(&c, CONTRACT_BRIDGE, net, &r, e);
	incus_close(&c);
	if (rc < 0)
		return rc;
	printf("ports        %zu NICs on %s: %zu ports bound to their MAC, %zu "
	    "to their address%s\n", r.nic, CONTRACT_BRIDGE, r.bound, r.pinned,
	    r.conflict ? "" : "");
	if (r.conflict)
		printf("CONFLICT     %zu NICs claim a MAC or an address another "
		    "NIC claims: none of them is bound\n", r.conflict);
	return 0;
}

/* block add|rm|list [A.B.C.D/L] */
static int
do_block(const struct opt_result *res, uint32_t net, int *applied,
    struct fw_status *st, struct box_err *e)
{
	const char *op = res->npos > 1 ? res->pos[1] : "list";
	struct fwdata d;
	uint32_t a;
	uint8_t pl;
	size_t i;
	int rc;

	*applied = 0;
	if (strcmp(op, "list") == 0) {
		if (res->npos > 2)
			return err_usage(e, "block list takes no prefix");
		if ((rc = fwdata_load(&d, e)) < 0)
			return rc;
		for (i = 0; i < d.nblock; i++)
			printf("%u.%u.%u.%u/%u\n", d.block[i].addr >> 24,
			    (d.block[i].addr >> 16) & 255,
			    (d.block[i].addr >> 8) & 255,
			    d.block[i].addr & 255, d.block[i].plen);
		return 0;
	}
	if (strcmp(op, "add") != 0 && strcmp(op, "rm") != 0)
		return err_usage(e, "block takes add, rm or list, not '%s'", op);
	if (res->npos != 3 || fwdata_prefix_parse(res->pos[2], &a, &pl) < 0)
		return err_usage(e, "block %s takes one IPv4 prefix "
		    "(A.B.C.D/L)", op);
	if ((rc = need_root("block", e)) < 0)
		return rc;
	if ((rc = fwdata_load(&d, e)) < 0)
		return rc;
	rc = strcmp(op, "add") == 0 ? fwdata_block_add(&d, a, pl) :
	    fwdata_block_rm(&d, a, pl);
	if (rc == -ENOSPC)
		return err_usage(e, "the blocklist holds at most %d prefixes",
		    FWDATA_MAXBLOCK);
	if (rc == -ENOENT)
		return err_usage(e, "%s is not on the blocklist", res->pos[2]);
	if ((rc = fwdata_save(&d, e)) < 0)
		return rc;
	if (net == 0)
		return 0;	/* said by the caller: applied at the next apply */
	*applied = 1;
	return fw_apply(CONTRACT_BRIDGE, net, st, e);
}

int
cmd_firewall(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct fw_status st;
	const char *what, *subnet;
	uint32_t net;
	int rc, json, conn_max = 0, applied, hook = 0;
	struct fwdata d;
	const struct opt rows[] = {
		OPT_WORDS("apply|show|sync|block", 0, 1, "apply show sync block",
		    NULL),
		OPT_ARG("add|rm|list [A.B.C.D/L]", 0, 2, OC_NONE, "block: the "
		    "operator's blocklist, destinations no box reaches "
		    "(persisted; add and rm re-apply the firewall)"),
		OPT_STR("--subnet", "A.B.C.0/24", &subnet, OC_NONE, "the "
		    "boxes' subnet (the boot unit passes it; else the "
		    "bridge's, else the daemon's)"),
		OPT_INT("--conn-max", "N", &conn_max, 1, 1000000, "apply: "
		    "each box's cap on its connections (ct count; persisted; "
		    "default 2048)"),
		OPT_FLAG("--json", NULL, &json, "the verdict as one JSON "
		    "object"),
		OPT_FLAG("--from-hook", NULL, &hook, "sync: as dnsmasq's lease "
		    "hook runs it (returns at once; one sync a second at most, "
		    "however many leases change)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	what = res.npos > 0 ? res.pos[0] : "show";
	if (strcmp(what, "apply") != 0 && strcmp(what, "show") != 0 &&
	    strcmp(what, "sync") != 0 && strcmp(what, "block") != 0)
		return opt_usage(argv[0], rows, e);
	if (strcmp(what, "block") != 0 && res.npos > 1)
		return opt_usage(argv[0], rows, e);
	if (conn_max != 0 && strcmp(what, "apply") != 0)
		return err_usage(e, "--conn-max goes with apply");
	if ((rc = find_subnet(subnet, &net, e)) < 0)
		return rc;
	if (hook && strcmp(what, "sync") != 0)
		return err_usage(e, "--from-hook goes with sync");
	if (strcmp(what, "sync") == 0)
		return do_sync(net, hook, e);
	if (strcmp(what, "block") == 0) {
		if ((rc = do_block(&res, net, &applied, &st, e)) < 0 ||
		    !applied)
			return rc;
	} else if (strcmp(what, "show") == 0) {
		rc = fw_read(CONTRACT_BRIDGE, net, &st, e);
	} else {
		if ((rc = nestguard_check("firewall apply", NG_CHANGE, NULL,
		    e)) < 0)
			return rc;
		if (geteuid() != 0) {
			err_set(e, -EPERM, "applying the firewall needs root");
			err_fix(e, "sudo box firewall apply");
			return -EPERM;
		}
		if (net == 0) {
			err_set(e, -ENOENT, "neither the bridge %s nor the "
			    "daemon says which subnet the boxes are on",
			    CONTRACT_BRIDGE);
			err_fix(e, "box firewall apply --subnet A.B.C.0/24");
			return -ENOENT;
		}
		if (conn_max != 0) {
			if ((rc = fwdata_load(&d, e)) < 0)
				return rc;
			d.conn_max = (uint32_t)conn_max;
			if ((rc = fwdata_save(&d, e)) < 0)
				return rc;
		}
		rc = fw_apply(CONTRACT_BRIDGE, net, &st, e);
		if (rc == 0)
			arp_again();
		/* --subnet is the boot path: the daemon is not up yet */
		if (rc == 0 && subnet == NULL)
			resync(net);
	}
	if (rc < 0)
		return rc;
	if (json)
		show_json(&st);
	else {
		show_text(&st);
		show_guard();
	}
	if (!st.ok)
		return err_set(e, -EBOX_PROTO, "the firewall the kernel holds "
		    "differs from the contract (%d difference%s above)",
		    st.ndiff, st.ndiff == 1 ? "" : "s");
	return 0;
}
