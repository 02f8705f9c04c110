/* firewall.c - the host firewall (see firewall.h). */
#include "host/stack/firewall.h"
#include "host/stack/firewall_test.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress_sync.h"
#include "host/stack/contract.h"
#include "host/stack/fwdata.h"
#include "host/stack/hostinfo.h"
#include "net/nft.h"
#include "net/rtnl.h"

#define FW_BUF		(256u << 10)
#define FW_MAXCHAINS	16
#define FW_MAXRULES	400	/* ours, the egress chain's, and whatever
				   someone added */

/* What one read needs: the kernel's tables and the contract's rules. */
struct fw_read_ctx {
	struct nft_chain_info chains[2][FW_MAXCHAINS];
	struct nft_rule_info rules[2][FW_MAXRULES];
	struct nft_table_info ti[2];	/* 0 inet, 1 bridge */
	struct nft_rule_info want[FW_MAXRULES];
	int used[2][FW_MAXRULES];
	int nwant;
};

static void
say_diff(struct fw_status *st, const char *fmt, ...)
{
	va_list ap;

	if (st->ndiff >= FW_MAXDIFF)
		return;
	va_start(ap, fmt);
	vsnprintf(st->diff[st->ndiff++], FW_DIFFLEN, fmt, ap);
	va_end(ap);
}

static const char *
fam_name(int family)
{
	return family == NFT_FAM_BRIDGE ? "bridge" : "inet";
}

static int
fam_index(int family)
{
	return family == NFT_FAM_BRIDGE;
}

/*
 * Where two canonical texts first differ, as "expression N: kernel
 * <...> / box <...>", each side cut to a readable length.
 */
static void
first_difference(const char *kernel, const char *want, char *out, size_t cap)
{
	const char *k = kernel, *w = want;
	int n = 1;

	for (;;) {
		size_t kl = strcspn(k, " "), wl = strcspn(w, " ");

		if (kl != wl || memcmp(k, w, kl) != 0) {
			snprintf(out, cap, "expression %d: the kernel has "
			    "%.*s%s, the contract %.*s%s", n,
			    (int)(kl > 90 ? 90 : kl), k, kl > 90 ? "..." : "",
			    (int)(wl > 90 ? 90 : wl), w, wl > 90 ? "..." : "");
			return;
		}
		if (k[kl] == '\0' || w[wl] == '\0') {
			snprintf(out, cap, "the kernel's rule has %s "
			    "expressions", k[kl] == '\0' ? "fewer" : "more");
			return;
		}
		k += kl + 1;
		w += wl + 1;
		n++;
	}
}

static int
same_rule(const struct nft_rule_info *a, const struct nft_rule_info *b)
{
	return !a->canon_trunc && !b->canon_trunc &&
	    strcmp(a->chain, b->chain) == 0 &&
	    strcmp(a->comment, b->comment) == 0 &&
	    strcmp(a->canon, b->canon) == 0;
}

static const struct nft_chain_info *
chain_named(const struct nft_table_info *ti, const char *name)
{
	size_t i;

	for (i = 0; i < ti->nchains; i++)
		if (strcmp(ti->chains[i].name, name) == 0)
			return &ti->chains[i];
	return NULL;
}

static void
compare_chains(struct fw_read_ctx *x, struct fw_status *st)
{
	size_t c;

	st->chains_ok = 1;
	for (c = 0; c < contract_nchains; c++) {
		const struct contract_chain *cc = &contract_chains[c];
		const struct nft_chain_info *k = chain_named(
		    &x->ti[fam_index(cc->family)], cc->spec.name);
		const char *type = cc->spec.type;

		if (k == NULL) {
			say_diff(st, "%s box: chain %s is missing (%s)",
			    fam_name(cc->family), cc->spec.name, cc->why);
			st->chains_ok = 0;
		} else if (!k->base || k->hook != (uint32_t)cc->spec.hook ||
		    k->prio != cc->spec.prio || strcmp(k->type, type) != 0 ||
		    (cc->spec.policy >= 0 && k->policy != cc->spec.policy)) {
			say_diff(st, "%s box: chain %s is not as box sets it "
			    "(type %s hook %u priority %d policy %d; the "
			    "contract: %s hook %d priority %d)",
			    fam_name(cc->family), cc->spec.name, k->type,
			    k->hook, k->prio, k->policy, type, cc->spec.hook,
			    cc->spec.prio);
			st->chains_ok = 0;
		}
	}
}

