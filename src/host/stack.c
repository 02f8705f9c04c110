/* stack.c - the Incus objects of the host stack (see stack.h). */
#include "host/stack.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/egress_fw.h"
#include "host/subnet.h"

#define BODY_MAX (64u << 10)
#define RAW_DNSMASQ_MAX (512u << 10)

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

/* raw.dnsmasq for sc, from the contract's lines. */
static void
dnsmasq_raw(const struct stack_conf *sc, char *buf, size_t cap)
{
	const char *srv[STACK_MAX_DNS];
	int i;

	for (i = 0; i < sc->ndns; i++)
		srv[i] = sc->dns[i];
	if (contract_dnsmasq(srv, sc->ndns, buf, cap) < 0)
		buf[0] = '\0';		/* never matches: converge reports it */
}

int
stack_bridge_net(struct incus *c, uint32_t *net, struct box_err *e)
{
	struct incus_reply r;
	char addr[48];
	unsigned a, b, d, x;
	int rc;

	*net = 0;
	rc = incus_get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
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

/* A rule key that narrows the rule: absent, or "", is none. */
static int
json_absent_or_empty(const struct json_doc *d, int obj, const char *key)
{
	int v = json_get(d, obj, key);

	return v < 0 || json_streq(d, v, "");
}

/* The destination of contract ACL rule i: a CIDR, or the gateway /32. */
static void
acl_dest(const struct stack_conf *sc, size_t i, char *buf, size_t cap)
{
	if (contract_acl_egress[i].destination != NULL) {
		snprintf(buf, cap, "%s", contract_acl_egress[i].destination);
		return;
	}
	gateway(sc, buf, cap);
	if (strlen(buf) + 4 < cap)
		strcat(buf, "/32");
}

static void
acl_egress(struct json_w *w, const struct stack_conf *sc)
{
	char dest[48];
	size_t i;

	json_w_arr(w);
	for (i = 0; i < contract_nacl_egress; i++) {
		acl_dest(sc, i, dest, sizeof(dest));
		json_w_obj(w);
		json_w_key(w, "action");
		json_w_str(w, contract_acl_egress[i].action);
		json_w_key(w, "destination");
		json_w_str(w, dest);
		json_w_key(w, "state");
		json_w_str(w, "enabled");
		if (contract_acl_egress[i].description != NULL) {
			json_w_key(w, "description");
			json_w_str(w, contract_acl_egress[i].description);
		}
		json_w_end(w, '}');
	}
	json_w_end(w, ']');
}

/* Do the egress rules of an existing ACL equal the contract's, in order? */
static int
acl_matches(const struct json_doc *d, int acl, const struct stack_conf *sc)
{
	int eg = json_get(d, acl, "egress"), r = json_child(d, eg);
	char want[48], v[64];
	size_t i;

	if (json_count(d, eg) != (int)contract_nacl_egress)
		return 0;
	for (i = 0; i < contract_nacl_egress; i++, r = json_next(d, r)) {
		acl_dest(sc, i, want, sizeof(want));
		if (strcmp(json_gets(d, r, "action", v, sizeof(v), ""),
		    contract_acl_egress[i].action) != 0 ||
		    strcmp(json_gets(d, r, "destination", v, sizeof(v), ""),
		    want) != 0 ||
		    strcmp(json_gets(d, r, "state", v, sizeof(v), ""),
		    "enabled") != 0 || !json_absent_or_empty(d, r, "protocol") ||
		    !json_absent_or_empty(d, r, "source") ||
		    !json_absent_or_empty(d, r, "destination_port") ||
		    !json_absent_or_empty(d, r, "icmp_type"))
			return 0;
	}
	return 1;
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
	exists = incus_get_opt(c, "/1.0/network-acls/" STACK_ACL, &r, e);
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
	rc = incus_send_json(c, exists ? "PUT" : "POST", exists ?
	    "/1.0/network-acls/" STACK_ACL : "/1.0/network-acls", &w, 120, e);
	if (exists)
		incus_reply_free(&r);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the bridge ---------------------------------------------------------- */

/* The value the contract wants for bridge key k. */
static void
bridge_want(const struct contract_key *k, const struct stack_conf *sc,
    char *buf, size_t cap)
{
	switch (k->how) {
	case CV_GATEWAY_CIDR:
		gateway(sc, buf, cap);
		if (strlen(buf) + 4 < cap)
			strcat(buf, "/24");
		break;
	case CV_DNSMASQ:
		dnsmasq_raw(sc, buf, cap);
		break;
	default:
		snprintf(buf, cap, "%s", k->value);
	}
}

/* raw.dnsmasq equal to want but for its nftset= lines, which are the
 * boxes' egress policies (host/egress_host.c keeps them). */
static int
dnsmasq_same(const struct json_doc *d, int cfg, const char *want)
{
	char *had = malloc(RAW_DNSMASQ_MAX), *fixed = malloc(RAW_DNSMASQ_MAX);
	int same;

	if (had == NULL || fixed == NULL) {
		free(had);
		free(fixed);
		return 0;
	}
	json_gets(d, cfg, "raw.dnsmasq", had, RAW_DNSMASQ_MAX, "");
	egfw_dnsmasq_strip(had, fixed, RAW_DNSMASQ_MAX);
	same = strcmp(fixed, want) == 0;
	free(had);
	free(fixed);
	return same;
}

/*
 * Every contract key whose value differs, appended to drift as
 * "key (was 'old')"; the number of them.  *readdress is set when the
 * bridge's own address differs (that one is never changed).
 */
static int
net_drift(const struct json_doc *d, int net, const struct stack_conf *sc,
    char *drift, size_t cap, int *readdress)
{
	int cfg = json_get(d, net, "config"), n = 0;
	char want[512], had[96];
	size_t i, o = 0;

	if (cap > 0)
		drift[0] = '\0';
	*readdress = 0;
	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];
		int v = json_get(d, cfg, k->key);

		bridge_want(k, sc, want, sizeof(want));
		if (json_streq(d, v, want) || (k->how == CV_DNSMASQ &&
		    dnsmasq_same(d, cfg, want)))
			continue;
		if (k->how == CV_GATEWAY_CIDR) {
			*readdress = 1;
			continue;
		}
		json_gets(d, cfg, k->key, had, sizeof(had), "");
		for (char *p = had; *p; p++)	/* one line per key */
			if (*p == '\n')
				*p = ' ';
		if (o < cap)
			o += (size_t)snprintf(drift + o, cap - o, "%s%s "
			    "(was %s%s%s)", n ? ", " : "", k->key,
			    v < 0 ? "unset" : "'", v < 0 ? "" : had,
			    v < 0 ? "" : "'");
		n++;
	}
	if (o >= cap && cap > 4)
		memcpy(drift + cap - 4, "...", 4);
	return n;
}

