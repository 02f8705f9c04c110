/*
 * doctor_cluster.c - doctor on a member of an Incus cluster.
 *
 * Each member has its own kernel, so its firewall, resolver and port
 * bindings are its own; boxnet, the ACL and the profile are the cluster's.
 * setup-host puts a member into cluster group "box" only once its firewall
 * is read back by content, and new boxes land only on that group
 * (box/place.c).  Here the same rule is kept: a member whose firewall
 * checks FAILed above leaves the group at once (no new box lands on it),
 * and rejoins only when --fix has put the firewall back and the check
 * that follows passes.
 *
 * --members proves the contract on every member of the group from inside:
 * a short-lived probe box is minted there (--target), probed, and
 * removed.  On this member it is probed by this host's own process in
 * the box's network namespace (nothing the box says is needed); on
 * another member only the checks run inside the box can say anything, and
 * they are labelled the guest's word.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/life.h"
#include "box/life/mint.h"
#include "box/life/mint_run.h"
#include "box/life/waits.h"
#include "host/doctor/doctor_int.h"
#include "host/stack/contract.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "util/clock.h"

/* Did a check of this member's firewall FAIL above? */
static int
firewall_failed(const struct dr_report *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->f[i].status == DR_FAIL &&
		    strncmp(r->f[i].id, "firewall", 8) == 0)
			return 1;
	return 0;
}

static void
membership(struct dh_ctx *h, const struct incus_cluster *k)
{
	const struct incus_member *me = incus_cluster_member(k, k->self);
	struct box_err e;
	int fw = firewall_failed(h->r);

	err_clear(&e);
	if (me == NULL) {
		dr_add(h->r, "cluster.member", "cluster", DR_WARN, NULL,
		    "member %s is not in the daemon's member list", k->self);
		return;
	}
	if (fw && me->in_group) {
		if (incus_cluster_group_set(&h->c, CONTRACT_GROUP, me->name, 0,
		    &e) < 0)
			dr_add(h->r, "cluster.member", "cluster", DR_FAIL,
			    "box doctor --fix", "%s's firewall does not hold "
			    "the contract, and taking it out of cluster group "
			    "%s failed: %s", me->name, CONTRACT_GROUP, e.msg);
		else
			dr_add(h->r, "cluster.member", "cluster", DR_FAIL,
			    "box doctor --fix (on this member: the firewall "
			    "back, then it rejoins)", "%s's firewall does not "
			    "hold the contract: %s left cluster group %s (read "
			    "back): no new box lands here", me->name, me->name,
			    CONTRACT_GROUP);
	} else if (fw) {
		dr_add(h->r, "cluster.member", "cluster", DR_FAIL,
		    "box doctor --fix", "%s's firewall does not hold the "
		    "contract: it stays out of cluster group %s", me->name,
		    CONTRACT_GROUP);
	} else if (!me->in_group && h->o->rejoin) {
		if (incus_cluster_group_set(&h->c, CONTRACT_GROUP, me->name, 1,
		    &e) < 0)
			dr_add(h->r, "cluster.member", "cluster", DR_FAIL,
			    "box setup-host", "%s holds the contract but "
			    "rejoining cluster group %s failed: %s", me->name,
			    CONTRACT_GROUP, e.msg);
		else
			dr_add(h->r, "cluster.member", "cluster", DR_PASS, NULL,
			    "%s holds the contract (its firewall read back "
			    "above) and rejoined cluster group %s (read back)",
			    me->name, CONTRACT_GROUP);
	} else if (!me->in_group) {
		dr_add(h->r, "cluster.member", "cluster", DR_WARN,
		    "box doctor --fix (or box setup-host)", "%s is not in "
		    "cluster group %s: no box lands here", me->name,
		    CONTRACT_GROUP);
	} else {
		dr_add(h->r, "cluster.member", "cluster", DR_PASS, NULL,
		    "%s holds the contract and is in cluster group %s",
		    me->name, CONTRACT_GROUP);
	}
}