/* The kernel's rule in the same chain with the same comment, unused. */
static const struct nft_rule_info *
same_comment(struct fw_read_ctx *x, int fi, const struct nft_rule_info *w)
{
	size_t i;

	for (i = 0; i < x->ti[fi].nrules; i++)
		if (!x->used[fi][i] &&
		    strcmp(x->rules[fi][i].chain, w->chain) == 0 &&
		    strcmp(x->rules[fi][i].comment, w->comment) == 0)
			return &x->rules[fi][i];
	return NULL;
}

static int
contract_comment(const struct contract_env *env, int fi,
    const struct nft_rule_info *r)
{
	struct contract_rule_ref ref;
	size_t i;

	for (i = 0; contract_rule_ref(env, i, &ref) == 0; i++)
		if (fam_index(ref.family) == fi &&
		    strcmp(ref.chain, r->chain) == 0 &&
		    strcmp(ref.comment, r->comment) == 0)
			return 1;
	return 0;
}

/*
 * Every contract rule is looked for in its chain; what is left over in
 * our chains is someone else's.  Then the order of what was found.
 */
static void
compare_rules(struct fw_read_ctx *x, const struct contract_env *env,
    struct fw_status *st)
{
	long last[2][FW_MAXCHAINS];
	int pos[FW_MAXRULES];
	char why[200];
	int i, fi, inorder = 1;
	size_t k;

	memset(last, 0xff, sizeof(last));
	for (i = 0; i < x->nwant; i++) {
		struct contract_rule_ref ref;
		const struct nft_rule_info *w = &x->want[i], *near;

		contract_rule_ref(env, (size_t)i, &ref);
		fi = fam_index(ref.family);
		pos[i] = -1;
		for (k = 0; k < x->ti[fi].nrules; k++)
			if (!x->used[fi][k] && same_rule(&x->rules[fi][k], w)) {
				x->used[fi][k] = 1;
				pos[i] = (int)k;
				st->held++;
				break;
			}
		if (pos[i] >= 0)
			continue;
		if ((near = same_comment(x, fi, w)) != NULL) {
			first_difference(near->canon, w->canon, why,
			    sizeof(why));
			say_diff(st, "%s box %s: rule \"%s\" is CHANGED: %s",
			    fam_name(ref.family), ref.chain, ref.comment, why);
		} else {
			say_diff(st, "%s box %s: rule \"%s\" is MISSING",
			    fam_name(ref.family), ref.chain, ref.comment);
		}
	}
	for (fi = 0; fi < 2; fi++)
		for (k = 0; k < x->ti[fi].nrules; k++) {
			const struct nft_rule_info *r = &x->rules[fi][k];

			if (x->used[fi][k])
				continue;
			/* the per-box part is compared by box/egress/egress_fw.c */
			if (fi == 0 && strcmp(r->chain,
			    CONTRACT_EGRESS_CHAIN) == 0)
				continue;
			st->extra++;
			/* a changed rule of ours was named above */
			if (contract_comment(env, fi, r))
				continue;
			say_diff(st, "%s box %s: a rule that is not box's: "
			    "%s%s%s%.120s", fi ? "bridge" : "inet", r->chain,
			    r->comment[0] ? "\"" : "", r->comment,
			    r->comment[0] ? "\" " : "", r->canon);
		}
	/* In each chain the kernel's order must be the contract's. */
	for (i = 0; i < x->nwant; i++) {
		struct contract_rule_ref ref;
		size_t c;

		if (pos[i] < 0)
			continue;
		contract_rule_ref(env, (size_t)i, &ref);
		fi = fam_index(ref.family);
		for (c = 0; c < contract_nchains; c++)
			if (contract_chains[c].family == ref.family &&
			    strcmp(contract_chains[c].spec.name, ref.chain) == 0)
				break;
		if (c == contract_nchains)
			continue;
		if (pos[i] < last[fi][c]) {
			say_diff(st, "%s box %s: rule \"%s\" is out of order",
			    fam_name(ref.family), ref.chain, ref.comment);
			inorder = 0;
		}
		last[fi][c] = pos[i];
	}
	st->ok = st->chains_ok && inorder && st->extra == 0 &&
	    st->held == st->want;
}