static void
net_config(struct json_w *w, const struct stack_conf *sc, int create)
{
	char want[512];
	size_t i;

	json_w_key(w, "config");
	json_w_obj(w);
	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];

		if (k->how == CV_GATEWAY_CIDR && !create)
			continue;	/* never re-addressed */
		bridge_want(k, sc, want, sizeof(want));
		json_w_key(w, k->key);
		json_w_str(w, want);
	}
	json_w_end(w, '}');
}

int
stack_ensure_network(struct incus *c, const struct stack_conf *sc,
    int *changed, char *corrected, size_t cap, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	char drift[512];
	int exists, rc, readdress = 0;

	*changed = 0;
	if (corrected != NULL && cap > 0)
		corrected[0] = '\0';
	exists = incus_get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
	if (exists < 0)
		return exists;
	if (exists) {
		int n = net_drift(&r.doc, r.metadata, sc, drift,
		    sizeof(drift), &readdress);

		incus_reply_free(&r);
		if (readdress)
			return err_set(e, -EEXIST, "the bridge %s exists on "
			    "another subnet than the one decided; box never "
			    "re-addresses a bridge", STACK_BRIDGE);
		if (n == 0)
			return 0;
		if (corrected != NULL)
			snprintf(corrected, cap, "%s", drift);
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
	rc = incus_send_json(c, exists ? "PATCH" : "POST", exists ?
	    "/1.0/networks/" STACK_BRIDGE : "/1.0/networks", &w, 120, e);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the profile --------------------------------------------------------- */

/* Does device dev hold exactly the contract keys kv[0..n)? */
static int
device_exact(const struct json_doc *d, int dev, const struct contract_key *kv,
    size_t n)
{
	size_t i;

	if (json_count(d, dev) != (int)n)
		return 0;
	for (i = 0; i < n; i++)
		if (!json_streq(d, json_get(d, dev, kv[i].key), kv[i].value))
			return 0;
	return 1;
}

static int
profile_matches(const struct json_doc *d, int p)
{
	int dev = json_get(d, p, "devices");

	return json_count(d, json_get(d, p, "config")) == 0 &&
	    json_count(d, dev) == 2 &&
	    device_exact(d, json_get(d, dev, CONTRACT_NIC), contract_nic_keys,
	    contract_nnic_keys) &&
	    device_exact(d, json_get(d, dev, "root"), contract_root_keys,
	    contract_nroot_keys);
}

static void
device_json(struct json_w *w, const char *name, const struct contract_key *kv,
    size_t n)
{
	size_t i;

	json_w_key(w, name);
	json_w_obj(w);
	for (i = 0; i < n; i++) {
		json_w_key(w, kv[i].key);
		json_w_str(w, kv[i].value);
	}
	json_w_end(w, '}');
}

int
stack_ensure_profile(struct incus *c, int *changed, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	int exists, rc;

	*changed = 0;
	exists = incus_get_opt(c, "/1.0/profiles/" STACK_PROFILE, &r, e);
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
	json_w_str(&w, "box: an isolated, filtered NIC and a root disk, "
	    "nothing else");
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_end(&w, '}');
	json_w_key(&w, "devices");
	json_w_obj(&w);
	device_json(&w, CONTRACT_NIC, contract_nic_keys, contract_nnic_keys);
	device_json(&w, "root", contract_root_keys, contract_nroot_keys);
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	rc = incus_send_json(c, exists ? "PUT" : "POST", exists ?
	    "/1.0/profiles/" STACK_PROFILE : "/1.0/profiles", &w, 120, e);
	if (rc == 0)
		*changed = 1;
	return rc;
}

int
stack_profile_check(struct incus *c, int *exists, int *ok, struct box_err *e)
{
	struct incus_reply r;
	int rc;

	*ok = 0;
	rc = incus_get_opt(c, "/1.0/profiles/" STACK_PROFILE, &r, e);
	*exists = rc > 0;
	if (rc <= 0)
		return rc;
	*ok = profile_matches(&r.doc, r.metadata);
	incus_reply_free(&r);
	return 0;
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
	return incus_send_json(c, "POST", "/1.0/storage-pools", &w, 120, e);
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
	int rc = incus_get_opt(c, "/1.0/storage-pools/" STACK_POOL, &r, e);

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
stack_vm_doors(struct incus *c, struct box_err *e)
{
	struct incus_reply r;
	int i, d, n = 0, rc;

	rc = incus_call(c, "GET", "/1.0/instances?recursion=1", NULL, &r, e);
	if (rc < 0)
		return rc;
	for (i = json_child(&r.doc, r.metadata); i >= 0;
	    i = json_next(&r.doc, i)) {
		if (!json_streq(&r.doc, json_get(&r.doc, i, "type"),
		    "virtual-machine"))
			continue;
		for (d = json_child(&r.doc, json_get(&r.doc, i, "devices"));
		    d >= 0; d = json_next(&r.doc, d))
			if (json_streq(&r.doc, json_get(&r.doc, d, "type"),
			    "proxy") &&
			    json_streq(&r.doc, json_get(&r.doc, d, "nat"),
			    "true"))
				n++;
	}
	incus_reply_free(&r);
	return n;
}

int
stack_observe(struct incus *c, const struct stack_conf *sc,
    struct stack_state *st, struct box_err *e)
{
	struct incus_reply r;
	int rc, readdress;

	memset(st, 0, sizeof(*st));
	if ((rc = observe_pool(c, st, e)) < 0)
		return rc;
	rc = incus_get_opt(c, "/1.0/networks/" STACK_BRIDGE, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->net_exists = 1;
		json_gets(&r.doc, json_get(&r.doc, r.metadata, "config"),
		    "ipv4.address", st->net_addr, sizeof(st->net_addr), "");
		st->net_keys_ok = net_drift(&r.doc, r.metadata, sc,
		    st->net_drift, sizeof(st->net_drift), &readdress) == 0 &&
		    !readdress;
		if (readdress)
			snprintf(st->net_drift, sizeof(st->net_drift),
			    "ipv4.address is not the decided subnet's");
		incus_reply_free(&r);
	}
	rc = incus_get_opt(c, "/1.0/network-acls/" STACK_ACL, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->acl_exists = 1;
		st->acl_ok = acl_matches(&r.doc, r.metadata, sc);
		st->acl_ingress = json_count(&r.doc, json_get(&r.doc,
		    r.metadata, "ingress"));
		incus_reply_free(&r);
	}
	rc = incus_get_opt(c, "/1.0/profiles/" STACK_PROFILE, &r, e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		st->profile_exists = 1;
		st->profile_ok = profile_matches(&r.doc, r.metadata);
		incus_reply_free(&r);
	}
	return observe_boxes(c, st, e);
}

int
stack_patch_dnsmasq(struct incus *c, const char *raw, struct box_err *e)
{
	struct json_w w;

	json_w_init(&w, 6 * strlen(raw) + 256);	/* worst escaping */
	json_w_obj(&w);
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_key(&w, "raw.dnsmasq");
	json_w_str(&w, raw);
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	return incus_send_json(c, "PATCH", "/1.0/networks/" STACK_BRIDGE, &w,
	    120, e);
}
