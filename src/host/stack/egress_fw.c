/* egress_fw.c - the per-box part of the host firewall (see egress_fw.h). */
#include "host/stack/egress_fw.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/stack/contract.h"
#include "util/sha256.h"
#include "util/text.h"

#define TABLE	CONTRACT_NFT_TABLE
#define CHAIN	CONTRACT_EGRESS_CHAIN
#define INET	NFT_FAM_INET

/* The whole egress part in one batch: flush, and 8 messages a box. */
#define EGFW_BUF	(256u << 10)
#define EGFW_MAXSETS	(2 * EGFW_MAXBOXES + 64)

static void
short_hash(const char *s, char out[9])
{
	static const char hx[] = "0123456789abcdef";
	unsigned char d[32];
	struct sha256 h;
	int i;

	sha256_init(&h, 0);
	sha256_update(&h, s, strlen(s));
	sha256_out(&h, d);
	for (i = 0; i < 4; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[8] = '\0';
}

static void
one_name(const char *prefix, const char *box, char out[NFT_NAMELEN])
{
	char h[9];

	if (strlen(prefix) + strlen(box) < NFT_NAMELEN) {
		snprintf(out, NFT_NAMELEN, "%s%s", prefix, box);
		return;
	}
	short_hash(box, h);
	snprintf(out, NFT_NAMELEN, "%s%.*s-%s", prefix,
	    (int)(NFT_NAMELEN - 1 - strlen(prefix) - 9), box, h);
}

void
egfw_set_names(const char *box, char allow[NFT_NAMELEN],
    char log[NFT_NAMELEN])
{
	one_name("ea-", box, allow);
	one_name("er-", box, log);
}

int
egfw_parse_mac(const char *s, unsigned char mac[6])
{
	int i, hi, lo;

	if (s == NULL || strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		hi = text_hexval(s[3 * i]);
		lo = text_hexval(s[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -EINVAL;
		mac[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static int
enforced(const struct egfw_box *b)
{
	return b->pol.mode == EGRESS_ALLOW && b->has_mac;
}

static void
rule_begin(struct nft_batch *bt, const struct egfw_box *b, const char *what)
{
	char cm[NFT_COMMENT_MAX];

	snprintf(cm, sizeof(cm), "box %s: %s", b->name, what);
	nft_rule_begin(bt, INET, TABLE, CHAIN, cm);
	nft_match_ether_saddr(bt, b->mac);
}

/* ip daddr into reg (with the nfproto dependency nft writes). */
static void
load_daddr(struct nft_batch *bt, uint32_t reg)
{
	nft_match_nfproto(bt, NFT_FAM_IPV4);
	nft_expr_payload(bt, NFT_PAYLOAD_NETWORK_HEADER, 16, 4, reg);
}

static void
box_rules(struct nft_batch *bt, const struct egfw_box *b, const char *allow,
    const char *log)
{
	rule_begin(bt, b, "replies and errors of its own flows");
	nft_match_ct_state(bt, NFT_CTSTATE_ESTABLISHED | NFT_CTSTATE_RELATED);
	nft_verdict(bt, NFT_V_RETURN, NULL);
	nft_rule_end(bt);

	rule_begin(bt, b, "DNS only through the gateway (udp)");
	nft_match_port(bt, IPPROTO_UDP, 1, 53);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);

	rule_begin(bt, b, "DNS only through the gateway (tcp)");
	nft_match_port(bt, IPPROTO_TCP, 1, 53);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);

	rule_begin(bt, b, "an address its allowed names resolved to");
	load_daddr(bt, NFT_REG_1);
	nft_expr_lookup(bt, NFT_REG_1, allow, 0);
	nft_expr_dynset(bt, NFT_DYNSET_OP_UPDATE, NFT_REG_1, allow);
	nft_verdict(bt, NFT_V_RETURN, NULL);
	nft_rule_end(bt);

	/* The key is daddr . l4proto . dport in 32-bit registers 0, 1, 2.
	 * Register 0 is written NFT_REG_1: the kernel dumps it so. */
	rule_begin(bt, b, "log what it refuses");
	load_daddr(bt, NFT_REG_1);
	nft_expr_meta(bt, NFT_META_L4PROTO, NFT_REG32_01);
	nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2,
	    NFT_REG32_02);
	nft_expr_dynset(bt, NFT_DYNSET_OP_UPDATE, NFT_REG_1, log);
	nft_rule_end(bt);

	rule_begin(bt, b, "refused: not an allowed name's address");
	nft_expr_counter(bt);
	nft_verdict(bt, NFT_V_DROP, NULL);
	nft_rule_end(bt);
}

static int
in_use(const char *set, const struct egfw_box *b, size_t n)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!enforced(&b[i]))
			continue;
		egfw_set_names(b[i].name, a, l);
		if (strcmp(a, set) == 0 || strcmp(l, set) == 0)
			return 1;
	}
	return 0;
}