/* The sysctl of route_localnet on br (slashes: a name may hold a dot). */
static void
route_localnet_key(const char *br, char *key, size_t cap)
{
	snprintf(key, cap, "net/ipv4/conf/%s/route_localnet", br);
}

int
fw_route_localnet_set(const char *br, int on, struct box_err *e)
{
	char key[96];

	route_localnet_key(br, key, sizeof(key));
	return rtnl_sysctl_set(key, on ? "1" : "0", e);
}

static void
read_route_localnet(const char *br, struct fw_status *st)
{
	char key[96], v[8];
	struct box_err ignore;

	err_clear(&ignore);
	route_localnet_key(br, key, sizeof(key));
	if (rtnl_sysctl_get(key, v, sizeof(v), &ignore) < 0)
		st->route_localnet = -1;
	else
		st->route_localnet = strcmp(v, "1") == 0;
}

static int
list_ours(struct nl_sock *s, struct fw_read_ctx *x, struct box_err *e)
{
	static const int fam[2] = { NFT_FAM_INET, NFT_FAM_BRIDGE };
	int i, rc;

	for (i = 0; i < 2; i++) {
		struct nft_table_info *ti = &x->ti[i];

		memset(ti, 0, sizeof(*ti));
		ti->chains = x->chains[i];
		ti->maxchains = FW_MAXCHAINS;
		ti->rules = x->rules[i];
		ti->maxrules = FW_MAXRULES;
		if ((rc = nft_list_table(s, fam[i], CONTRACT_NFT_TABLE, ti,
		    e)) < 0)
			return rc;
	}
	return 0;
}

/* The kernel holds the ibrname variant when its bridge chain says so. */
static int
held_brname(const struct fw_read_ctx *x)
{
	size_t i;

	for (i = 0; i < x->ti[1].nrules; i++)
		if (strcmp(x->rules[1][i].comment,
		    "box: no frame from one box to another") == 0)
			return 1;
	return 0;
}

static void
sibling_mode(struct fw_status *st)
{
	int held = 1, i;

	for (i = 0; i < st->ndiff; i++)
		if (strncmp(st->diff[i], "bridge box forward", 18) == 0 ||
		    strncmp(st->diff[i], "bridge box: chain forward", 25) == 0)
			held = 0;
	if (!st->bridge_table || !held)
		st->sibling = FW_SIBLING_ABSENT;
	else
		st->sibling = st->brname ? FW_SIBLING_BRNAME :
		    FW_SIBLING_SUBNET;
}

/*
 * The comparison itself, pure: the tables in x (as the kernel holds them)
 * against the contract for br on net.  brname < 0: take the variant the
 * kernel's bridge chain holds.
 */
int
fw_env_build(const char *br, uint32_t net, int brname, struct fw_env *fe,
    struct box_err *e)
{
	struct subnet_host *h = calloc(1, sizeof(*h));
	struct fwdata d;
	struct box_err ignore;
	size_t n = 0, i;
	int rc, k;

