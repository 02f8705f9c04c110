/*
 * doctor_fix.c - what `box doctor --fix` and `--pin-dns` change (see
 * doctor.h): only what is safely convergent, the same steps setup-host
 * takes on an existing stack (the bridge's keys, the ACL, the profile, the
 * firewall), plus the two it cannot take: a bridge port's isolated flag
 * put back at once, and a dead dnsmasq restarted through Incus.  A
 * nested-box signature, a box's own NIC override or a daemon that does not
 * answer are left to the user: each is a decision, not a drift.
 */
#include "host/doctor/doctor_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/bridge.h"
#include "box/egress/egress_sync.h"
#include "host/stack/resolver_unit.h"
#include "host/stack/firewall.h"
#include "incus/instance.h"
#include "net/brport.h"
#include "net/nl.h"

#define BR	DH_BR

/* Wait (up to 15 s) for a dnsmasq serving the bridge; its pid or 0. */
static int
await_dnsmasq(int old)
{
	struct dr_dnsmasq dm;
	int i, pid = 0;

	for (i = 0; i < 60; i++) {
		pid = dh_find_dnsmasq(&dm);
		if (pid != 0 && pid != old)
			return pid;
		nanosleep(&(struct timespec){ 0, 250000000 }, NULL);
	}
	return pid;
}

/*
 * Incus restarts a network's dnsmasq only when a key of the network
 * changes (a PUT of the same config, or a user.* key, does nothing), so
 * the restart is a change of raw.dnsmasq that dnsmasq does not see (a
 * trailing newline) and its reversal.
 */
static int
restart_network(struct dh_ctx *h, struct box_err *e)
{
	char raw[300];
	int rc;

	snprintf(raw, sizeof(raw), "%s\n", h->cfg[K_RAW]);
	rc = bridge_patch_dnsmasq(&h->c, raw, e);
	if (rc == 0)
		rc = bridge_patch_dnsmasq(&h->c, h->cfg[K_RAW], e);
	return rc;
}

/* The upstreams to keep: BOX_DNS with --pin-dns (or when nothing is
 * pinned yet), else the ones already pinned. */
static int
fix_conf(struct dh_ctx *h, int pin, struct stack_conf *sc, struct box_err *e)
{
	struct dr_dns d;
	int i;

	memset(sc, 0, sizeof(*sc));
	sc->net = h->cfg_net;
	sc->own_resolver = dh_own_resolver(h->cfg[K_RAW]);
	dr_dns_parse(h->cfg[K_RAW], strlen(h->cfg[K_RAW]), &d);
	if (pin || !d.no_resolv || d.nserver == 0 || d.more ||
	    d.nserver > STACK_MAX_DNS)
		return stack_dns_parse(getenv("BOX_DNS"), sc, e);
	for (i = 0; i < d.nserver; i++)
		snprintf(sc->dns[sc->ndns++], sizeof(sc->dns[0]), "%s",
		    d.server[i]);
	return 0;
}

/* Does the running box hold an IPv4 address on the bridge's /24? */
static int
has_lease(const struct incus_instance *in, uint32_t net)
{
	const struct incus_inst_state *st = &in->state;
	struct in_addr ia;
	size_t k, a;

	for (k = 0; k < st->nnic; k++)
		for (a = 0; a < st->nic[k].naddr; a++) {
			const struct incus_addr *ad = &st->nic[k].addr[a];

			if (strcmp(ad->family, "inet") == 0 &&
			    inet_pton(AF_INET, ad->address, &ia) == 1 &&
			    (ntohl(ia.s_addr) & 0xffffff00u) == net)
				return 1;
		}
	return 0;
}

/* Running boxes on the bridge still without a lease. */
static int
leaseless(struct dh_ctx *h)
{
	struct incus_instance_list l;
	struct box_err e;
	size_t i;
	int n = 0, legacy;

	err_clear(&e);
	if (incus_instance_list(&h->c, NULL, INCUS_INST_STATE, &l, &e) < 0)
		return 0;
	for (i = 0; i < l.n; i++)
		if (box_tagged(&l.v[i], &legacy) &&
		    strcmp(l.v[i].status, "Running") == 0 &&
		    dh_box_nic(&l.v[i]) != NULL &&
		    !has_lease(&l.v[i], h->cfg_net))
			n++;
	incus_instance_list_free(&l);
	return n;
}