int
egfw_emit(struct nft_batch *bt, const struct egfw_box *b, size_t n,
    char (*stale)[NFT_NAMELEN], size_t nstale)
{
	struct nft_set_spec as = { NULL, NFT_TYPE_IPV4_ADDR, 4,
	    NFT_SET_TIMEOUT | NFT_SET_EVAL, EGFW_ALLOW_TIMEOUT_MS,
	    EGFW_ALLOW_SIZE };
	struct nft_set_spec ls = { NULL, NFT_TYPE_CONCAT3(NFT_TYPE_IPV4_ADDR,
	    NFT_TYPE_INET_PROTO, NFT_TYPE_INET_SERVICE), 12,
	    NFT_SET_TIMEOUT | NFT_SET_EVAL, EGFW_LOG_TIMEOUT_MS,
	    EGFW_LOG_SIZE };
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += enforced(&b[i]);
	if (k > EGFW_MAXBOXES)
		return -E2BIG;
	nft_chain_flush(bt, INET, TABLE, CHAIN);
	for (i = 0; i < n; i++) {
		if (!enforced(&b[i]))
			continue;
		egfw_set_names(b[i].name, a, l);
		as.name = a;
		ls.name = l;
		nft_set_add(bt, INET, TABLE, &as);
		nft_set_add(bt, INET, TABLE, &ls);
		box_rules(bt, &b[i], a, l);
	}
	for (i = 0; stale != NULL && i < nstale; i++)
		if ((strncmp(stale[i], "ea-", 3) == 0 ||
		    strncmp(stale[i], "er-", 3) == 0) &&
		    !in_use(stale[i], b, n))
			nft_set_del(bt, INET, TABLE, stale[i]);
	return nft_batch_err(bt);
}

/* --- dnsmasq --------------------------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
put(char *buf, size_t cap, size_t *o, const char *s)
{
	size_t n = strlen(s);

	if (*o + n + 1 > cap)
		return -ENOSPC;
	memcpy(buf + *o, s, n + 1);
	*o += n;
	return 0;
}

/* Does box b name a pattern whose domain covers d? */
static int
box_covers(const struct egfw_box *b, const char *d)
{
	int i;

	for (i = 0; i < b->pol.n; i++)
		if (egress_covers(egress_domain(b->pol.pat[i]), d))
			return 1;
	return 0;
}

static int
domain_line(const struct egfw_box *b, size_t n, const char *d, char *buf,
    size_t cap, size_t *o)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN], one[NFT_NAMELEN + 32];
	size_t i;
	int first = 1, rc;

	if ((rc = put(buf, cap, o, *o ? "\nnftset=/" : "nftset=/")) < 0 ||
	    (rc = put(buf, cap, o, d)) < 0 || (rc = put(buf, cap, o, "/")) < 0)
		return rc;
	for (i = 0; i < n; i++) {
		if (!enforced(&b[i]) || !box_covers(&b[i], d))
			continue;
		egfw_set_names(b[i].name, a, l);
		snprintf(one, sizeof(one), "%s4#inet#%s#%s", first ? "" : ",",
		    TABLE, a);
		if ((rc = put(buf, cap, o, one)) < 0)
			return rc;
		first = 0;
	}
	return 0;
}