	memset(fe, 0, sizeof(*fe));
	fe->env.bridge = br;
	fe->env.net = net;
	fe->env.brname = brname;
	if (h == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = fwdata_load(&d, e)) < 0) {
		free(h);
		return rc;
	}
	fe->env.conn_max = d.conn_max;
	/* No uplink yet (the boot path, before the network is up) is no
	 * uplink rule; doctor then says the rules differ once it is up. */
	err_clear(&ignore);
	if (host_read(NULL, h, &ignore) == 0 && h->has_gw)
		for (k = 0; k < h->naddr && n < CONTRACT_MAXNAMED; k++) {
			if (strcmp(h->addr[k].ifname, h->gw_dev) != 0 ||
			    strcmp(h->addr[k].ifname, br) == 0 ||
			    h->addr[k].plen == 0)
				continue;
			contract_prefix_set(&fe->named[n++], h->addr[k].addr,
			    h->addr[k].plen, "this host's uplink");
		}
	for (i = 0; i < d.nblock && n < CONTRACT_MAXNAMED; i++)
		contract_prefix_set(&fe->named[n++], d.block[i].addr,
		    d.block[i].plen, "the operator's blocklist");
	fe->env.named = fe->named;
	fe->env.nnamed = n;
	free(h);
	return 0;
}

static int compare_env(struct fw_read_ctx *x, const char *br, uint32_t net,
    int brname, const struct contract_env *given, struct fw_status *st,
    struct box_err *e);

static int
compare(struct fw_read_ctx *x, const char *br, uint32_t net, int brname,
    struct fw_status *st, struct box_err *e)
{
	return compare_env(x, br, net, brname, NULL, st, e);
}

static int
compare_env(struct fw_read_ctx *x, const char *br, uint32_t net, int brname,
    const struct contract_env *given, struct fw_status *st, struct box_err *e)
{
	struct contract_env env;
	int rc;

	st->inet_table = x->ti[0].exists;
	st->bridge_table = x->ti[1].exists;
	st->net = net;
	st->brname = brname >= 0 ? brname : held_brname(x);
	if (net == 0) {
		say_diff(st, "the bridge's subnet is unknown: no rule can be "
		    "compared (is %s up?)", br);
		return 0;
	}
	memset(&env, 0, sizeof(env));
	if (given != NULL)
		env = *given;
	env.bridge = br;
	env.net = net;
	env.brname = st->brname;
	st->conn_max = env.conn_max != 0 ? env.conn_max : CONTRACT_CONN_MAX;
	st->nnamed = (unsigned)env.nnamed;
	rc = contract_expect(&env, x->want, FW_MAXRULES);
	if (rc < 0)
		return err_set(e, rc, "building the contract's rules: %s",
		    err_str(rc));
	x->nwant = rc;
	st->want = (unsigned)rc;
	if (!st->inet_table)
		say_diff(st, "table inet box is ABSENT");
	if (!st->bridge_table)
		say_diff(st, "table bridge box is ABSENT");
	compare_chains(x, st);
	compare_rules(x, &env, st);
	sibling_mode(st);
	return 0;
}

int
fw_compare(const struct fw_kernel *k, const char *br, uint32_t net,
    int brname, struct fw_status *st, struct box_err *e)
{
	struct fw_read_ctx *x = calloc(1, sizeof(*x));
	int i, rc;

	memset(st, 0, sizeof(*st));
	if (x == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < 2; i++) {
		if (k->ti[i].nchains > FW_MAXCHAINS ||
		    k->ti[i].nrules > FW_MAXRULES) {
			free(x);
			return err_set(e, -ENOSPC, "too many chains or rules");
		}
		x->ti[i] = k->ti[i];
		memcpy(x->chains[i], k->ti[i].chains,
		    k->ti[i].nchains * sizeof(x->chains[i][0]));
		memcpy(x->rules[i], k->ti[i].rules,
		    k->ti[i].nrules * sizeof(x->rules[i][0]));
		x->ti[i].chains = x->chains[i];
		x->ti[i].rules = x->rules[i];
	}
	rc = compare(x, br, net, brname, st, e);
	free(x);
	return rc;
}

