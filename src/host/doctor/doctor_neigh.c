/*
 * doctor_neigh.c - the layers that hold against a hostile neighbour on the
 * bridge, each from ground truth: the port bindings (the sets of table
 * bridge box) against every instance on the bridge as Incus holds it, in
 * every project; the connection cap and the named drops as the kernel's
 * rules hold them (read by content in check_firewall, said here in words);
 * DHCP for pinned clients only, from raw.dnsmasq as the daemon holds it;
 * and the bridge's ARP sysctls from /proc.  Nothing a box says is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/doctor/doctor_int.h"
#include "host/stack/contract.h"
#include "host/stack/firewall.h"
#include "host/stack/pins.h"

#define S_NB	"neighbours"

/* The instance's NIC keys that weaken its own filter, named. */
static void
weak_nics(struct dh_ctx *h, const struct pins *p)
{
	size_t i, nweak = 0;
	char first[160] = "";

	(void)h;
	for (i = 0; i < p->n; i++) {
		if (p->v[i].port[0] == '\0' || p->v[i].addr != 0)
			continue;
		nweak++;
		if (first[0] == '\0')
			snprintf(first, sizeof(first), "%s/%s (%s)",
			    p->v[i].project, p->v[i].inst, p->v[i].nic);
	}
	if (nweak > 0)
		dr_add(h->r, "neigh.address", S_NB, DR_WARN, "box firewall sync",
		    "%zu running NIC%s on %s with no address Incus pinned or "
		    "leased, e.g. %s: its IPv4 and ARP are dropped until it "
		    "leases", nweak, nweak == 1 ? "" : "s", DH_BR, first);
}

static void
check_pins(struct dh_ctx *h)
{
	struct pins *p = malloc(sizeof(*p));
	struct pins_check c;
	struct box_err e;
	size_t i;

	err_clear(&e);
	if (p == NULL)
		return;
	if (pins_collect(&h->c, DH_BR, h->cfg_net, p, &e) < 0) {
		dr_add(h->r, "neigh.ports", S_NB, DR_WARN, NULL, "the instances "
		    "on %s could not be read from the daemon (%s): the port "
		    "bindings were not checked", DH_BR, e.msg);
		free(p);
		return;
	}
	for (i = 0; i < p->n; i++)
		if (p->v[i].conflict) {
			dr_add(h->r, "neigh.conflict", S_NB, DR_FAIL, NULL,
			    "%s/%s (%s) claims a MAC or an address another "
			    "NIC on %s claims too: neither is bound (remove "
			    "the forged one)", p->v[i].project, p->v[i].inst,
			    p->v[i].nic, DH_BR);
		}
	if (pins_check(p, &c, &e) < 0) {
		dr_add(h->r, "neigh.ports", S_NB, DR_WARN, "run box doctor as "
		    "root", "the port bindings could not be read from the "
		    "kernel (%s)", e.msg);
	} else if (c.missing == 0 && c.extra == 0) {
		dr_add(h->r, "neigh.ports", S_NB, DR_PASS, NULL, "every port of "
		    "%s is bound to its instance's pinned MAC and address "
		    "(%zu NICs, every project; %zu keys held by content)",
		    DH_BR, p->n, c.held);
	} else {
		dr_add(h->r, "neigh.ports", S_NB, DR_FAIL, "box doctor --fix",
		    "the port bindings differ from what Incus says: %zu "
		    "missing, %zu not Incus's (%s)", c.missing, c.extra,
		    c.first);
		if (dr_last(h->r) != NULL)
			dr_last(h->r)->fixable = 1;
	}
	weak_nics(h, p);
	free(p);
}

