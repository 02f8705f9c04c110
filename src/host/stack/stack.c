/* stack.c - the Incus objects of the host stack (see stack.h). */
#include "host/stack/stack.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/bridge.h"
#include "box/egress/egress_fw.h"
#include "box/remote/profile.h"
#include "host/stack/subnet.h"
#include "incus/acl.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/storage.h"
#include "model/ip4text.h"

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

int
stack_resolver_parse(const char *word, struct stack_conf *sc,
    struct box_err *e)
{
	if (word == NULL || *word == '\0' || strcmp(word, "box") == 0)
		sc->own_resolver = 1;
	else if (strcmp(word, "dnsmasq") == 0)
		sc->own_resolver = 0;
	else
		return err_usage(e, "BOX_RESOLVER is box or dnsmasq, not '%s'",
		    word);
	return 0;
}

static void
gateway(const struct stack_conf *sc, char *buf, size_t cap)
{
	ip4_fmt(sc->net | 1, buf, cap);
}

/* raw.dnsmasq for sc, from the contract's lines. */
static void
dnsmasq_raw(const struct stack_conf *sc, char *buf, size_t cap)
{
	const char *srv[STACK_MAX_DNS];
	int i;

	for (i = 0; i < sc->ndns; i++)
		srv[i] = sc->dns[i];
	if (contract_dnsmasq(srv, sc->ndns, buf, cap) < 0) {
		buf[0] = '\0';		/* never matches: converge reports it */
		return;
	}
	for (i = 0; sc->own_resolver &&
	    (size_t)i < contract_nresolver_dnsmasq_lines; i++)
		if (strlen(buf) + strlen(contract_resolver_dnsmasq_lines[i]) +
		    2 > cap)
			buf[0] = '\0';
		else
			snprintf(buf + strlen(buf), cap - strlen(buf), "\n%s",
			    contract_resolver_dnsmasq_lines[i]);
}

/* --- the ACL ----------------------------------------------------------- */

/* A rule member that narrows the rule: absent, or "", is none. */
static int
absent_or_empty(const char *v)
{
	return v == NULL || *v == '\0';
}