static int
read_with(struct nl_sock *s, const char *br, uint32_t net, int brname,
    struct fw_status *st, struct box_err *e)
{
	struct fw_read_ctx *x = calloc(1, sizeof(*x));
	struct fw_env *fe = calloc(1, sizeof(*fe));
	int rc;

	memset(st, 0, sizeof(*st));
	if (x == NULL || fe == NULL) {
		free(x);
		free(fe);
		return err_set(e, -ENOMEM, "out of memory");
	}
	if ((rc = fw_env_build(br, net, 0, fe, e)) == 0 &&
	    (rc = list_ours(s, x, e)) == 0) {
		read_route_localnet(br, st);
		rc = compare_env(x, br, net, brname, &fe->env, st, e);
	}
	free(x);
	free(fe);
	return rc;
}

/* What a netfilter socket is used for: reading, or applying and reading. */
struct fw_job {
	const char *br;
	uint32_t net;
	int apply;
	struct fw_status *st;
	fw_more_fn more;	/* adds to the apply's batch, or NULL */
	void *arg;
};

static int apply_with(struct nl_sock *s, const struct fw_job *job,
    struct box_err *e);

/* The socket is heap-held (32 KiB receive buffer) and closed last. */
static int
with_socket(struct fw_job *job, struct box_err *e)
{
	struct nl_sock *s = malloc(sizeof(*s));
	int rc;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = nl_open(s, NETLINK_NETFILTER, e);
	if (rc == 0) {
		rc = job->apply ? apply_with(s, job, e) :
		    read_with(s, job->br, job->net, -1, job->st, e);
		nl_close(s);
	}
	free(s);
	return rc;
}

int
fw_read(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e)
{
	struct fw_job job = { br, net, 0, st, NULL, NULL };

	return with_socket(&job, e);
}

/*
 * The boxes' egress rules as the last sync saved them, in the same batch:
 * at boot they are back before Incus starts a box.  A state file that
 * cannot be read is said, and the contract still goes in.
 */
static void
saved_egress(struct nft_batch *bt)
{
	size_t n;
	int rc = egress_emit_saved(bt, &n);

	if (rc < 0)
		fprintf(stderr, "box: the saved egress policies (%s) were not "
		    "applied: %s\n", egress_state_path(), err_str(rc));
}

static int
send_batch(struct nl_sock *s, const struct contract_env *env,
    const struct fw_job *job, struct box_err *e)
{
	unsigned char *buf = malloc(FW_BUF);
	struct nft_batch *bt = malloc(sizeof(*bt));
	int rc;

	if (buf == NULL || bt == NULL) {
		free(buf);
		free(bt);
		return err_set(e, -ENOMEM, "out of memory");
	}
	nft_batch_init(bt, buf, FW_BUF, s->seq);
	rc = contract_emit(bt, env);
	if (rc == 0)
		saved_egress(bt);
	if (rc == 0 && job->more != NULL)
		rc = job->more(bt, job->arg);
	if (rc < 0)
		rc = err_set(e, rc, "building the firewall: %s", err_str(rc));
	else
		rc = nft_batch_send(s, bt, NULL, e);
	free(buf);
	free(bt);
	return rc;
}

