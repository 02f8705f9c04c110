/* stack.c - the Incus objects of the host stack (see stack.h). */
#include "host/stack.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/subnet.h"

#define BODY_MAX (64u << 10)

int
stack_dns_parse(const char *words, struct stack_conf *sc, struct box_err *e)
{
	const char *p = words != NULL && *words != '\0' ? words :
	    "1.1.1.1 8.8.8.8";
	unsigned char bin[16];

	sc->ndns = 0;
	while (*p != '\0') {
		char w[48];
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == 0)
			break;
		if (n >= sizeof(w) || sc->ndns == STACK_MAX_DNS)
			return err_usage(e, "BOX_DNS takes at most %d "
			    "addresses", STACK_MAX_DNS);
		memcpy(w, p, n);
		w[n] = '\0';
		if (inet_pton(AF_INET, w, bin) != 1 &&
		    inet_pton(AF_INET6, w, bin) != 1)
			return err_usage(e, "BOX_DNS: '%s' is not an IP "
			    "address", w);
		snprintf(sc->dns[sc->ndns++], sizeof(sc->dns[0]), "%s", w);
		p += n;
	}
	if (sc->ndns == 0)
		return err_usage(e, "BOX_DNS names no resolver");
	return 0;
}

static void
gateway(const struct stack_conf *sc, char *buf, size_t cap)
{
	subnet_fmt(sc->net | 1, buf, cap);
}

/*
 * raw.dnsmasq: never read the host's resolv.conf and ask only these
 * upstreams; never forward a plain name; and never register the names
 * boxes send with DHCP, or one box could look up another (dns.mode=none
 * alone stops Incus's records, not the names in the leases).
 */
static void
dnsmasq_raw(const struct stack_conf *sc, char *buf, size_t cap)
{
	size_t o;
	int i;

	o = (size_t)snprintf(buf, cap, "no-resolv\ndomain-needed\n"
	    "dhcp-ignore-names");
	for (i = 0; i < sc->ndns && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "\nserver=%s",
		    sc->dns[i]);
}