int
egfw_dnsmasq(const struct egfw_box *b, size_t n, char *buf, size_t cap)
{
	const char **d;
	size_t i, nd = 0, o = 0, total = 0;
	int j, rc = 0;

	if (cap == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		if (enforced(&b[i]))
			total += (size_t)b[i].pol.n;
	if (total == 0)
		return 0;
	if ((d = malloc(total * sizeof(*d))) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; enforced(&b[i]) && j < b[i].pol.n; j++)
			d[nd++] = egress_domain(b[i].pol.pat[j]);
	qsort(d, nd, sizeof(*d), cmp_str);
	for (i = 0; i < nd && rc == 0; i++)
		if (i == 0 || strcmp(d[i], d[i - 1]) != 0)
			rc = domain_line(b, n, d[i], buf, cap, &o);
	free(d);
	return rc;
}

void
egfw_dnsmasq_strip(const char *in, char *out, size_t cap)
{
	size_t o = 0, n;
	const char *p = in != NULL ? in : "";

	if (cap == 0)
		return;
	out[0] = '\0';
	while (*p != '\0') {
		n = strcspn(p, "\n");
		if (strncmp(p, "nftset=", 7) != 0 && n > 0 &&
		    o + n + 2 <= cap) {
			if (o > 0)
				out[o++] = '\n';
			memcpy(out + o, p, n);
			o += n;
			out[o] = '\0';
		}
		p += n;
		if (*p == '\n')
			p++;
	}
}

/* --- the kernel ------------------------------------------------------------------ */

#define RD_CHAINS	16
#define RD_RULES	400	/* as host/stack/firewall.c reads: ours and others' */

struct egfw_rd {
	struct nft_chain_info chains[RD_CHAINS];
	struct nft_rule_info rules[RD_RULES];
	struct nft_rule_info want[EGFW_RULES_PER_BOX];
	struct nft_table_info ti;
	char sets[EGFW_MAXSETS][NFT_NAMELEN];
	size_t nsets;
	unsigned char buf[16384];
	struct nft_batch bt;
};

static int
with_sock(struct nl_sock **s, struct box_err *e)
{
	int rc;

	if ((*s = malloc(sizeof(**s))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = nl_open(*s, NETLINK_NETFILTER, e)) < 0) {
		free(*s);
		*s = NULL;
	}
	return rc;
}

static void
sock_done(struct nl_sock *s)
{
	if (s != NULL) {
		nl_close(s);
		free(s);
	}
}

/* The rules egfw_emit() sends for one box, parsed back as the kernel's
 * dump is: the canonical text to compare with. */
static int
expect_box(struct egfw_rd *x, const struct egfw_box *b)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	struct nl_msg m;
	size_t off = 0;
	int k = 0, r;

	egfw_set_names(b->name, a, l);
	nft_batch_init(&x->bt, x->buf, sizeof(x->buf), 1);
	box_rules(&x->bt, b, a, l);
	if ((r = nft_batch_end(&x->bt)) < 0)
		return r;
	while (nl_msg_at(x->bt.b.p, x->bt.b.len, &off, &m) > 0 &&
	    k < EGFW_RULES_PER_BOX)
		if (nft_parse_rule(&m, TABLE, &x->want[k]) == 1)
			k++;
	return k == EGFW_RULES_PER_BOX ? 0 : -EBOX_PROTO;
}

static int
has_set(const struct egfw_rd *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->nsets; i++)
		if (strcmp(x->sets[i], name) == 0)
			return 1;
	return 0;
}

/* Box b's rules in the chain: from the kernel rule equal to its first. */
static void
judge_box(struct egfw_rd *x, const struct egfw_box *b, int *used,
    struct egfw_held *h)
{
	size_t i, k;

	for (i = 0; i < x->ti.nrules; i++) {
		const struct nft_rule_info *r = &x->rules[i];

		if (used[i] || strcmp(r->chain, CHAIN) != 0 ||
		    strcmp(r->canon, x->want[0].canon) != 0 ||
		    strcmp(r->comment, x->want[0].comment) != 0)
			continue;
		for (k = 1; k < EGFW_RULES_PER_BOX; k++) {
			if (i + k >= x->ti.nrules)
				break;
			r = &x->rules[i + k];
			if (r->canon_trunc || strcmp(r->canon,
			    x->want[k].canon) != 0 || strcmp(r->comment,
			    x->want[k].comment) != 0)
				break;
		}
		if (k < EGFW_RULES_PER_BOX) {
			snprintf(h->why, sizeof(h->why), "its rule \"%s\" is "
			    "changed or missing", x->want[k].comment);
			return;
		}
		for (k = 0; k < EGFW_RULES_PER_BOX; k++)
			used[i + k] = 1;
		if (x->rules[i + 5].has_counter)
			h->refused = x->rules[i + 5].packets;
		h->rules_ok = 1;
		return;
	}
	snprintf(h->why, sizeof(h->why), "the kernel holds none of its rules");
}

/* The table's chains and rules, into x's own arrays. */
static int
read_rules(struct nl_sock *s, struct egfw_rd *x, struct box_err *e)
{
	memset(&x->ti, 0, sizeof(x->ti));
	x->ti.chains = x->chains;
	x->ti.maxchains = RD_CHAINS;
	x->ti.rules = x->rules;
	x->ti.maxrules = RD_RULES;
	return nft_list_table(s, INET, TABLE, &x->ti, e);
}

static int
read_table(struct nl_sock *s, struct egfw_rd *x, struct box_err *e)
{
	int rc;

	if ((rc = read_rules(s, x, e)) < 0)
		return rc;
	return nft_list_sets(s, INET, TABLE, x->sets, EGFW_MAXSETS,
	    &x->nsets, e);
}