/* dhcp-ignore=tag:!known and the lease hook, in raw.dnsmasq as held. */
static void
check_dhcp(struct dh_ctx *h)
{
	const char *raw = h->cfg[K_RAW];
	static const char *const want[] = { "dhcp-ignore=tag:!known",
	    "dhcp-script=" CONTRACT_DHCP_HOOK };
	size_t i, l;
	const char *p;
	int found;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		l = strlen(want[i]);
		found = 0;
		for (p = raw; p != NULL && *p != '\0';
		    p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (strncmp(p, want[i], l) == 0 &&
			    (p[l] == '\n' || p[l] == '\0'))
				found = 1;
		if (!found) {
			dr_add(h->r, "neigh.dhcp", S_NB, DR_FAIL,
			    "box doctor --fix", "raw.dnsmasq on %s lacks '%s'%s",
			    DH_BR, want[i], i == 0 ? ": dnsmasq answers "
			    "invented MACs" : ": no lease change binds a port");
			if (dr_last(h->r) != NULL)
				dr_last(h->r)->fixable = 1;
			return;
		}
	}
	dr_add(h->r, "neigh.dhcp", S_NB, DR_PASS, NULL, "dnsmasq serves only "
	    "the MACs Incus pinned, and each lease change binds its port "
	    "again (raw.dnsmasq as the daemon holds it)");
}

static void
check_rules(struct dh_ctx *h)
{
	struct fw_status *st = malloc(sizeof(*st));
	struct box_err e;

	err_clear(&e);
	if (st == NULL)
		return;
	if (fw_read(DH_BR, h->cfg_net, st, &e) == 0 && st->ok)
		dr_add(h->r, "neigh.rules", S_NB, DR_PASS, NULL, "held by "
		    "content: DHCP with a relay address or another's chaddr "
		    "dropped, ARP answered for the gateway only, invalid "
		    "packets dropped, %u connections per box, %u named "
		    "destinations dropped (this host's uplink, the operator's "
		    "blocklist) and 168.63.129.16", st->conn_max, st->nnamed);
	free(st);
}

/* The bridge's ARP sysctls, from /proc (beside the rule, which
 * check_rules reads). */
static void
check_arp(struct dh_ctx *h)
{
	char why[300];
	struct box_err e;
	int rc;

	err_clear(&e);
	rc = fw_arp_sysctls(DH_BR, 0, why, sizeof(why), &e);
	if (rc == 1)
		dr_add(h->r, "neigh.arp", S_NB, DR_PASS, NULL, "%s: arp_ignore "
		    "and arp_announce in force (/proc/sys/net/ipv4/conf): the "
		    "kernel answers ARP there only for the gateway's address, "
		    "and asks from it", DH_BR);
	else {
		dr_add(h->r, "neigh.arp", S_NB, DR_FAIL, "box doctor --fix",
		    "%s: %s: the host answers ARP on the bridge for its other "
		    "addresses where the rule does not hold", DH_BR, rc == 0 ?
		    why : e.msg);
		{
			struct dr_finding *f = dr_last(h->r);

			if (f != NULL)
				f->fixable = 1;
		}
	}
}

void
dh_check_neigh(struct dh_ctx *h)
{
	if (h->cfg_net == 0)
		return;
	check_dhcp(h);
	check_rules(h);
	check_arp(h);
	check_pins(h);
}

int
dh_fix_neigh(struct dh_ctx *h, struct box_err *e)
{
	struct pins_result r;
	int rc;

	char why[300];

	if (h->cfg_net == 0)
		return 0;
	if (fw_arp_sysctls(DH_BR, 0, why, sizeof(why), e) == 0) {
		if ((rc = fw_arp_sysctls(DH_BR, 1, why, sizeof(why), e)) < 0)
			return rc;
		dr_note_fixed(h->r, "%s: arp_ignore and arp_announce set again",
		    DH_BR);
	}
	err_clear(e);
	if ((rc = pins_sync(&h->c, DH_BR, h->cfg_net, &r, e)) == 0)
		dr_note_fixed(h->r, "ports: %zu of %zu NICs on %s bound to "
		    "their pinned MAC, %zu to their address", r.bound, r.nic,
		    DH_BR, r.pinned);
	return rc;
}
