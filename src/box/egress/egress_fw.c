/* egress_fw.c - the per-box part of the host firewall (see egress_fw.h). */
#include "box/egress/egress_fw.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "box/egress/ptr.h"
#include "model/names.h"
#include "net/ct.h"
#include "util/clock.h"
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
	one_name("el-", box, log);
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

	/* The data is daddr . l4proto . dport in 32-bit registers 0, 1, 2
	 * (register 0 written NFT_REG_1: the kernel dumps it so), the key
	 * the ring's next slot in register 4 (NFT_REG_2, likewise). */
	rule_begin(bt, b, "log what it refuses");
	load_daddr(bt, NFT_REG_1);
	nft_expr_meta(bt, NFT_META_L4PROTO, NFT_REG32_01);
	nft_expr_payload(bt, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2,
	    NFT_REG32_02);
	nft_expr_numgen_inc(bt, NFT_REG_2, EGFW_LOG_SLOTS);
	nft_expr_dynset_map(bt, NFT_DYNSET_OP_DELETE, NFT_REG_2, NFT_REG_1,
	    log);
	nft_expr_dynset_map(bt, NFT_DYNSET_OP_ADD, NFT_REG_2, NFT_REG_1, log);
	nft_rule_end(bt);

	/*
	 * Refused, and said so: a reset for TCP, ICMP administratively
	 * prohibited for the rest, so a client fails at once instead of
	 * retrying into a timeout.  Each refusing rule counts what it
	 * refused (verify reads a moved counter as the host's refusal); the
	 * contract's own drops before the jump stay silent.
	 */
	rule_begin(bt, b, EGFW_REFUSED_TCP);
	nft_match_l4proto(bt, IPPROTO_TCP);
	nft_expr_counter_from(bt, b->packets_tcp0, b->bytes_tcp0);
	nft_expr_reject(bt, NFT_REJECT_TCP_RST, -1);
	nft_rule_end(bt);

	rule_begin(bt, b, EGFW_REFUSED);
	nft_expr_counter_from(bt, b->packets0, b->bytes0);
	nft_expr_reject(bt, NFT_REJECT_ICMPX_UNREACH,
	    NFT_REJECT_ICMPX_ADMIN_PROHIBITED);
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

static int
ours(const char *set)
{
	return strncmp(set, "ea-", 3) == 0 || strncmp(set, "el-", 3) == 0 ||
	    strncmp(set, "er-", 3) == 0;
}