int
egfw_read(const struct egfw_box *b, size_t n, struct egfw_held *held,
    size_t *extra, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	struct nl_sock *s = NULL;
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	struct nft_set_elem one;
	int *used = NULL, rc;
	size_t i, got, total;

	*extra = 0;
	if (x == NULL || (used = calloc(RD_RULES, sizeof(*used))) == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = with_sock(&s, e)) < 0 || (rc = read_table(s, x, e)) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		struct egfw_held *h = &held[i];

		memset(h, 0, sizeof(*h));
		if (!enforced(&b[i]))
			continue;
		if ((rc = expect_box(x, &b[i])) < 0) {
			rc = err_set(e, rc, "building box %s's rules: %s",
			    b[i].name, err_str(rc));
			goto out;
		}
		judge_box(x, &b[i], used, h);
		egfw_set_names(b[i].name, a, l);
		h->sets_ok = has_set(x, a) && has_set(x, l);
		if (!h->sets_ok && h->why[0] == '\0')
			snprintf(h->why, sizeof(h->why), "its set %s or %s is "
			    "missing", a, l);
		if (h->sets_ok && nft_list_setelems(s, INET, TABLE, a, &one, 1,
		    &got, &total, e) == 0)
			h->naddr = total;
	}
	for (i = 0; i < x->ti.nrules; i++)
		if (!used[i] && strcmp(x->rules[i].chain, CHAIN) == 0)
			(*extra)++;
	rc = 0;
out:
	sock_done(s);
	free(used);
	free(x);
	return rc;
}

int
egfw_apply(const struct egfw_box *b, size_t n, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	unsigned char *buf = malloc(EGFW_BUF);
	struct nft_batch *bt = malloc(sizeof(*bt));
	struct nl_sock *s = NULL;
	int rc;

	if (x == NULL || buf == NULL || bt == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	if ((rc = nft_list_sets(s, INET, TABLE, x->sets, EGFW_MAXSETS,
	    &x->nsets, e)) < 0)
		goto out;
	nft_batch_init(bt, buf, EGFW_BUF, s->seq);
	rc = egfw_emit(bt, b, n, x->sets, x->nsets);
	if (rc == -E2BIG) {
		rc = err_set(e, rc, "more than %d boxes with an allow policy",
		    EGFW_MAXBOXES);
		goto out;
	}
	if (rc < 0) {
		rc = err_set(e, rc, "building the egress rules: %s",
		    err_str(rc));
		goto out;
	}
	if ((rc = nft_batch_send(s, bt, NULL, e)) < 0)
		err_context(e, "the kernel refused the egress rules (nothing "
		    "changed)");
out:
	sock_done(s);
	free(bt);
	free(buf);
	free(x);
	return rc;
}

static int
cmp_age(const void *a, const void *b)
{
	const struct egfw_refused *x = a, *y = b;

	return x->age_ms < y->age_ms ? -1 : x->age_ms > y->age_ms;
}

int
egfw_log(const char *box, struct egfw_refused *v, size_t max, size_t *n,
    size_t *total, uint64_t *refused, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	struct nft_set_elem *el = calloc(EGFW_LOG_SIZE, sizeof(*el));
	struct nl_sock *s = NULL;
	char a[NFT_NAMELEN], l[NFT_NAMELEN], cm[NFT_COMMENT_MAX];
	size_t i, got = 0;
	int rc;

	*n = 0;
	*total = 0;
	*refused = 0;
	if (x == NULL || el == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	egfw_set_names(box, a, l);
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	rc = nft_list_setelems(s, INET, TABLE, l, el, EGFW_LOG_SIZE, &got,
	    total, e);
	if (rc < 0)
		goto out;
	for (i = 0; i < got; i++) {
		struct egfw_refused r;

		if (el[i].klen != 12)
			continue;
		r.addr = (uint32_t)el[i].key[0] << 24 |
		    (uint32_t)el[i].key[1] << 16 |
		    (uint32_t)el[i].key[2] << 8 | el[i].key[3];
		r.proto = el[i].key[4];
		r.port = (uint16_t)(el[i].key[8] << 8 | el[i].key[9]);
		r.age_ms = el[i].timeout_ms > el[i].expires_ms ?
		    el[i].timeout_ms - el[i].expires_ms : 0;
		v[(*n)++] = r;
		if (*n == max)
			break;
	}
	qsort(v, *n, sizeof(*v), cmp_age);
	/* The drop rule's counter. */
	if ((rc = read_rules(s, x, e)) < 0)
		goto out;
	snprintf(cm, sizeof(cm), "box %s: refused: not an allowed name's "
	    "address", box);
	for (i = 0; i < x->ti.nrules; i++)
		if (strcmp(x->rules[i].chain, CHAIN) == 0 &&
		    strcmp(x->rules[i].comment, cm) == 0 &&
		    x->rules[i].has_counter)
			*refused = x->rules[i].packets;
out:
	sock_done(s);
	free(el);
	free(x);
	return rc;
}