static int
apply_with(struct nl_sock *s, const struct fw_job *job, struct box_err *e)
{
	const char *br = job->br;
	uint32_t net = job->net;
	struct fw_status *st = job->st;
	struct fw_env *fe;
	struct nl_error why;
	char kernel[200];
	int brname, rc;

	if (net == 0 || (net & 0xffu) != 0)
		return err_usage(e, "the firewall needs the bridge's /24 "
		    "(box firewall apply --subnet A.B.C.0/24)");
	brname = nft_probe_brname(s, &why, e);
	if (brname < 0)
		return brname;
	if ((fe = calloc(1, sizeof(*fe))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = fw_env_build(br, net, brname, fe, e)) < 0) {
		free(fe);
		return rc;
	}
	rc = send_batch(s, &fe->env, job, e);
	free(fe);
	if (rc < 0) {
		err_context(e, "the kernel refused the firewall (nothing "
		    "changed)");
		return rc;
	}
	rc = read_with(s, br, net, brname, st, e);
	if (rc < 0)
		return rc;
	if (brname)
		snprintf(st->sibling_note, sizeof(st->sibling_note),
		    "every frame between two boxes is dropped (meta "
		    "ibrname/obrname)");
	else
		snprintf(st->sibling_note, sizeof(st->sibling_note),
		    "this kernel refuses meta ibrname/obrname (%s), so the "
		    "drop matches box-to-box IPv4 and ARP by subnet; other "
		    "frames rely on port isolation alone",
		    nl_error_str(&why, kernel, sizeof(kernel)));
	if (!st->ok)
		return err_set(e, -EBOX_PROTO, "the firewall read back from "
		    "the kernel differs from the contract: %s",
		    st->ndiff > 0 ? st->diff[0] : "(no detail)");
	return 0;
}

int
fw_apply(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e)
{
	return fw_apply_more(br, net, NULL, NULL, st, e);
}

int
fw_apply_more(const char *br, uint32_t net, fw_more_fn more, void *arg,
    struct fw_status *st, struct box_err *e)
{
	struct fw_job job = { br, net, 1, st, more, arg };

	return with_socket(&job, e);
}

int
fw_arp_sysctls(const char *br, int set, char *why, size_t cap,
    struct box_err *e)
{
	char key[96], all[96], v[16], va[16];
	size_t i;
	int rc, ok = 1;

	if (cap > 0)
		why[0] = '\0';
	for (i = 0; i < contract_narp_sysctls; i++) {
		const struct contract_sysctl *k = &contract_arp_sysctls[i];

		snprintf(key, sizeof(key), "net/ipv4/conf/%s/%s", br, k->name);
		snprintf(all, sizeof(all), "net/ipv4/conf/all/%s", k->name);
		if (set && (rc = rtnl_sysctl_set(key, k->value, e)) < 0)
			return rc;
		if ((rc = rtnl_sysctl_get(key, v, sizeof(v), e)) < 0 ||
		    (rc = rtnl_sysctl_get(all, va, sizeof(va), e)) < 0)
			return rc;
		if (atoi(v) < atoi(k->value) && atoi(va) < atoi(k->value)) {
			ok = 0;
			snprintf(why + strlen(why), cap - strlen(why), "%s%s is "
			    "%s (all: %s), not %s", why[0] ? "; " : "", key, v,
			    va, k->value);
		}
	}
	return ok;
}

int
fw_remove(struct box_err *e)
{
	static const struct { int fam; const char *name; } tables[] = {
		{ NFT_FAM_INET, CONTRACT_NFT_TABLE },
		{ NFT_FAM_BRIDGE, CONTRACT_NFT_TABLE },
		{ NFT_FAM_INET, CONTRACT_LEGACY_NFT_TABLE },
		{ NFT_FAM_BRIDGE, CONTRACT_LEGACY_NFT_TABLE },
	};
	struct nl_sock *s = malloc(sizeof(*s));
	unsigned char *buf = malloc(4096);
	struct nft_batch *bt = malloc(sizeof(*bt));
	size_t i;
	int rc;

	if (s == NULL || buf == NULL || bt == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	rc = nl_open(s, NETLINK_NETFILTER, e);
	if (rc < 0)
		goto out;
	nft_batch_init(bt, buf, 4096, s->seq);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		nft_table_destroy(bt, tables[i].fam, tables[i].name);
	rc = nft_batch_send(s, bt, NULL, e);
	nl_close(s);
out:
	free(s);
	free(buf);
	free(bt);
	return rc;
}