int
egfw_emit(struct nft_batch *bt, const struct egfw_box *b, size_t n,
    char (*stale)[NFT_NAMELEN], size_t nstale)
{
	char since[40];
	struct nft_set_spec as = { NULL, NFT_TYPE_IPV4_ADDR, 4,
	    NFT_SET_TIMEOUT | NFT_SET_EVAL, EGFW_ALLOW_TIMEOUT_MS,
	    EGFW_ALLOW_SIZE, 0, 0, NULL };
	struct nft_set_spec ls = { NULL, NFT_TYPE_MARK, 4,
	    NFT_SET_TIMEOUT | NFT_SET_EVAL, EGFW_LOG_TIMEOUT_MS,
	    EGFW_LOG_SIZE, NFT_TYPE_CONCAT3(NFT_TYPE_IPV4_ADDR,
	    NFT_TYPE_INET_PROTO, NFT_TYPE_INET_SERVICE), 12, since };
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	size_t i, k = 0;

	/* An existing map keeps the comment it was made with. */
	snprintf(since, sizeof(since), "since %lld", (long long)time(NULL));
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
		if (ours(stale[i]) && !in_use(stale[i], b, n))
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

int
egfw_covers(const struct egfw_box *b, const char *d)
{
	int i;

	if (b->pol.mode != EGRESS_ALLOW)
		return 0;
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
		if (!enforced(&b[i]) || !egfw_covers(&b[i], d))
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

/* --- the set diff and the log ring (pure) ----------------------------------------- */

static uint32_t
key_addr(const struct nft_set_elem *el)
{
	return (uint32_t)el->key[0] << 24 | (uint32_t)el->key[1] << 16 |
	    (uint32_t)el->key[2] << 8 | el->key[3];
}

static ssize_t
find_addr(const struct nft_set_elem *v, size_t n, uint32_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (key_addr(&v[i]) == a)
			return (ssize_t)i;
	return -1;
}

size_t
egfw_plan(const struct egfw_box *b, const struct nft_set_elem *old,
    size_t nold, const struct nft_set_elem *fresh, size_t nfresh,
    struct nft_set_elem *out, size_t max, size_t *dropped)
{
	size_t i, k = 0, drop = 0;
	ssize_t at;

	for (i = 0; i < nold; i++) {
		const struct nft_set_elem *o = &old[i];
		int keep = o->comment[0] != '\0' ? egfw_covers(b, o->comment) :
		    !b->shrank;

		if (o->klen != 4 || !keep || k == max ||
		    find_addr(out, k, key_addr(o)) >= 0) {
			drop++;
			continue;
		}
		out[k] = *o;
		out[k].dlen = 0;
		/*
		 * The allow rule's update restarts an element's clock at the
		 * SET's timeout (an hour), not its own: an answer held for its
		 * 60 s TTL then has more time left than its timeout, and the
		 * kernel refuses such an element (ERANGE) when it is sent back
		 * as it was dumped.  It keeps the time the kernel gave it.
		 */
		if (out[k].timeout_ms && out[k].expires_ms > out[k].timeout_ms)
			out[k].timeout_ms = out[k].expires_ms;
		k++;
	}
	for (i = 0; i < nfresh; i++) {
		const struct nft_set_elem *f = &fresh[i];

		if (f->klen != 4 || f->comment[0] == '\0' ||
		    !egfw_covers(b, f->comment))
			continue;
		if ((at = find_addr(out, k, key_addr(f))) >= 0) {
			if (out[at].comment[0] == '\0')
				memcpy(out[at].comment, f->comment,
				    sizeof(f->comment));
			continue;
		}
		if (k == max)
			break;
		out[k++] = *f;
	}
	if (dropped != NULL)
		*dropped = drop;
	return k;
}

static int
cmp_age(const void *a, const void *b)
{
	const struct egfw_refused *x = a, *y = b;

	return x->age_ms < y->age_ms ? -1 : x->age_ms > y->age_ms;
}

size_t
egfw_log_fold(const struct nft_set_elem *el, size_t nel, uint64_t timeout_ms,
    struct egfw_refused *v, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < nel; i++) {
		struct egfw_refused r;
		uint64_t t = el[i].timeout_ms ? el[i].timeout_ms : timeout_ms;

		if (el[i].dlen != 12)
			continue;
		r.addr = (uint32_t)el[i].data[0] << 24 |
		    (uint32_t)el[i].data[1] << 16 |
		    (uint32_t)el[i].data[2] << 8 | el[i].data[3];
		r.proto = el[i].data[4];
		r.port = (uint16_t)(el[i].data[8] << 8 | el[i].data[9]);
		r.age_ms = t > el[i].expires_ms ? t - el[i].expires_ms : 0;
		r.hits = 1;
		for (j = 0; j < n; j++)
			if (v[j].addr == r.addr && v[j].proto == r.proto &&
			    v[j].port == r.port)
				break;
		if (j < n) {
			v[j].hits++;
			if (r.age_ms < v[j].age_ms)
				v[j].age_ms = r.age_ms;
			continue;
		}
		if (n < max)
			v[n++] = r;
	}
	qsort(v, n, sizeof(*v), cmp_age);
	return n;
}

/* --- the kernel ------------------------------------------------------------------ */

#define RD_CHAINS	16
#define RD_RULES	400	/* as host/stack/firewall.c reads: ours and others' */
#define ASK_MS		300	/* one question to the gateway's resolver */
#define ASK_BUDGET_MS	3000	/* all of them, per sync */
#define ASK_ADDRS	32	/* answers kept per name */

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
		for (k = 0; k < EGFW_RULES_PER_BOX; k++) {
			used[i + k] = 1;
			if (k >= EGFW_RULES_PER_BOX - 2 &&
			    x->rules[i + k].has_counter)
				h->refused += x->rules[i + k].packets;
		}
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

/* "since <n>" -> n, else 0. */
static long long
since_of(struct nl_sock *s, const char *logset)
{
	char cm[NFT_COMMENT_MAX];
	struct box_err quiet;
	long long v = 0;

	err_clear(&quiet);
	if (nft_set_comment(s, INET, TABLE, logset, cm, sizeof(cm),
	    &quiet) == 0 && sscanf(cm, "since %lld", &v) != 1)
		v = 0;
	return v;
}

/* The set's contents against b's policy. */
static void
judge_contents(const struct egfw_box *b, const struct nft_set_elem *el,
    size_t n, struct egfw_held *h)
{
	size_t i;

	h->contents_ok = 1;
	for (i = 0; i < n; i++) {
		if (el[i].comment[0] == '\0')
			continue;
		h->nnamed++;
		if (egfw_covers(b, el[i].comment))
			continue;
		if (h->nstray++ == 0 && h->why[0] == '\0')
			snprintf(h->why, sizeof(h->why), "its set still holds "
			    "%u.%u.%u.%u for %.120s, which the policy does "
			    "not name", el[i].key[0], el[i].key[1],
			    el[i].key[2], el[i].key[3], el[i].comment);
		h->contents_ok = 0;
	}
}

int
egfw_read(const struct egfw_box *b, size_t n, struct egfw_held *held,
    size_t *extra, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	struct nft_set_elem *el = calloc(EGFW_ALLOW_SIZE, sizeof(*el));
	struct nl_sock *s = NULL;
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	int *used = NULL, rc;
	size_t i, got, total;

	*extra = 0;
	if (x == NULL || el == NULL ||
	    (used = calloc(RD_RULES, sizeof(*used))) == NULL) {
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
		if (h->sets_ok && nft_list_setelems(s, INET, TABLE, a, el,
		    EGFW_ALLOW_SIZE, &got, &total, e) == 0) {
			h->naddr = total;
			judge_contents(&b[i], el, got, h);
		}
		if (h->sets_ok)
			h->since = since_of(s, l);
	}
	for (i = 0; i < x->ti.nrules; i++)
		if (!used[i] && strcmp(x->rules[i].chain, CHAIN) == 0)
			(*extra)++;
	rc = 0;
out:
	sock_done(s);
	free(used);
	free(el);
	free(x);
	return rc;
}

/* The counter of box's rule what (0 when none), into *pk, *by. */
static void
counter_of(const struct egfw_rd *x, const char *box, const char *what,
    uint64_t *pk, uint64_t *by)
{
	char cm[NFT_COMMENT_MAX];
	size_t j;

	*pk = *by = 0;
	snprintf(cm, sizeof(cm), "box %s: %s", box, what);
	for (j = 0; j < x->ti.nrules; j++)
		if (strcmp(x->rules[j].chain, CHAIN) == 0 &&
		    strcmp(x->rules[j].comment, cm) == 0 &&
		    x->rules[j].has_counter) {
			*pk = x->rules[j].packets;
			*by = x->rules[j].bytes;
		}
}

/* Carry each box's refusal counters over the rebuild. */
static void
carry_counters(struct egfw_rd *x, struct egfw_box *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		counter_of(x, b[i].name, EGFW_REFUSED, &b[i].packets0,
		    &b[i].bytes0);
		counter_of(x, b[i].name, EGFW_REFUSED_TCP, &b[i].packets_tcp0,
		    &b[i].bytes_tcp0);
	}
}