/*
 * A profile put back re-plugs every box's NIC: give their DHCP clients
 * up to 30 s, so the re-check judges boxes, not a re-plug in progress.
 */
static void
await_leases(struct dh_ctx *h)
{
	int i, n = 0;

	for (i = 0; i < 60 && (n = leaseless(h)) > 0; i++)
		nanosleep(&(struct timespec){ 0, 500000000 }, NULL);
	if (i > 0)
		dr_note_fixed(h->r, "the re-plugged boxes %s (waited %d s)",
		    n == 0 ? "hold their leases again" : "are still without a "
		    "lease", i / 2);
}

static int
fix_stack(struct dh_ctx *h, const struct stack_conf *sc, int *netchg,
    struct box_err *e)
{
	int changed, rc;

	if ((rc = stack_ensure_acl(&h->c, sc, &changed, e)) < 0)
		return rc;
	if (changed)
		dr_note_fixed(h->r, "ACL %s: egress rules rewritten for the "
		    "gateway %s (ingress doors kept)", STACK_ACL, h->gw);
	if ((rc = stack_ensure_network(&h->c, sc, &changed, NULL, 0, e)) < 0)
		return rc;
	*netchg = changed;
	if (changed)
		dr_note_fixed(h->r, "network %s: its box keys put back", BR);
	if ((rc = stack_ensure_profile(&h->c, &changed, e)) < 0)
		return rc;
	if (changed) {
		dr_note_fixed(h->r, "profile %s: put back (the contract's eth0 "
		    "and root disk)", STACK_PROFILE);
		await_leases(h);
	}
	return 0;
}

static int
fix_firewall(struct dh_ctx *h, const struct stack_conf *sc, struct box_err *e)
{
	struct fw_status before, after;
	struct box_err ignore;
	int rc;

	err_clear(&ignore);
	memset(&before, 0, sizeof(before));
	fw_read(BR, sc->net, &before, &ignore);
	if (before.ok)
		return 0;
	rc = fw_apply(BR, sc->net, &after, e);
	if (rc == 0)
		dr_note_fixed(h->r, "firewall: the contract's %u rules applied "
		    "and read back by content", after.held);
	return rc;
}

static int
fix_ports(struct dh_ctx *h, struct box_err *e)
{
	struct nl_sock *s;
	int i, rc = 0;

	for (i = 0; i < h->nports && rc == 0; i++) {
		if (h->ports[i].isolated == 1)
			continue;
		s = malloc(sizeof(*s));
		if (s == NULL)
			return err_set(e, -ENOMEM, "out of memory");
		rc = nl_open(s, NETLINK_ROUTE, e);
		if (rc == 0) {
			rc = brport_set_isolated(s, h->ports[i].ifindex,
			    h->ports[i].name, 1, e);
			nl_close(s);
		}
		free(s);
		if (rc == 0)
			dr_note_fixed(h->r, "port %s of %s: isolated again",
			    h->ports[i].name, BR);
	}
	return rc;
}

static int
fix_dnsmasq(struct dh_ctx *h, struct box_err *e)
{
	struct dr_dnsmasq dm;
	int pid = dh_find_dnsmasq(&dm);
	int rc;

	dh_read_kernel(h);	/* the network fixes may have moved things */
	if (pid != 0 && h->br_ifindex != 0 && h->br_up && h->live_gw != 0 &&
	    (h->cfg_net | 1) == h->live_gw && strcmp(dm.listen, h->gw) == 0)
		return 0;
	rc = restart_network(h, e);
	if (rc < 0)
		return rc;
	pid = await_dnsmasq(pid);
	if (pid == 0)
		return err_set(e, -ESRCH, "Incus restarted the network but no "
		    "dnsmasq serves %s", BR);
	dr_note_fixed(h->r, "network %s restarted through Incus: dnsmasq pid "
	    "%d serves it", BR, pid);
	return 0;
}

/* Box's resolver, when the host hands it the boxes' DNS and it does not
 * answer: started again as setup-host starts it. */
