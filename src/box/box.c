/*
 * box.c - the box boundary and reading a box (see box.h).
 */
#include "box/box.h"
#include "box/place.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/remote/remote.h"
#include "model/names.h"
#include "net/ip4.h"

int
box_name_check(const char *name, const char *whence, struct box_err *e)
{
	if (box_name_ok(name))
		return 0;
	return err_usage(e, "'%s' is not a valid box name (" BOX_NAME_RULE
	    ")%s", name, whence);
}

int
box_resolve(struct incus *c, const char *name, struct box_info *info,
    struct box_err *e)
{
	struct incus_instance in;
	int rc = box_get(c, name, 0, &in, info, e);

	if (rc == 0)
		incus_instance_free(&in);
	return rc;
}

int
box_subnets_read(struct box_subnets *sn)
{
	struct ip4_picture *w;
	struct box_err e;
	const char *name;
	size_t i;
	int rc;

	sn->n = 0;
	if (remote_active())
		return 0;	/* this host's bridges are not the daemon's */
	err_clear(&e);
	if ((rc = ip4_read(&w, &e)) < 0)
		return rc;
	for (i = 0; i < w->naddr && sn->n < BOX_MAX_SUBNETS; i++) {
		unsigned plen = w->addr[i].prefixlen;

		name = ip4_ifname(w, w->addr[i].ifindex, w->addr[i].label);
		if (name[0] == '\0' || strlen(name) >= sizeof(sn->s[0].ifname))
			continue;
		snprintf(sn->s[sn->n].ifname, sizeof(sn->s[0].ifname), "%s",
		    name);
		sn->s[sn->n].addr = ntohl(w->addr[i].addr.s_addr);
		sn->s[sn->n].mask = plen == 0 ? 0 : 0xffffffffu << (32 - plen);
		sn->n++;
	}
	ip4_free(w);
	return 0;
}



int
box_tagged(const struct incus_instance *in, int *legacy)
{
	const char *tag = incus_kv_get(&in->config, BOX_TAG);
	const char *old = incus_kv_get(&in->config, CONTRACT_LEGACY_TAG);

	if (legacy != NULL)
		*legacy = 0;
	if (tag != NULL && strcmp(tag, BOX_TAG_VALUE) == 0)
		return 1;
	if (old != NULL && strcmp(old, BOX_TAG_VALUE) == 0) {
		if (legacy != NULL)
			*legacy = 1;
		return 1;
	}
	return 0;
}

void
box_info_of(const struct incus_instance *in, struct box_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", in->name);
	snprintf(info->status, sizeof(info->status), "%s", in->status);
	snprintf(info->type, sizeof(info->type), "%s", in->type);
	/* standalone daemons say "none" (or nothing) */
	snprintf(info->member, sizeof(info->member), "%s",
	    strcmp(in->location, "none") == 0 ? "" : in->location);
	if (strspn(info->member, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
	    "QRSTUVWXYZ0123456789.-_") != strlen(info->member))
		snprintf(info->member, sizeof(info->member), "?");
	box_tagged(in, &info->legacy);
	snprintf(info->template_, sizeof(info->template_), "%s",
	    incus_kv_or(&in->config, "user.box.template", info->legacy ?
	    "claude" : ""));
	/* The stamped user; legacy boxes were all made for "claude". */
	snprintf(info->user, sizeof(info->user), "%s",
	    incus_kv_or(&in->config, "user.box.user", info->legacy ?
	    "claude" : "root"));
	info->running = box_runs(in);
	{
		const char *o = incus_kv_get(&in->config, "user.box.owner");
		char *end;

		info->owner = -1;
		if (o != NULL && *o >= '0' && *o <= '9' && strlen(o) < 11) {
			info->owner = strtol(o, &end, 10);
			if (*end != '\0')
				info->owner = -1;
		}
	}
}

int
box_runs(const struct incus_instance *in)
{
	if (in->status_code != 0)
		return in->status_code == BOX_CODE_RUNNING ||
		    in->status_code == BOX_CODE_READY;
	return strcmp(in->status, "Running") == 0 ||
	    strcmp(in->status, "Ready") == 0;
}

int
box_get(struct incus *c, const char *name, unsigned flags,
    struct incus_instance *inst, struct box_info *info, struct box_err *e)
{
	int rc;

	memset(inst, 0, sizeof(*inst));
	if ((rc = box_name_check(name, "", e)) < 0)
		return rc;
	rc = incus_instance_get(c, name, flags, inst, e);
	if (rc == -ENOENT) {
		err_clear(e);
		err_set(e, -ENOENT, "no such box: %s", name);
		err_fix(e, "see: box list");
		return rc;
	}
	if (rc == -EBADMSG) {
		err_clear(e);
		return err_set(e, -EBOX_PROTO, "the daemon sent no instance "
		    "for %s", name);
	}
	if (rc < 0) {
		err_context(e, "looking up %s", name);
		box_place_why(c, name, e);
		return rc;
	}
	if (!box_tagged(inst, NULL)) {
		incus_instance_free(inst);
		err_set(e, -EBOX_NOTBOX, "%s is an Incus instance that box did "
		    "not mint — box leaves it alone", name);
		err_fix(e, "manage it with the incus client; box only touches "
		    "instances tagged user.box=1");
		return -EBOX_NOTBOX;
	}
	if (info != NULL)
		box_info_of(inst, info);
	return 0;
}

/* Does any NIC of the instance sit on bridge ifname with a subnet holding a? */
static int
on_box_bridge_of(const struct incus_instance *in,
    const struct box_subnets *sn, unsigned int a)
{
	size_t k;
	int i;

	for (k = 0; k < in->expanded_devices.n; k++) {
		const struct incus_kvs *dev = &in->expanded_devices.v[k].kv;
		const char *type = incus_kv_or(dev, "type", "");
		const char *net = incus_kv_get(dev, "network");

		if (net == NULL)
			net = incus_kv_get(dev, "parent");
		if (strcmp(type, "nic") != 0 || net == NULL)
			continue;
		for (i = 0; i < sn->n; i++)
			if (strcmp(sn->s[i].ifname, net) == 0 &&
			    (a & sn->s[i].mask) ==
			    (sn->s[i].addr & sn->s[i].mask))
				return 1;
	}
	return 0;
}

void
box_address_of(const struct incus_instance *in, const struct box_subnets *sn,
    char *buf, size_t cap)
{
	const char *only = NULL;
	int globals = 0;
	size_t k, a;

	snprintf(buf, cap, "-");
	for (k = 0; k < in->state.nnic; k++) {
		const struct incus_nic_state *n = &in->state.nic[k];

		if (strcmp(n->name, "lo") == 0)
			continue;
		for (a = 0; a < n->naddr; a++) {
			const struct incus_addr *ad = &n->addr[a];
			struct in_addr ia;

			if (strcmp(ad->family, "inet") != 0 ||
			    strcmp(ad->scope, "global") != 0 ||
			    inet_pton(AF_INET, ad->address, &ia) != 1)
				continue;
			if (sn != NULL &&
			    on_box_bridge_of(in, sn, ntohl(ia.s_addr))) {
				snprintf(buf, cap, "%s", ad->address);
				return;
			}
			if (globals++ == 0)
				only = ad->address;
		}
	}
	if (globals == 1)
		snprintf(buf, cap, "%s", only);
}