/* --- refilling a set ---------------------------------------------------------------- */

struct refill {
	struct nft_set_elem *old, *fresh, *plan;
	size_t nold, nfresh, nplan;
	long long deadline;
};

static void
put_fresh(struct refill *r, const char *name, uint32_t addr, uint32_t ttl)
{
	struct nft_set_elem *f;
	uint64_t t;

	if (r->nfresh >= EGFW_ALLOW_SIZE)
		return;
	f = &r->fresh[r->nfresh++];
	memset(f, 0, sizeof(*f));
	f->key[0] = (unsigned char)(addr >> 24);
	f->key[1] = (unsigned char)(addr >> 16);
	f->key[2] = (unsigned char)(addr >> 8);
	f->key[3] = (unsigned char)addr;
	f->klen = 4;
	t = (uint64_t)(ttl < EGFW_FEED_MIN_S ? EGFW_FEED_MIN_S : ttl) * 1000u;
	f->timeout_ms = t > EGFW_ALLOW_TIMEOUT_MS ? EGFW_ALLOW_TIMEOUT_MS : t;
	snprintf(f->comment, sizeof(f->comment), "%s", name);
}

static int
time_left(const struct refill *r)
{
	long long left = r->deadline - clock_ms();

	return left <= 0 ? 0 : left < ASK_MS ? (int)left : ASK_MS;
}

