/*
 * box.c - the box boundary and reading a box (see box.h).
 */
#include "box/box.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "net/ip4.h"

int
box_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 63 || s[0] == '-' || (s[0] >= '0' && s[0] <= '9') ||
	    s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

const char *
box_config(const struct json_doc *d, int inst, const char *key, char *buf,
    size_t cap, const char *def)
{
	const char *v = json_gets(d, json_get(d, inst, "config"), key, buf,
	    cap, NULL);

	if (v != NULL || def == NULL)
		return v;
	snprintf(buf, cap, "%s", def);
	return buf;
}

int
box_is_tagged(const struct json_doc *d, int obj, int *legacy)
{
	int cfg = json_get(d, obj, "config");
	int tag = json_get(d, cfg, "user.box");
	int old = json_get(d, cfg, "user.claudebox");

	if (legacy != NULL)
		*legacy = 0;
	if (json_streq(d, tag, "1"))
		return 1;
	if (json_streq(d, old, "1")) {
		if (legacy != NULL)
			*legacy = 1;
		return 1;
	}
	return 0;
}

void
box_info_from(const struct json_doc *d, int inst, struct box_info *info)
{
	memset(info, 0, sizeof(*info));
	json_gets(d, inst, "name", info->name, sizeof(info->name), "");
	json_gets(d, inst, "status", info->status, sizeof(info->status), "");
	json_gets(d, inst, "type", info->type, sizeof(info->type), "");
	box_is_tagged(d, inst, &info->legacy);
	box_config(d, inst, "user.box.template", info->template_,
	    sizeof(info->template_), info->legacy ? "claude" : "");
	/* The stamped user; legacy boxes were all made for "claude". */
	box_config(d, inst, "user.box.user", info->user, sizeof(info->user),
	    info->legacy ? "claude" : "root");
	info->running = strcmp(info->status, "Running") == 0 ||
	    strcmp(info->status, "Ready") == 0;
}

int
box_fetch(struct incus *c, const char *name, int recursion,
    struct incus_reply *r, struct box_info *info, struct box_err *e)
{
	char path[160];
	int rc;

	if (!box_name_ok(name))
		return err_usage(e, "'%s' is not a box name (letters, digits "
		    "and hyphens, at most 63)", name);
	snprintf(path, sizeof(path), "/1.0/instances/%s%s", name,
	    recursion ? "?recursion=1" : "");
	rc = incus_call(c, "GET", path, NULL, r, e);
	if (rc == -ENOENT) {
		err_clear(e);
		err_set(e, -ENOENT, "no such box: %s", name);
		err_fix(e, "see: box list");
		return rc;
	}
	if (rc < 0) {
		err_context(e, "looking up %s", name);
		return rc;
	}
	if (json_type(&r->doc, r->metadata) != JSON_OBJECT) {
		incus_reply_free(r);
		return err_set(e, -EBOX_PROTO, "the daemon sent no instance "
		    "for %s", name);
	}
	if (!box_is_tagged(&r->doc, r->metadata, NULL)) {
		incus_reply_free(r);
		err_set(e, -EBOX_NOTBOX, "%s is an Incus instance that box did "
		    "not mint — box leaves it alone", name);
		err_fix(e, "manage it with the incus client; box only touches "
		    "instances tagged user.box=1");
		return -EBOX_NOTBOX;
	}
	if (info != NULL)
		box_info_from(&r->doc, r->metadata, info);
	return 0;
}

int
box_resolve(struct incus *c, const char *name, struct box_info *info,
    struct box_err *e)
{
	struct incus_reply r;
	int rc = box_fetch(c, name, 0, &r, info, e);

	if (rc == 0)
		incus_reply_free(&r);
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

/* Does any NIC of the instance sit on bridge ifname with a subnet holding a? */
static int
on_box_bridge(const struct json_doc *d, int inst,
    const struct box_subnets *sn, unsigned int a)
{
	int devs = json_get(d, inst, "expanded_devices"), k, i;
	char type[16], net[64];

	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k))) {
		int dev = json_next(d, k);

		if (strcmp(json_gets(d, dev, "type", type, sizeof(type), ""),
		    "nic") != 0)
			continue;
		if (json_gets(d, dev, "network", net, sizeof(net), NULL) == NULL &&
		    json_gets(d, dev, "parent", net, sizeof(net), NULL) == NULL)
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
box_address(const struct json_doc *d, int inst, const struct box_subnets *sn,
    char *buf, size_t cap)
{
	int nets = json_path(d, inst, "state.network"), k, ad;
	char addr[64], only[64] = "";
	int globals = 0;

	snprintf(buf, cap, "-");
	for (k = json_child(d, nets); k >= 0; k = json_next(d, json_next(d, k))) {
		int list = json_get(d, json_next(d, k), "addresses");

		if (json_streq(d, k, "lo"))
			continue;
		for (ad = json_child(d, list); ad >= 0; ad = json_next(d, ad)) {
			struct in_addr ia;
			char fam[16], scope[16];

			if (strcmp(json_gets(d, ad, "family", fam, sizeof(fam),
			    ""), "inet") != 0 ||
			    strcmp(json_gets(d, ad, "scope", scope,
			    sizeof(scope), ""), "global") != 0 ||
			    json_gets(d, ad, "address", addr, sizeof(addr),
			    NULL) == NULL || inet_pton(AF_INET, addr, &ia) != 1)
				continue;
			if (sn != NULL &&
			    on_box_bridge(d, inst, sn, ntohl(ia.s_addr))) {
				snprintf(buf, cap, "%s", addr);
				return;
			}
			if (globals++ == 0)
				snprintf(only, sizeof(only), "%s", addr);
		}
	}
	if (globals == 1)
		snprintf(buf, cap, "%s", only);
}