/* GET that treats 404 as "absent" (returns 0) rather than failure. */
static int
get_opt(struct incus *c, const char *path, struct incus_reply *r,
    struct box_err *e)
{
	int rc = incus_call(c, "GET", path, NULL, r, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

int
stack_bridge_net(struct incus *c, uint32_t *net, struct box_err *e)
{
	struct incus_reply r;
	char addr[48];
	unsigned a, b, d, x;
	int rc;

	*net = 0;
	rc = get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
	if (rc <= 0)
		return rc;
	json_gets(&r.doc, json_get(&r.doc, r.metadata, "config"),
	    "ipv4.address", addr, sizeof(addr), "");
	incus_reply_free(&r);
	if (sscanf(addr, "%u.%u.%u.%u/", &a, &b, &d, &x) == 4 && a < 256 &&
	    b < 256 && d < 256)
		*net = a << 24 | b << 16 | d << 8;
	return 1;
}

/* --- the ACL ----------------------------------------------------------- */

static const char *const acl_drops[] = {
	"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
	"100.64.0.0/10",
};
#define NDROPS (sizeof(acl_drops) / sizeof(acl_drops[0]))

static void
acl_egress(struct json_w *w, const struct stack_conf *sc)
{
	char gw[32];
	size_t i;

	gateway(sc, gw, sizeof(gw));
	strcat(gw, "/32");
	json_w_arr(w);
	json_w_obj(w);
	json_w_key(w, "action");
	json_w_str(w, "allow");
	json_w_key(w, "destination");
	json_w_str(w, gw);
	json_w_key(w, "state");
	json_w_str(w, "enabled");
	json_w_key(w, "description");
	json_w_str(w, "the gateway: DNS and DHCP");
	json_w_end(w, '}');
	for (i = 0; i < NDROPS; i++) {
		json_w_obj(w);
		json_w_key(w, "action");
		json_w_str(w, "drop");
		json_w_key(w, "destination");
		json_w_str(w, acl_drops[i]);
		json_w_key(w, "state");
		json_w_str(w, "enabled");
		json_w_end(w, '}');
	}
	json_w_end(w, ']');
}

/* Do the egress rules of an existing ACL equal ours, in order? */
static int
acl_matches(const struct json_doc *d, int acl, const struct stack_conf *sc)
{
	int eg = json_get(d, acl, "egress"), r = json_child(d, eg);
	char gw[32], v[64];
	size_t i;

	gateway(sc, gw, sizeof(gw));
	strcat(gw, "/32");
	if (json_count(d, eg) != (int)NDROPS + 1)
		return 0;
	for (i = 0; i <= NDROPS; i++, r = json_next(d, r)) {
		const char *want = i == 0 ? gw : acl_drops[i - 1];

		if (strcmp(json_gets(d, r, "action", v, sizeof(v), ""),
		    i == 0 ? "allow" : "drop") != 0 ||
		    strcmp(json_gets(d, r, "destination", v, sizeof(v), ""),
		    want) != 0 ||
		    strcmp(json_gets(d, r, "state", v, sizeof(v), ""),
		    "enabled") != 0 || json_get(d, r, "protocol") >= 0 ||
		    json_get(d, r, "source") >= 0)
			return 0;
	}
	return 1;
}

static int
send_json(struct incus *c, const char *method, const char *path,
    struct json_w *w, struct box_err *e)
{
	struct incus_reply r;
	char *body;
	int rc;

	rc = json_w_finish(w, &body, NULL);
	if (rc < 0)
		return err_set(e, rc, "building the request for %s", path);
	rc = incus_do(c, method, path, body, 120, &r, e);
	free(body);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
stack_ensure_acl(struct incus *c, const struct stack_conf *sc, int *changed,
    struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	const char *ingress = "[]";
	size_t ilen = 2;
	int rc, exists;

	*changed = 0;
	exists = get_opt(c, "/1.0/network-acls/" STACK_ACL, &r, e);
	if (exists < 0)
		return exists;
	if (exists && acl_matches(&r.doc, r.metadata, sc)) {
		incus_reply_free(&r);
		return 0;
	}
	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	if (!exists) {
		json_w_key(&w, "name");
		json_w_str(&w, STACK_ACL);
	} else {
		int in = json_get(&r.doc, r.metadata, "ingress");

		/* Keep the ingress rules verbatim: they are expose's doors. */
		if (json_type(&r.doc, in) == JSON_ARRAY)
			ingress = json_raw(&r.doc, in, &ilen);
	}
	json_w_key(&w, "description");
	json_w_str(&w, "box: a box reaches the internet, nothing private");
	json_w_key(&w, "egress");
	acl_egress(&w, sc);
	json_w_key(&w, "ingress");
	json_w_raw(&w, ingress, ilen);
	json_w_end(&w, '}');
	rc = send_json(c, exists ? "PUT" : "POST", exists ?
	    "/1.0/network-acls/" STACK_ACL : "/1.0/network-acls", &w, e);
	if (exists)
		incus_reply_free(&r);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the bridge ---------------------------------------------------------- */

struct kv {
	const char *k;
	char v[256];
};

static int
net_keys(const struct stack_conf *sc, struct kv *kv)
{
	char gw[32];
	int n = 0;

	gateway(sc, gw, sizeof(gw));
	kv[n].k = "security.acls";
	snprintf(kv[n++].v, sizeof(kv[0].v), STACK_ACL);
	kv[n].k = "security.acls.default.egress.action";
	snprintf(kv[n++].v, sizeof(kv[0].v), "allow");
	kv[n].k = "security.acls.default.ingress.action";
	snprintf(kv[n++].v, sizeof(kv[0].v), "drop");
	kv[n].k = "dns.mode";
	snprintf(kv[n++].v, sizeof(kv[0].v), "none");
	kv[n].k = "raw.dnsmasq";
	dnsmasq_raw(sc, kv[n++].v, sizeof(kv[0].v));
	(void)gw;
	return n;
}

/* The first key whose value differs, or NULL. */
static const char *
net_drift(const struct json_doc *d, int net, const struct stack_conf *sc)
{
	static struct kv kv[8];
	int cfg = json_get(d, net, "config"), n = net_keys(sc, kv), i;

	for (i = 0; i < n; i++) {
		int v = json_get(d, cfg, kv[i].k);

		if (!json_streq(d, v, kv[i].v))
			return kv[i].k;
	}
	return NULL;
}

static void
net_config(struct json_w *w, const struct stack_conf *sc, int create)
{
	struct kv kv[8];
	char gw[40];
	int n = net_keys(sc, kv), i;

	json_w_key(w, "config");
	json_w_obj(w);
	if (create) {
		gateway(sc, gw, sizeof(gw));
		strcat(gw, "/24");
		json_w_key(w, "ipv4.address");
		json_w_str(w, gw);
		json_w_key(w, "ipv4.nat");
		json_w_str(w, "true");
		json_w_key(w, "ipv6.address");
		json_w_str(w, "none");
	}
	for (i = 0; i < n; i++) {
		json_w_key(w, kv[i].k);
		json_w_str(w, kv[i].v);
	}
	json_w_end(w, '}');
}

int
stack_ensure_network(struct incus *c, const struct stack_conf *sc,
    int *changed, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	int exists, rc;

	*changed = 0;
	exists = get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
	if (exists < 0)
		return exists;
	if (exists) {
		const char *drift = net_drift(&r.doc, r.metadata, sc);

		incus_reply_free(&r);
		if (drift == NULL)
			return 0;
	}
	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	if (!exists) {
		json_w_key(&w, "name");
		json_w_str(&w, STACK_BRIDGE);
		json_w_key(&w, "type");
		json_w_str(&w, "bridge");
		json_w_key(&w, "description");
		json_w_str(&w, "box: the bridge boxes live on");
	}
	net_config(&w, sc, !exists);
	json_w_end(&w, '}');
	/* PATCH merges: keys box does not own stay as the admin set them. */
	rc = send_json(c, exists ? "PATCH" : "POST", exists ?
	    "/1.0/networks/" STACK_BRIDGE : "/1.0/networks", &w, e);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the profile --------------------------------------------------------- */

static int
profile_matches(const struct json_doc *d, int p)
{
	int dev = json_get(d, p, "devices"), eth, root;

	if (json_count(d, json_get(d, p, "config")) != 0 ||
	    json_count(d, dev) != 2)
		return 0;
	eth = json_get(d, dev, "eth0");
	root = json_get(d, dev, "root");
	return json_count(d, eth) == 4 &&
	    json_streq(d, json_get(d, eth, "type"), "nic") &&
	    json_streq(d, json_get(d, eth, "network"), STACK_BRIDGE) &&
	    json_streq(d, json_get(d, eth, "name"), "eth0") &&
	    json_streq(d, json_get(d, eth, "security.port_isolation"), "true") &&
	    json_count(d, root) == 3 &&
	    json_streq(d, json_get(d, root, "type"), "disk") &&
	    json_streq(d, json_get(d, root, "pool"), STACK_POOL) &&
	    json_streq(d, json_get(d, root, "path"), "/");
}

int
stack_ensure_profile(struct incus *c, int *changed, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	int exists, rc;

	*changed = 0;
	exists = get_opt(c, "/1.0/profiles/" STACK_PROFILE, &r, e);
	if (exists < 0)
		return exists;
	if (exists) {
		int ok = profile_matches(&r.doc, r.metadata);

		incus_reply_free(&r);
		if (ok)
			return 0;
	}
	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	if (!exists) {
		json_w_key(&w, "name");
		json_w_str(&w, STACK_PROFILE);
	}
	json_w_key(&w, "description");
	json_w_str(&w, "box: an isolated NIC and a root disk, nothing else");
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_end(&w, '}');
	json_w_key(&w, "devices");
	json_w_obj(&w);
	json_w_key(&w, "eth0");
	json_w_obj(&w);
	json_w_key(&w, "type");
	json_w_str(&w, "nic");
	json_w_key(&w, "network");
	json_w_str(&w, STACK_BRIDGE);
	json_w_key(&w, "name");
	json_w_str(&w, "eth0");
	/* Port isolation only: ipv4_filtering breaks boxes (see the audit). */
	json_w_key(&w, "security.port_isolation");
	json_w_str(&w, "true");
	json_w_end(&w, '}');
	json_w_key(&w, "root");
	json_w_obj(&w);
	json_w_key(&w, "type");
	json_w_str(&w, "disk");
	json_w_key(&w, "pool");
	json_w_str(&w, STACK_POOL);
	json_w_key(&w, "path");
	json_w_str(&w, "/");
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	rc = send_json(c, exists ? "PUT" : "POST", exists ?
	    "/1.0/profiles/" STACK_PROFILE : "/1.0/profiles", &w, e);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the pool -------------------------------------------------------------- */

static int
create_pool(struct incus *c, const char *driver, struct box_err *e)
{
	struct json_w w;

	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	json_w_key(&w, "name");
	json_w_str(&w, STACK_POOL);
	json_w_key(&w, "driver");
	json_w_str(&w, driver);
	json_w_key(&w, "description");
	json_w_str(&w, "box: storage for boxes");
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	return send_json(c, "POST", "/1.0/storage-pools", &w, e);
}

int
stack_ensure_pool(struct incus *c, struct stack_state *st, int *created,
    struct box_err *e)
{
	struct box_err btrfs;
	int rc;

	*created = 0;
	if (st->pool_exists)
		return 0;
	/* btrfs gives copy-on-write snapshots and clones; dir copies all. */
	err_clear(&btrfs);
	if (create_pool(c, "btrfs", &btrfs) == 0) {
		snprintf(st->pool_driver, sizeof(st->pool_driver), "btrfs");
	} else {
		rc = create_pool(c, "dir", e);
		if (rc < 0)
			return rc;
		snprintf(st->pool_driver, sizeof(st->pool_driver), "dir");
	}
	st->pool_exists = 1;
	*created = 1;
	return 0;
}

/* --- observing ------------------------------------------------------------- */

static int
observe_pool(struct incus *c, struct stack_state *st, struct box_err *e)
{
	struct incus_reply r;
	int rc = get_opt(c, "/1.0/storage-pools/" STACK_POOL, &r, e);

	if (rc <= 0)
		return rc;
	st->pool_exists = 1;
	json_gets(&r.doc, r.metadata, "driver", st->pool_driver,
	    sizeof(st->pool_driver), "?");
	incus_reply_free(&r);
	return 0;
}

static int
observe_boxes(struct incus *c, struct stack_state *st, struct box_err *e)
{
	struct incus_reply r;
	int i, rc;

	rc = incus_call(c, "GET", "/1.0/instances?recursion=1", NULL, &r, e);
	if (rc < 0)
		return rc;
	for (i = json_child(&r.doc, r.metadata); i >= 0;
	    i = json_next(&r.doc, i)) {
		int cfg = json_get(&r.doc, i, "config");

		if (json_streq(&r.doc, json_get(&r.doc, cfg, "user.box"), "1") ||
		    json_streq(&r.doc, json_get(&r.doc, cfg, "user.claudebox"),
		    "1"))
			st->boxes++;
	}
	incus_reply_free(&r);
	return 0;
}

int
stack_observe(struct incus *c, const struct stack_conf *sc,
    struct stack_state *st, struct box_err *e)
{
	struct incus_reply r;
	const char *drift;
	int rc;

	memset(st, 0, sizeof(*st));
	if ((rc = observe_pool(c, st, e)) < 0)
		return rc;
	rc = get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->net_exists = 1;
		json_gets(&r.doc, json_get(&r.doc, r.metadata, "config"),
		    "ipv4.address", st->net_addr, sizeof(st->net_addr), "");
		drift = net_drift(&r.doc, r.metadata, sc);
		st->net_keys_ok = drift == NULL;
		if (drift != NULL)
			snprintf(st->net_drift, sizeof(st->net_drift), "%s",
			    drift);
		incus_reply_free(&r);
	}
	rc = get_opt(c, "/1.0/network-acls/" STACK_ACL, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->acl_exists = 1;
		st->acl_ok = acl_matches(&r.doc, r.metadata, sc);
		st->acl_ingress = json_count(&r.doc, json_get(&r.doc,
		    r.metadata, "ingress"));
		incus_reply_free(&r);
	}
	rc = get_opt(c, "/1.0/profiles/" STACK_PROFILE, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->profile_exists = 1;
		st->profile_ok = profile_matches(&r.doc, r.metadata);
		incus_reply_free(&r);
	}
	return observe_boxes(c, st, e);
}