/* The answers for b's names, asked of the gateway's resolver. */
static void
ask_names(struct refill *r, const struct egfw_box *b, uint32_t gw)
{
	uint32_t addr[ASK_ADDRS], ttl[ASK_ADDRS];
	int i, k, j, ms;

	for (i = 0; gw != 0 && i < b->pol.n; i++) {
		const char *d = egress_domain(b->pol.pat[i]);

		if ((ms = time_left(r)) == 0)
			return;
		k = ptr_ask_a(gw, d, ms, addr, ttl, ASK_ADDRS);
		for (j = 0; j < k; j++)
			put_fresh(r, d, addr[j], ttl[j]);
	}
}

/* Unnamed elements: a reverse name that resolves back to the address. */
static void
name_unnamed(struct refill *r, uint32_t gw)
{
	char name[PTR_NAME_MAX];
	size_t i;
	int ms;

	for (i = 0; gw != 0 && i < r->nold; i++) {
		if (r->old[i].comment[0] != '\0' || r->old[i].klen != 4)
			continue;
		if ((ms = time_left(r)) == 0)
			return;
		if (ptr_confirmed(gw, key_addr(&r->old[i]), ms, name,
		    sizeof(name)) == 1)
			snprintf(r->old[i].comment, sizeof(r->old[i].comment),
			    "%s", name);
	}
}

/* Flush and refill one box's allow set in one batch. */
static int
refill_box(struct nl_sock *s, const struct egfw_box *b, uint32_t gw,
    struct refill *r, struct egfw_report *rep, struct box_err *e)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	struct nft_batch *bt = NULL;
	unsigned char *buf = NULL;
	size_t total, dropped, cap, i;
	int rc;

	egfw_set_names(b->name, a, l);
	r->nfresh = 0;
	ask_names(r, b, gw);
	/* Read after asking: the resolver feeds the set meanwhile. */
	rc = nft_list_setelems(s, INET, TABLE, a, r->old, EGFW_ALLOW_SIZE,
	    &r->nold, &total, e);
	if (rc < 0)
		return rc;
	name_unnamed(r, gw);
	r->nplan = egfw_plan(b, r->old, r->nold, r->fresh, r->nfresh,
	    r->plan, EGFW_ALLOW_SIZE, &dropped);
	/* The kernel dumps no timeout for an element that has the set's:
	 * sent back with its expiry, it says so. */
	for (i = 0; i < r->nplan; i++)
		if (r->plan[i].timeout_ms == 0)
			r->plan[i].timeout_ms = EGFW_ALLOW_TIMEOUT_MS;
	cap = 4096 + nft_setelems_msgs(r->plan, r->nplan) * 256 +
	    r->nplan * 400;
	if ((buf = malloc(cap)) == NULL || (bt = malloc(sizeof(*bt))) == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	nft_batch_init(bt, buf, cap, s->seq);
	nft_setelems_flush(bt, INET, TABLE, a);
	if (r->nplan > 0)
		nft_setelems_add(bt, INET, TABLE, a, r->plan, r->nplan);
	if ((rc = nft_batch_err(bt)) < 0) {
		rc = err_set(e, rc, "building box %s's address set: %s",
		    b->name, err_str(rc));
		goto out;
	}
	if ((rc = nft_batch_send(s, bt, NULL, e)) < 0) {
		err_context(e, "the kernel refused box %s's address set "
		    "(it holds what it held)", b->name);
		goto out;
	}
	if (rep != NULL) {
		rep->removed += dropped;
		rep->kept += r->nold - dropped;
		rep->added += r->nplan - (r->nold - dropped);
	}
out:
	free(bt);
	free(buf);
	return rc;
}