static int
same(const char *v, const char *want)
{
	return v != NULL && strcmp(v, want) == 0;
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

/* The contract's egress rules for sc, in order. */
static int
acl_egress(struct incus_acl_rules *l, const struct stack_conf *sc)
{
	char dest[48];
	size_t i;
	int rc;

	for (i = 0; i < contract_nacl_egress; i++) {
		struct incus_acl_rule r = {
			.action = (char *)contract_acl_egress[i].action,
			.destination = dest,
			.state = "enabled",
			.description =
			    (char *)contract_acl_egress[i].description,
		};

		acl_dest(sc, i, dest, sizeof(dest));
		if ((rc = incus_acl_rule_add(l, &r)) < 0)
			return rc;
	}
	return 0;
}

/* Do the egress rules of an existing ACL equal the contract's, in order? */
static int
acl_matches(const struct incus_acl *a, const struct stack_conf *sc)
{
	char want[48];
	size_t i;

	if (a->egress.n != contract_nacl_egress)
		return 0;
	for (i = 0; i < contract_nacl_egress; i++) {
		const struct incus_acl_rule *r = &a->egress.v[i];

		acl_dest(sc, i, want, sizeof(want));
		if (!same(r->action, contract_acl_egress[i].action) ||
		    !same(r->destination, want) ||
		    !same(r->state, "enabled") ||
		    !absent_or_empty(r->protocol) ||
		    !absent_or_empty(r->source) ||
		    !absent_or_empty(r->destination_port) ||
		    !absent_or_empty(r->icmp_type))
			return 0;
	}
	return 1;
}

/* The ACL: 1 with a filled, 0 when there is none (e cleared), or -errno. */
static int
acl_get(struct incus *c, struct incus_acl *a, struct box_err *e)
{
	int rc = incus_acl_get(c, STACK_ACL, a, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

int
stack_ensure_acl(struct incus *c, const struct stack_conf *sc, int *changed,
    struct box_err *e)
{
	struct incus_acl had, want = {
		.name = STACK_ACL,
		.description = "box: a box reaches the internet, nothing "
		    "private",
	};
	int rc, exists;

	*changed = 0;
	exists = acl_get(c, &had, e);
	if (exists < 0)
		return exists;
	if (exists && acl_matches(&had, sc)) {
		incus_acl_free(&had);
		return 0;
	}
	rc = acl_egress(&want.egress, sc);
	if (rc < 0)
		rc = err_set(e, rc, "out of memory");
	else if (exists)
		/* Keep the ingress rules as they are: they are expose's doors. */
		rc = incus_acl_put(c, STACK_ACL, &(struct incus_acl){
		    .description = want.description, .egress = want.egress,
		    .ingress = had.ingress }, e);
	else
		rc = incus_acl_create(c, &want, e);
	incus_acl_rules_free(&want.egress);
	if (exists)
		incus_acl_free(&had);
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
 * boxes' egress policies (box/egress/egress_sync.c keeps them). */
static int
dnsmasq_same(const struct incus_kvs *cfg, const char *want)
{
	char *fixed = malloc(RAW_DNSMASQ_MAX);
	int eq;

	if (fixed == NULL)
		return 0;
	egfw_dnsmasq_strip(incus_kv_or(cfg, "raw.dnsmasq", ""), fixed,
	    RAW_DNSMASQ_MAX);
	eq = strcmp(fixed, want) == 0;
	free(fixed);
	return eq;
}

/*
 * Every contract key whose value differs, appended to drift as
 * "key (was 'old')"; the number of them.  *readdress is set when the
 * bridge's own address differs (that one is never changed).
 */
static int
net_drift(const struct incus_network *net, const struct stack_conf *sc,
    char *drift, size_t cap, int *readdress)
{
	const struct incus_kvs *cfg = &net->config;
	int n = 0;
	char want[512], had[96];
	size_t i, o = 0;

	if (cap > 0)
		drift[0] = '\0';
	*readdress = 0;
	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];
		const char *v = incus_kv_get(cfg, k->key);

		bridge_want(k, sc, want, sizeof(want));
		if (same(v, want) || (k->how == CV_DNSMASQ &&
		    dnsmasq_same(cfg, want)))
			continue;
		if (k->how == CV_GATEWAY_CIDR) {
			*readdress = 1;
			continue;
		}
		snprintf(had, sizeof(had), "%s", v ? v : "");
		for (char *p = had; *p; p++)	/* one line per key */
			if (*p == '\n')
				*p = ' ';
		if (o < cap)
			o += (size_t)snprintf(drift + o, cap - o, "%s%s "
			    "(was %s%s%s)", n ? ", " : "", k->key,
			    v == NULL ? "unset" : "'", v == NULL ? "" : had,
			    v == NULL ? "" : "'");
		n++;
	}
	if (o >= cap && cap > 4)
		memcpy(drift + cap - 4, "...", 4);
	return n;
}

static int
net_config(struct incus_kvs *cfg, const struct stack_conf *sc, int create)
{
	char want[512];
	size_t i;
	int rc;

	for (i = 0; i < contract_nbridge_keys; i++) {
		const struct contract_key *k = &contract_bridge_keys[i];

		if (k->how == CV_GATEWAY_CIDR && !create)
			continue;	/* never re-addressed */
		bridge_want(k, sc, want, sizeof(want));
		if ((rc = incus_kv_set(cfg, k->key, want)) < 0)
			return rc;
	}
	return 0;
}

int
stack_ensure_network(struct incus *c, const struct stack_conf *sc,
    int *changed, char *corrected, size_t cap, struct box_err *e)
{
	struct incus_network had, want = {
		.name = STACK_BRIDGE,
		.type = "bridge",
		.description = "box: the bridge boxes live on",
	};
	char drift[512];
	int exists, rc, readdress = 0;

	*changed = 0;
	if (corrected != NULL && cap > 0)
		corrected[0] = '\0';
	exists = bridge_get(c, &had, e);
	if (exists < 0)
		return exists;
	if (exists) {
		int n = net_drift(&had, sc, drift, sizeof(drift), &readdress);

		incus_network_free(&had);
		if (readdress)
			return err_set(e, -EEXIST, "the bridge %s exists on "
			    "another subnet than the one decided; box never "
			    "re-addresses a bridge", STACK_BRIDGE);
		if (n == 0)
			return 0;
		if (corrected != NULL)
			snprintf(corrected, cap, "%s", drift);
	}
	rc = net_config(&want.config, sc, !exists);
	if (rc < 0)
		rc = err_set(e, rc, "out of memory");
	else if (exists)
		/* PATCH merges: keys box does not own stay as the admin set
		 * them. */
		rc = incus_network_patch(c, STACK_BRIDGE, &want.config, e);
	else if ((rc = incus_cluster_pending(c, 0, STACK_BRIDGE,
	    "bridge", NULL, NULL, e)) >= 0)
		/* on a cluster, each member's part is pending by now */
		rc = incus_network_create(c, &want, e);
	incus_kv_free(&want.config);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- the profile --------------------------------------------------------- */

/* Device name with exactly the contract keys kv[0..n), added to d. */
static int
device_add(struct incus_devices *d, const char *name,
    const struct contract_key *kv, size_t n, const char *pool)
{
	struct incus_kvs m = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = incus_kv_set(&m, kv[i].key, kv[i].how == CV_POOL ?
		    pool : kv[i].value);
	if (rc == 0)
		rc = incus_dev_set(d, name, &m);
	incus_kv_free(&m);
	return rc;
}

int
stack_profile_pool(struct incus *c, char *pool, size_t cap, struct box_err *e)
{
	struct incus_profile p;
	const char *root;
	int rc;

	pool[0] = '\0';
	if ((rc = profile_get(c, &p, e)) <= 0)
		return rc;
	root = incus_dev_key(&p.devices, "root", "pool");
	if (root != NULL && strlen(root) < cap)
		snprintf(pool, cap, "%s", root);
	incus_profile_free(&p);
	return pool[0] != '\0';
}

int
stack_ensure_profile(struct incus *c, int *changed, struct box_err *e)
{
	char pool[64];
	int rc;

	/* Keep the pool it names; else box's own pool, else Incus's. */
	if ((rc = stack_profile_pool(c, pool, sizeof(pool), e)) < 0)
		return rc;
	if (rc == 0) {
		struct incus_pool own;
		struct box_err le;

		err_clear(&le);
		rc = incus_pool_get(c, CONTRACT_OWN_POOL, &own, &le);
		incus_pool_free(&own);
		snprintf(pool, sizeof(pool), "%s", rc == 0 ? CONTRACT_OWN_POOL :
		    CONTRACT_POOL);
	}
	return stack_ensure_profile_on(c, pool, changed, e);
}

int
stack_ensure_profile_on(struct incus *c, const char *pool, int *changed,
    struct box_err *e)
{
	struct incus_profile had, want = {
		.name = STACK_PROFILE,
		.description = "box: an isolated, filtered NIC and a root "
		    "disk, nothing else",
	};
	int exists, rc;

	*changed = 0;
	exists = profile_get(c, &had, e);
	if (exists < 0)
		return exists;
	if (exists) {
		int ok = profile_matches(&had, pool);

		incus_profile_free(&had);
		if (ok)
			return 0;
	}
	rc = device_add(&want.devices, CONTRACT_NIC, contract_nic_keys,
	    contract_nnic_keys, NULL);
	if (rc == 0)
		rc = device_add(&want.devices, "root", contract_root_keys,
		    contract_nroot_keys, pool);
	if (rc < 0)
		rc = err_set(e, rc, "out of memory");
	else if (exists)
		rc = incus_profile_put(c, STACK_PROFILE, &want, e);
	else
		rc = incus_profile_create(c, &want, e);
	incus_dev_free(&want.devices);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/* --- observing ------------------------------------------------------------- */

static int
observe_boxes(struct incus *c, struct stack_state *st, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i;
	int rc;

	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++)
		if (box_tagged(&l.v[i], NULL))
			st->boxes++;
	incus_instance_list_free(&l);
	return 0;
}

int
stack_vm_doors(struct incus *c, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i, d;
	int n = 0, rc;

	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		const struct incus_devices *dv = &l.v[i].devices;

		if (strcmp(l.v[i].type, "virtual-machine") != 0)
			continue;
		for (d = 0; d < dv->n; d++)
			if (strcmp(incus_kv_or(&dv->v[d].kv, "type", ""),
			    "proxy") == 0 && strcmp(incus_kv_or(&dv->v[d].kv,
			    "nat", ""), "true") == 0)
				n++;
	}
	incus_instance_list_free(&l);
	return n;
}

int
stack_observe(struct incus *c, const struct stack_conf *sc,
    struct stack_state *st, struct box_err *e)
{
	struct incus_network n;
	struct incus_acl a;
	struct incus_profile p;
	int rc, readdress;

	memset(st, 0, sizeof(*st));
	if ((rc = stack_profile_pool(c, st->pool, sizeof(st->pool), e)) < 0)
		return rc;
	if ((rc = bridge_get(c, &n, e)) < 0)
		return rc;
	if (rc > 0) {
		st->net_exists = 1;
		snprintf(st->net_addr, sizeof(st->net_addr), "%s",
		    incus_kv_or(&n.config, "ipv4.address", ""));
		st->net_keys_ok = net_drift(&n, sc, st->net_drift,
		    sizeof(st->net_drift), &readdress) == 0 && !readdress;
		if (readdress)
			snprintf(st->net_drift, sizeof(st->net_drift),
			    "ipv4.address is not the decided subnet's");
		incus_network_free(&n);
	}
	if ((rc = acl_get(c, &a, e)) < 0)
		return rc;
	if (rc > 0) {
		st->acl_exists = 1;
		st->acl_ok = acl_matches(&a, sc);
		st->acl_ingress = (int)a.ingress.n;
		incus_acl_free(&a);
	}
	if ((rc = profile_get(c, &p, e)) < 0)
		return rc;
	if (rc > 0) {
		st->profile_exists = 1;
		st->profile_ok = profile_matches(&p, NULL);
		incus_profile_free(&p);
	}
	return observe_boxes(c, st, e);
}

/* --- removing ---------------------------------------------------------- */

int
stack_obj_delete(struct incus *c, const struct stack_obj *o,
    struct box_err *e)
{
	switch (o->kind) {
	case SK_PROFILE:
		return incus_profile_delete(c, o->name, e);
	case SK_NETWORK:
		return incus_network_delete(c, o->name, e);
	default:
		return incus_acl_delete(c, o->name, e);
	}
}

int
stack_obj_exists(struct incus *c, const struct stack_obj *o,
    struct box_err *e)
{
	struct incus_profile p;
	struct incus_network n;
	struct incus_acl a;
	int rc;

	switch (o->kind) {
	case SK_PROFILE:
		if ((rc = incus_profile_get(c, o->name, &p, e)) == 0)
			incus_profile_free(&p);
		break;
	case SK_NETWORK:
		if ((rc = incus_network_get(c, o->name, &n, e)) == 0)
			incus_network_free(&n);
		break;
	default:
		if ((rc = incus_acl_get(c, o->name, &a, e)) == 0)
			incus_acl_free(&a);
	}
	/* A reply we cannot read still says it is there. */
	if (rc == 0 || rc == -EBOX_PROTO)
		return 1;
	return rc == -ENOENT ? 0 : rc;
}