static int
fix_resolver(struct dh_ctx *h, const struct stack_conf *sc,
    struct box_err *e)
{
	const char *up[STACK_MAX_DNS];
	char why[200];
	int i, mode, skipped, rc;

	if (!sc->own_resolver ||
	    rsvd_probe(h->cfg_net | 1, 1000, why, sizeof(why)) == 1)
		return 0;
	for (i = 0; i < sc->ndns; i++)
		up[i] = sc->dns[i];
	if ((rc = rsvd_install(h->cfg_net | 1, up, sc->ndns, &mode, &skipped,
	    e)) < 0)
		return rc;
	dr_note_fixed(h->r, "box's resolver started again (%s): it answers "
	    "on %s:53", mode == RSVD_SYSTEMD ? RSVD_UNIT " restarted" :
	    "detached, no systemd here", h->gw);
	return 0;
}

/* --pin-dns: the bridge's keys as setup-host writes them, upstreams from
 * BOX_DNS (stack.c owns the raw.dnsmasq text). */
static int
pin_only(struct dh_ctx *h, const struct stack_conf *sc, struct box_err *e)
{
	char list[256] = "";
	int changed, old, rc, i;

	old = dh_find_dnsmasq(&h->dm);
	rc = stack_ensure_network(&h->c, sc, &changed, NULL, 0, e);
	if (rc < 0 || !changed)
		return rc;
	for (i = 0; i < sc->ndns; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
		    "%s%s", i ? " " : "", sc->dns[i]);
	dr_note_fixed(h->r, "network %s: upstreams pinned to %s", BR, list);
	await_dnsmasq(old);
	if (sc->own_resolver) {
		const char *up[STACK_MAX_DNS];
		int mode, skipped;

		for (i = 0; i < sc->ndns; i++)
			up[i] = sc->dns[i];
		if ((rc = rsvd_install(sc->net | 1, up, sc->ndns, &mode,
		    &skipped, e)) < 0)
			return rc;
		dr_note_fixed(h->r, "box's resolver restarted: it forwards to "
		    "%s", list);
	}
	return 0;
}

static int
run_fixes(struct dh_ctx *h, struct box_err *e)
{
	struct stack_conf sc;
	int rc, old, netchg = 0;

	if ((rc = fix_conf(h, h->o->pin_dns, &sc, e)) < 0)
		return rc;
	if (!h->o->fix)
		return pin_only(h, &sc, e);
	old = dh_find_dnsmasq(&h->dm);
	if ((rc = fix_stack(h, &sc, &netchg, e)) < 0)
		return rc;
	if (netchg)
		await_dnsmasq(old);	/* a changed key restarts it */
	if ((rc = fix_firewall(h, &sc, e)) < 0 ||
	    (rc = dh_fix_neigh(h, e)) < 0)
		return rc;
	dh_read_kernel(h);	/* a profile change re-plugs the NICs */
	if ((rc = fix_ports(h, e)) < 0)
		return rc;
	if (dh_read_network(h) < 0)
		return err_set(e, -EIO, "re-reading the network failed");
	if ((rc = fix_dnsmasq(h, e)) < 0)
		return rc;
	return fix_resolver(h, &sc, e);
}

int
dr_host_fix(struct dr_report *r, const struct dr_opts *o, struct box_err *e)
{
	struct dh_ctx h;
	int rc;

	if (dh_init(&h, r, o) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	dh_read_kernel(&h);
	rc = incus_init(&h.c, e);
	if (rc == 0) {
		rc = dh_read_network(&h);
		if (rc == 0)
			dr_note_fixed(r, "nothing to repair: there is no box "
			    "stack here (box setup-host builds one)");
		else if (rc > 0)
			rc = run_fixes(&h, e);
		/* the repairs rewrite raw.dnsmasq without the boxes' nftset
		 * lines (and the kernel's egress chain from the saved state):
		 * put both back from the boxes themselves */
		if (rc > 0 || (rc == 0 && h.net_exists))
			rc = egress_sync_if(&h.c, 0, e);
		else
			rc = err_set(e, -EIO, "reading the network %s failed",
			    BR);
	}
	dh_free(&h);
	return rc < 0 ? rc : 0;
}