/* --- ending the flows -------------------------------------------------------------- */

struct flows {
	const struct egfw_box *b;
	size_t n;
	struct nft_set_elem **plan;	/* per box */
	size_t *nplan;
	uint32_t gw;
	struct ct_tuple *v;
	size_t nv, max;
};

static int
on_flow(const struct ct_tuple *t, void *arg)
{
	struct flows *f = arg;
	size_t i;

	if (t->dst == f->gw)
		return 0;
	for (i = 0; i < f->n; i++) {
		if (f->plan[i] == NULL || !f->b[i].has_addr ||
		    f->b[i].addr != t->src)
			continue;
		if (find_addr(f->plan[i], f->nplan[i], t->dst) >= 0)
			return 0;
		if (f->nv < f->max)
			f->v[f->nv++] = *t;
		return 0;
	}
	return 0;
}

static void
flows_reset(void *arg)
{
	((struct flows *)arg)->nv = 0;
}

#define FLOWS_MAX 4096

/* Every enforced box's flows to addresses outside its new set, ended. */
static int
end_flows(struct flows *f, struct egfw_report *rep, struct box_err *e)
{
	struct nl_sock *s = NULL;
	size_t gone = 0;
	int rc;

	if ((f->v = calloc(FLOWS_MAX, sizeof(*f->v))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	f->max = FLOWS_MAX;
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	if ((rc = ct_dump(s, on_flow, flows_reset, f, e)) < 0) {
		err_context(e, "reading the connection table");
		goto out;
	}
	rc = ct_delete(s, f->v, f->nv, &gone, e);
	if (rc < 0)
		err_context(e, "ending the flows to addresses no longer "
		    "allowed");
	if (rep != NULL)
		rep->flows_ended += gone;
out:
	sock_done(s);
	free(f->v);
	f->v = NULL;
	return rc;
}

int
egfw_refill(const struct egfw_box *b, size_t n, uint32_t gw,
    struct egfw_report *rep, struct box_err *e)
{
	struct refill r;
	struct flows f;
	struct nl_sock *s = NULL;
	size_t i;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	memset(&f, 0, sizeof(f));
	f.b = b;
	f.n = n;
	f.gw = gw;
	r.deadline = clock_ms() + ASK_BUDGET_MS;
	r.old = calloc(EGFW_ALLOW_SIZE, sizeof(*r.old));
	r.fresh = calloc(EGFW_ALLOW_SIZE, sizeof(*r.fresh));
	f.plan = calloc(n ? n : 1, sizeof(*f.plan));
	f.nplan = calloc(n ? n : 1, sizeof(*f.nplan));
	if (r.old == NULL || r.fresh == NULL || f.plan == NULL ||
	    f.nplan == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (!enforced(&b[i]))
			continue;
		if ((r.plan = calloc(EGFW_ALLOW_SIZE, sizeof(*r.plan))) ==
		    NULL) {
			rc = err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		f.plan[i] = r.plan;
		if ((rc = refill_box(s, &b[i], gw, &r, rep, e)) < 0)
			goto out;
		f.nplan[i] = r.nplan;
		/* Kept only to judge the flows: as small as it is. */
		if ((r.plan = realloc(f.plan[i], (r.nplan ? r.nplan : 1) *
		    sizeof(*r.plan))) != NULL)
			f.plan[i] = r.plan;
	}
	sock_done(s);
	s = NULL;
	rc = end_flows(&f, rep, e);
out:
	sock_done(s);
	for (i = 0; f.plan != NULL && i < n; i++)
		free(f.plan[i]);
	free(f.plan);
	free(f.nplan);
	free(r.old);
	free(r.fresh);
	return rc;
}

int
egfw_apply(struct egfw_box *b, size_t n, uint32_t gw,
    struct egfw_report *rep, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	unsigned char *buf = malloc(EGFW_BUF);
	struct nft_batch *bt = malloc(sizeof(*bt));
	struct nl_sock *s = NULL;
	int rc;

	if (rep != NULL)
		memset(rep, 0, sizeof(*rep));
	if (x == NULL || buf == NULL || bt == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	if ((rc = read_table(s, x, e)) < 0)
		goto out;
	carry_counters(x, b, n);
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
	if ((rc = nft_batch_send(s, bt, NULL, e)) < 0) {
		err_context(e, "the kernel refused the egress rules (nothing "
		    "changed)");
		goto out;
	}
	sock_done(s);
	s = NULL;
	rc = egfw_refill(b, n, gw, rep, e);
out:
	sock_done(s);
	free(bt);
	free(buf);
	free(x);
	return rc;
}

int
egfw_feed_batch(struct nl_sock **s, const struct egfw_box *b,
    const char *name, const uint32_t *addr, const uint32_t *ttl_s, size_t n,
    struct box_err *e)
{
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	size_t cap = 4096 + n * (sizeof(struct nft_set_elem) + 64), i;
	struct nft_batch *bt = malloc(sizeof(*bt));
	struct nft_set_elem *el = calloc(n > 0 ? n : 1, sizeof(*el));
	unsigned char *buf = malloc(cap);
	struct refill r;
	int rc;

	if (bt == NULL || el == NULL || buf == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (n == 0 || n > EGFW_FEED_MAX) {
		rc = err_set(e, -EINVAL, "%zu addresses in one feed", n);
		goto out;
	}
	if (!enforced(b) || !egfw_covers(b, name)) {
		rc = enforced(b) ? -EPERM : -ENOENT;
		goto out;
	}
	memset(&r, 0, sizeof(r));
	r.fresh = el;
	for (i = 0; i < n; i++)
		put_fresh(&r, name, addr[i], ttl_s[i]);
	egfw_set_names(b->name, a, l);
	if (*s == NULL && (rc = with_sock(s, e)) < 0)
		goto out;
	nft_batch_init(bt, buf, cap, (*s)->seq);
	nft_setelems_add(bt, INET, TABLE, a, el, r.nfresh);
	if ((rc = nft_batch_send(*s, bt, NULL, e)) < 0) {
		sock_done(*s);		/* a fresh one next time */
		*s = NULL;
	}
out:
	free(buf);
	free(el);
	free(bt);
	return rc;
}

void
egfw_feed_close(struct nl_sock *s)
{
	sock_done(s);
}

int
egfw_feed(const struct egfw_box *b, const char *name, uint32_t addr,
    uint32_t ttl_s, struct box_err *e)
{
	struct nl_sock *s = NULL;
	int rc;

	rc = egfw_feed_batch(&s, b, name, &addr, &ttl_s, 1, e);
	sock_done(s);
	return rc;
}

int
egfw_log(const char *box, struct egfw_refused *v, size_t max, size_t *n,
    size_t *total, uint64_t *refused, long long *since, struct box_err *e)
{
	struct egfw_rd *x = calloc(1, sizeof(*x));
	struct nft_set_elem *el = calloc(EGFW_LOG_SIZE, sizeof(*el));
	struct egfw_refused *all = calloc(EGFW_LOG_SIZE, sizeof(*all));
	struct nl_sock *s = NULL;
	char a[NFT_NAMELEN], l[NFT_NAMELEN];
	uint64_t pk, by;
	size_t i, got = 0, nel = 0;
	int rc;

	*n = 0;
	*total = 0;
	*refused = 0;
	*since = 0;
	if (x == NULL || el == NULL || all == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	egfw_set_names(box, a, l);
	if ((rc = with_sock(&s, e)) < 0)
		goto out;
	rc = nft_list_setelems(s, INET, TABLE, l, el, EGFW_LOG_SIZE, &got,
	    &nel, e);
	if (rc < 0)
		goto out;
	*total = egfw_log_fold(el, got, EGFW_LOG_TIMEOUT_MS, all,
	    EGFW_LOG_SIZE);
	for (i = 0; i < *total && i < max; i++)
		v[(*n)++] = all[i];
	*since = since_of(s, l);
	/* The refusing rules' counters. */
	if ((rc = read_rules(s, x, e)) < 0)
		goto out;
	counter_of(x, box, EGFW_REFUSED, &pk, &by);
	*refused = pk;
	counter_of(x, box, EGFW_REFUSED_TCP, &pk, &by);
	*refused += pk;
out:
	sock_done(s);
	free(all);
	free(el);
	free(x);
	return rc;
}