/* A probe box on member m, checked, then removed. */
static void
probe_member(struct dh_ctx *h, const struct incus_cluster *k,
    const struct incus_member *m)
{
	struct box_mint_req q;
	struct box_mint_out out;
	struct incus_instance in;
	struct box_err e;
	char name[64], subject[96], addr[48];

	snprintf(name, sizeof(name), "doctor-%s-%ld", m->name,
	    (long)getpid());
	snprintf(subject, sizeof(subject), "member %s", m->name);
	if (!box_name_ok(name))
		snprintf(name, sizeof(name), "doctor-probe-%ld",
		    (long)getpid());
	memset(&q, 0, sizeof(q));
	q.name = name;
	q.target = m->name;
	q.mode = MINT_CT;
	err_clear(&e);
	if (box_mint(&q, &out, &e) < 0) {
		dr_add(h->r, "cluster.probe", subject, DR_FAIL, NULL, "its "
		    "probe box could not be minted there: %s", e.msg);
		life_delete(&h->c, name, &e);
		return;
	}
	if (strcmp(m->name, k->self) == 0) {
		dr_add(h->r, "cluster.probe", subject, DR_INFO, NULL, "probe "
		    "box %s here: probed by this host from its network "
		    "namespace", name);
		/* Its lease first: the mint may return before the box's
		 * DHCP client has one (a busybox image's does). */
		err_clear(&e);
		if (life_wait_address(&h->c, name, clock_ms() + 20000, NULL,
		    addr, sizeof(addr), &e) < 0)
			dr_add(h->r, "cluster.probe", subject, DR_WARN, NULL,
			    "probe box %s has no address after 20 s: %s", name,
			    e.msg);
		/* the bridge's ports again: the probe box's is new */
		dh_read_kernel(h);
		if (incus_instance_get(&h->c, name, INCUS_INST_STATE, &in,
		    &e) == 0) {
			dh_check_box(h, &in);
			incus_instance_free(&in);
		} else
			dr_add(h->r, "cluster.probe", subject, DR_FAIL, NULL,
			    "its probe box could not be read: %s", e.msg);
	} else {
		dr_add(h->r, "cluster.probe", subject, DR_INFO, NULL, "probe "
		    "box %s there: its findings below are the guest's word "
		    "(another member's kernel is not this host's to read)",
		    name);
		dr_box_probe_vm(&h->c, name, h->r, h->o);
	}
	err_clear(&e);
	if (life_delete(&h->c, name, &e) < 0)
		dr_add(h->r, "cluster.probe", subject, DR_WARN, "box rm --force "
		    "<box>", "probe box %s not removed: %s", name, e.msg);
}

void
dh_check_cluster(struct dh_ctx *h)
{
	struct incus_cluster k;
	struct box_err e;
	char names[INCUS_MEMBERS_MAX * 8] = "";
	size_t i;

	err_clear(&e);
	if (incus_cluster_read(&h->c, CONTRACT_GROUP, &k, &e) < 0) {
		dr_add(h->r, "cluster", "cluster", DR_WARN, NULL, "the cluster "
		    "could not be read: %s", e.msg);
		return;
	}
	if (!k.on)
		return;
	membership(h, &k);
	if (incus_cluster_read(&h->c, CONTRACT_GROUP, &k, &e) < 0)
		return;
	for (i = 0; i < k.n; i++)
		if (k.m[i].in_group && strlen(names) + strlen(k.m[i].name) +
		    16 < sizeof(names))
			snprintf(names + strlen(names), sizeof(names) -
			    strlen(names), "%s%s%s", names[0] ? ", " : "",
			    k.m[i].name, strcmp(k.m[i].status, "Online") ?
			    " (not online)" : "");
	dr_add(h->r, "cluster.group", "cluster", DR_INFO, NULL, "member %s "
	    "of a cluster of %zu; group %s (where boxes land): %s", k.self,
	    k.n, CONTRACT_GROUP, names[0] ? names : "none");
	if (!h->o->members)
		return;
	for (i = 0; i < k.n; i++)
		if (k.m[i].in_group && strcmp(k.m[i].status, "Online") == 0)
			probe_member(h, &k, &k.m[i]);
}
