/*
 * nft.h - nf_tables messages on top of net/nl.h.
 *
 * A struct nft_batch turns a sequence of calls into ONE nfnetlink batch
 * (NFNL_MSG_BATCH_BEGIN ... END), which the kernel applies whole or not at
 * all.  Everything is written into a caller-provided buffer; nothing
 * allocates.  Every builder refuses instead of overflowing: the first
 * refusal (-ENOSPC buffer full, -EMSGSIZE attribute too long,
 * -ENAMETOOLONG a name or comment over its limit, -EINVAL a call out of
 * order or a bad argument) is sticky, later calls return it and do
 * nothing, and nft_batch_send() will not send a refused batch.  So a whole
 * firewall can be written straight through and checked once.
 *
 * Sizes: a rule of a few matches is 200..400 bytes; 16 KiB holds a
 * firewall of about 40 rules.  A batch holds at most NFT_BATCH_MAXMSG
 * messages.
 *
 * Idempotent convergence, the pattern we use for our own chains:
 *   nft_table_add()            create if missing, no error if present
 *   nft_chain_add()            same for a chain (a base chain's hook and
 *                              priority must match an existing one)
 *   nft_chain_flush()          delete the chain's rules
 *   nft_rule_begin()/..._end() add the rules again
 * in one batch: no duplicates, nothing outside our chains touched, and a
 * kernel refusal of any rule leaves the previous rules in place.
 * nft_chain_reset() replaces a chain whose hook/priority/policy may differ.
 *
 * Rules are built from expressions between nft_rule_begin() and
 * nft_rule_end(): low-level ones (nft_expr_*: registers and raw data, as
 * `nft --debug=netlink` shows them) and composites (nft_match_*) that
 * emit the same expression sequences the nft program generates for the
 * equivalent text, so `nft list ruleset` reads our rules back as ordinary
 * nft syntax.  Our rules carry their comment in NFTA_RULE_USERDATA (the
 * libnftnl TLV that nft shows as `comment "..."`).
 */
#ifndef BOX_NFT_H
#define BOX_NFT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netfilter/nf_tables.h>

#include "net/nl.h"
#include "util/err.h"

/* Families (the NFPROTO_* values; named here to keep linux/netfilter.h,
 * whose <linux/in.h> collides with musl's <netinet/in.h>, out of users). */
enum {
	NFT_FAM_INET = 1,
	NFT_FAM_IPV4 = 2,
	NFT_FAM_ARP = 3,
	NFT_FAM_NETDEV = 5,
	NFT_FAM_BRIDGE = 7,
	NFT_FAM_IPV6 = 10,
};

/* Hooks: the NF_INET_* numbers, which NF_BR_* share. */
enum {
	NFT_HOOK_PREROUTING = 0,
	NFT_HOOK_INPUT = 1,
	NFT_HOOK_FORWARD = 2,
	NFT_HOOK_OUTPUT = 3,
	NFT_HOOK_POSTROUTING = 4,
};

/* Verdict codes (NF_DROP, NF_ACCEPT, enum nft_verdicts). */
enum {
	NFT_V_DROP = 0,
	NFT_V_ACCEPT = 1,
	NFT_V_CONTINUE = -1,
	NFT_V_JUMP = -3,
	NFT_V_GOTO = -4,
	NFT_V_RETURN = -5,
};

/* ct state bits, for nft_match_ct_state(). */
#define NFT_CTSTATE_INVALID	0x01u
#define NFT_CTSTATE_ESTABLISHED	0x02u
#define NFT_CTSTATE_RELATED	0x04u
#define NFT_CTSTATE_NEW		0x08u
#define NFT_CTSTATE_UNTRACKED	0x40u

#define NFT_BATCH_MAXMSG	320	/* messages per batch, no markers: the
				   contract and 24 allow boxes at 9 each */
#define NFT_DESC_LEN		64	/* per-message description kept */
#define NFT_NAMELEN		64	/* our table/chain names, with NUL */
#define NFT_COMMENT_MAX		128	/* rule comment, NUL included (nft's) */
#define NFT_CANON_MAX		1024	/* canonical expression text */

struct nft_batch {
	struct nl_buf b;
	uint32_t seq0;		/* sequence number of the begin marker */
	uint32_t seq;		/* next sequence number */
	int ended;		/* end marker written */
	int rule_family;	/* family of the open rule; 0 when none */
	size_t rule_exprs;	/* offset of the open rule's expression list */
	unsigned rule_deps;	/* protocol dependencies already matched */
	int rule_l4;		/* l4proto matched in the open rule, or -1 */
	int rule_has_comment;
	char rule_comment[NFT_COMMENT_MAX];	/* written at nft_rule_end() */
	unsigned nmsg;		/* messages between the markers */
	unsigned nrules;	/* rules added so far */
	char desc[NFT_BATCH_MAXMSG][NFT_DESC_LEN];
};

/*
 * Start a batch in buf[0..cap) whose begin marker gets sequence number
 * seq.  For a batch to be sent, pass s->seq of the socket it goes to
 * (nft_batch_send() moves s->seq past the batch).
 */
void nft_batch_init(struct nft_batch *bt, void *buf, size_t cap, uint32_t seq);

/* The sticky refusal, or 0. */
int nft_batch_err(const struct nft_batch *bt);

/* Write the end marker (idempotent).  The wire bytes are then
 * bt->b.p[0..bt->b.len). */
int nft_batch_end(struct nft_batch *bt);

/*
 * End the batch if needed, send it, and collect one ACK per message.
 * 0 when the kernel applied it.  When the kernel refuses, the whole batch
 * is void (nothing changed), e reads e.g.
 *   nf_tables: message 7 of 12 (add rule inet box/input "dns") refused:
 *   Operation not supported (kernel: ...)
 * and *ne (may be NULL) holds the decoded error.  Also sends nothing and
 * returns the refusal when a builder refused.
 */
int nft_batch_send(struct nl_sock *s, struct nft_batch *bt,
    struct nl_error *ne, struct box_err *e);

/*
 * The description of the message with sequence number seq ("batch" for
 * the markers, "?" when unknown).
 */
const char *nft_batch_desc(const struct nft_batch *bt, uint32_t seq);

/* ------------------------------------------------------ tables and chains */

/* Create table if missing (NLM_F_CREATE without EXCL); flags e.g.
 * NFT_TABLE_F_DORMANT.  Re-adding an existing table changes nothing but
 * its flags. */
int nft_table_add(struct nft_batch *bt, int family, const char *name,
    uint32_t flags);
/* Delete a table and all it holds (ENOENT at send time if missing). */
int nft_table_del(struct nft_batch *bt, int family, const char *name);
/* Delete a table whether or not it exists: add, then delete. */
int nft_table_destroy(struct nft_batch *bt, int family, const char *name);
/* Delete every rule in every chain of the table. */
int nft_table_flush(struct nft_batch *bt, int family, const char *name);

struct nft_chain_spec {
	const char *name;
	const char *type;	/* "filter", "nat", "route"; NULL for a
				   regular (non-base) chain */
	int hook;		/* NFT_HOOK_*, when type != NULL */
	int32_t prio;		/* e.g. -5 (filter - 5), 110 (srcnat + 10) */
	int policy;		/* NFT_V_ACCEPT / NFT_V_DROP; -1: default */
};

/* Create a chain if missing.  For a base chain that exists, the hook and
 * priority must be the same: the kernel refuses a change (EOPNOTSUPP on
 * 6.x); use nft_chain_reset() when they may differ.  The policy of an
 * existing base chain is updated. */
int nft_chain_add(struct nft_batch *bt, int family, const char *table,
    const struct nft_chain_spec *c);
/* Delete an empty, unreferenced chain (ENOENT at send time if missing). */
int nft_chain_del(struct nft_batch *bt, int family, const char *table,
    const char *name);
/* Delete every rule of one chain. */
int nft_chain_flush(struct nft_batch *bt, int family, const char *table,
    const char *name);
/*
 * Make the chain exactly spec and empty, whatever existed: add it as a
 * regular chain (a no-op if present), flush it, delete it, add it per
 * spec.  Fails at send time only if another chain jumps to it.
 */
int nft_chain_reset(struct nft_batch *bt, int family, const char *table,
    const struct nft_chain_spec *c);

/* ----------------------------------------------------------------- rules */

/*
 * Open a rule appended at the end of table/chain.  comment (may be NULL)
 * is stored as the rule's userdata comment, < NFT_COMMENT_MAX bytes.
 * Then add expressions, then nft_rule_end().
 */
int nft_rule_begin(struct nft_batch *bt, int family, const char *table,
    const char *chain, const char *comment);
int nft_rule_end(struct nft_batch *bt);

/* Low-level expressions (registers: NFT_REG_VERDICT, NFT_REG_1..4). */
int nft_expr_meta(struct nft_batch *bt, uint32_t key, uint32_t dreg);
int nft_expr_cmp(struct nft_batch *bt, uint32_t sreg, uint32_t op,
    const void *data, size_t n);
int nft_expr_payload(struct nft_batch *bt, uint32_t base, uint32_t off,
    uint32_t len, uint32_t dreg);
/* dreg = (sreg & mask) ^ xor over n bytes. */
int nft_expr_bitwise(struct nft_batch *bt, uint32_t sreg, uint32_t dreg,
    const void *mask, const void *xor, size_t n);
int nft_expr_ct(struct nft_batch *bt, uint32_t key, uint32_t dreg);
int nft_expr_counter(struct nft_batch *bt);
int nft_expr_masq(struct nft_batch *bt);
/*
 * reject: type NFT_REJECT_TCP_RST (code -1: a reset carries none; the
 * rule must match tcp first), NFT_REJECT_ICMP_UNREACH with an ICMP code,
 * or NFT_REJECT_ICMPX_UNREACH with an NFT_REJECT_ICMPX_* code (inet).
 */
int nft_expr_reject(struct nft_batch *bt, uint32_t type, int code);
/*
 * The verdict: NFT_V_ACCEPT, NFT_V_DROP, NFT_V_RETURN, NFT_V_CONTINUE, or
 * NFT_V_JUMP / NFT_V_GOTO with a chain name (NULL otherwise).
 */
int nft_verdict(struct nft_batch *bt, int code, const char *chain);

/*
 * Composites (each as nft generates it):
 *  nft_match_ifname  meta key (NFT_META_IIFNAME, _OIFNAME, _BRI_IIFNAME,
 *                    _BRI_OIFNAME) == name; a trailing '*' matches a prefix
 *  nft_match_l4proto meta l4proto == proto (IPPROTO_*)
 *  nft_match_nfproto meta nfproto == nfproto (NFT_FAM_IPV4 / _IPV6)
 *  nft_match_port    l4proto == proto (once per rule, as nft does), then
 *                    th sport/dport == port
 *  nft_match_addr    ip/ip6 saddr/daddr in addr/prefix (alen 4 or 16,
 *                    network order; host bits are masked off).  The
 *                    protocol dependency follows the rule's family: meta
 *                    nfproto in inet, meta protocol in bridge/netdev,
 *                    nothing in ip/ip6; emitted once per rule.
 *  nft_match_ct_state ct state & states != 0 (NFT_CTSTATE_* bits)
 *  nft_nat_to        snat/dnat to an IPv4 address (and port if nonzero)
 */
int nft_match_ifname(struct nft_batch *bt, uint32_t key, const char *name);
int nft_match_l4proto(struct nft_batch *bt, uint8_t proto);
int nft_match_nfproto(struct nft_batch *bt, uint8_t nfproto);
int nft_match_port(struct nft_batch *bt, uint8_t proto, int dport,
    uint16_t port);
int nft_match_addr(struct nft_batch *bt, int daddr, const void *addr,
    size_t alen, unsigned prefix);
/* The same with the comparison given: NFT_CMP_EQ, or NFT_CMP_NEQ for
 * "ip saddr != addr/prefix". */
int nft_match_addr_op(struct nft_batch *bt, int daddr, const void *addr,
    size_t alen, unsigned prefix, uint32_t op);
int nft_match_ct_state(struct nft_batch *bt, uint32_t states);
int nft_nat_to(struct nft_batch *bt, uint32_t type, const void *addr4,
    uint16_t port);

/* ------------------------------------------------------- reading back */

struct nft_chain_info {
	char name[NFT_NAMELEN];
	char type[16];		/* "" for a regular chain */
	int base;		/* has a hook */
	uint32_t hook;
	int32_t prio;
	int policy;		/* NFT_V_ACCEPT / NFT_V_DROP; -1 none */
	uint64_t handle;
	unsigned nrules;	/* rules counted by nft_list_table() */
};

struct nft_rule_info {
	char chain[NFT_NAMELEN];
	uint64_t handle;
	char comment[NFT_COMMENT_MAX];	/* "" when none */
	char exprs[128];	/* expression names, "meta,cmp,immediate" */
	unsigned nexprs;
	/* The expressions by content, canonical (see parse_exprs() in
	 * nft.c): equal text, equal rule.  canon_trunc: it did not fit, and
	 * such a rule never compares equal. */
	char canon[NFT_CANON_MAX];
	int canon_trunc;
	/* The last counter expression's values (has_counter: one was seen):
	 * left out of canon, since they move. */
	int has_counter;
	uint64_t packets, bytes;
};

/*
 * What nft_list_table() fills.  The caller provides the arrays and their
 * sizes; rules may be NULL (rules are then only counted per chain).
 */
struct nft_table_info {
	int exists;
	uint32_t flags;
	uint64_t handle;
	struct nft_chain_info *chains;
	size_t maxchains, nchains;
	struct nft_rule_info *rules;
	size_t maxrules, nrules;
};

/*
 * Read what the kernel holds for one table: whether it exists, its chains
 * (in the kernel's order) with a rule count each, and its rules.  A
 * missing table is not an error (exists = 0).  -ENOSPC when the arrays are
 * too small; dumps interrupted by a concurrent change are retried.
 */
int nft_list_table(struct nl_sock *s, int family, const char *table,
    struct nft_table_info *ti, struct box_err *e);

/*
 * Decoders of single dump messages (pure; the fuzzer drives them).  Each
 * returns 1 when m describes an object of table, 0 when it belongs to
 * another table or is not of that kind, -EBOX_PROTO when malformed.
 */
int nft_parse_table(const struct nl_msg *m, const char *table,
    uint32_t *flags, uint64_t *handle);
int nft_parse_chain(const struct nl_msg *m, const char *table,
    struct nft_chain_info *ci);
int nft_parse_rule(const struct nl_msg *m, const char *table,
    struct nft_rule_info *ri);

/* ------------------------------------------------------------------ sets */

/*
 * Named sets of the table, as the egress policy uses them: keys of one
 * datatype (nft's type ids: NFT_TYPE_IPV4_ADDR, or a concatenation built
 * with NFT_TYPE_CONCAT2/3), optional timeout (flags NFT_SET_TIMEOUT,
 * timeout_ms the default for elements added without one) and optional
 * packet-path updates (NFT_SET_EVAL, what nft calls "dynamic").
 * size bounds the elements (0: the kernel's default).
 */
#define NFT_TYPE_IPV4_ADDR	7
#define NFT_TYPE_INET_PROTO	12
#define NFT_TYPE_INET_SERVICE	13
#define NFT_TYPE_MARK		19
#define NFT_TYPE_CONCAT2(a, b)		((uint32_t)(a) << 6 | (uint32_t)(b))
#define NFT_TYPE_CONCAT3(a, b, c)	((uint32_t)(a) << 12 | \
					 (uint32_t)(b) << 6 | (uint32_t)(c))
#define NFT_TYPE_INTEGER	4
#define NFT_TYPE_ETHER_ADDR	9
#define NFT_TYPE_IFNAME		41
#define NFT_SET_KEYMAX		32	/* key bytes we build or read: an
					   ifname . ether_addr . ipv4_addr
					   concatenation is 16 + 8 + 4 */

struct nft_set_spec {
	const char *name;
	uint32_t key_type;
	uint32_t key_len;	/* bytes, 1..NFT_SET_KEYMAX */
	uint32_t flags;		/* NFT_SET_TIMEOUT, NFT_SET_EVAL */
	uint64_t timeout_ms;	/* with NFT_SET_TIMEOUT; 0: none */
	uint32_t size;		/* 0: unbounded by us */
	uint32_t data_type;	/* a map's data type (with data_len) */
	uint32_t data_len;	/* > 0: a map (NFT_SET_MAP), bytes of data */
	const char *comment;	/* NULL, or the set's comment (< 128) */
};

/* Create the set if missing (an existing one keeps its elements). */
int nft_set_add(struct nft_batch *bt, int family, const char *table,
    const struct nft_set_spec *sp);
/* The same with NFTA_SET_USERDATA as nft writes it (a `typeof`
 * declaration), so that nft lists the set in text it can load again. */
int nft_set_add_udata(struct nft_batch *bt, int family, const char *table,
    const struct nft_set_spec *sp, const void *udata, size_t udata_len);
/* Delete a set (ENOENT at send time if missing; EBUSY if a rule uses it). */
int nft_set_del(struct nft_batch *bt, int family, const char *table,
    const char *name);

/* lookup: the key in sreg is in set (or, inverted, is not). */
int nft_expr_lookup(struct nft_batch *bt, uint32_t sreg, const char *set,
    int inverted);
/* dynset: op NFT_DYNSET_OP_ADD / _UPDATE the key in sreg into set, with
 * the set's default timeout (update refreshes an element's expiry). */
int nft_expr_dynset(struct nft_batch *bt, uint32_t op, uint32_t sreg,
    const char *set);
/*
 * dynset add with a connection limit, as nft writes
 *   add @set { <key in sreg> ct count over <count> }
 * (over: the limit's inverted flag; the rule goes on when the key's
 * connections exceed count).  The set needs NFT_SET_EVAL.
 */
int nft_expr_dynset_connlimit(struct nft_batch *bt, uint32_t sreg,
    const char *set, uint32_t count, int over);

/*
 * Elements: add n keys of klen bytes each (keys[i*klen ..]) to a set, in
 * one message (at most NFT_SETELEM_MAX); flush removes every element.
 */
#define NFT_SETELEM_MAX		256
int nft_setelem_add(struct nft_batch *bt, int family, const char *table,
    const char *set, const unsigned char *keys, size_t klen, size_t n);
int nft_set_flush(struct nft_batch *bt, int family, const char *table,
    const char *set);

/* The same on a map: op ADD, UPDATE or DELETE the key in sreg (with the
 * data in sreg_data: the kernel wants it for a map, also on delete). */
int nft_expr_dynset_map(struct nft_batch *bt, uint32_t op, uint32_t sreg,
    uint32_t sreg_data, const char *set);
/* numgen inc mod modulus (offset 0) into dreg. */
int nft_expr_numgen_inc(struct nft_batch *bt, uint32_t dreg,
    uint32_t modulus);
/* A counter that starts at packets/bytes (carried over a rebuild). */
int nft_expr_counter_from(struct nft_batch *bt, uint64_t packets,
    uint64_t bytes);
/* ether saddr == mac, as nft writes it in an inet chain (meta iiftype
 * ether first). */
int nft_match_ether_saddr(struct nft_batch *bt, const unsigned char mac[6]);

#define NFT_ELEM_COMMENT_MAX	256	/* an element's comment, NUL included */

/* One element as read back (or to add). */
struct nft_set_elem {
	unsigned char key[NFT_SET_KEYMAX];
	uint32_t klen;
	unsigned char data[NFT_SET_KEYMAX];	/* a map's data */
	uint32_t dlen;
	uint64_t timeout_ms;	/* 0: none (the set's, when it has one) */
	uint64_t expires_ms;	/* time left; 0: none */
	char comment[NFT_ELEM_COMMENT_MAX];	/* udata comment, "" none */
};

/*
 * Empty a set (DELSETELEM without elements): in one batch with
 * nft_setelems_add() the set's contents are replaced at once.
 */
int nft_setelems_flush(struct nft_batch *bt, int family, const char *table,
    const char *set);
/*
 * Add v[0..n) (key, timeout_ms and expires_ms when non-zero, comment as
 * the libnftnl udata nft shows as `comment "..."`), as many NEWSETELEM
 * messages as their size needs (each at most NFT_ELEMS_MSGMAX bytes of
 * elements).  The batch's message count grows by nft_setelems_msgs().
 */
#define NFT_ELEMS_MSGMAX	(48u << 10)
int nft_setelems_add(struct nft_batch *bt, int family, const char *table,
    const char *set, const struct nft_set_elem *v, size_t n);
size_t nft_setelems_msgs(const struct nft_set_elem *v, size_t n);

/*
 * A set's comment (its udata, as nft_set_spec.comment wrote it): 0 and
 * buf ("" when none), -ENOENT when the set does not exist.
 */
int nft_set_comment(struct nl_sock *s, int family, const char *table,
    const char *set, char *buf, size_t cap, struct box_err *e);
/* Decode one NEWSET message's comment: 1 when it is table's set name. */
int nft_parse_set_comment(const struct nl_msg *m, const char *table,
    const char *set, char *buf, size_t cap);

/*
 * Decode one NEWSETELEM dump message of table/set: the elements appended
 * to v[*n..max) (*n moved; those beyond max counted in *dropped, which
 * may be NULL).  1 when it was that set's, 0 another's, -EBOX_PROTO when
 * malformed.  Pure; the fuzzer drives it.
 */
int nft_parse_setelems(const struct nl_msg *m, const char *table,
    const char *set, struct nft_set_elem *v, size_t max, size_t *n,
    size_t *dropped);

/* Decode one NEWSET dump message: 1 and name when it is a set of table. */
int nft_parse_set(const struct nl_msg *m, const char *table, char *name,
    size_t cap);

/*
 * Read a set's elements (at most max kept, *total counts all): 0, or
 * -ENOENT when the set does not exist, or another -errno (e set).
 */
int nft_list_setelems(struct nl_sock *s, int family, const char *table,
    const char *set, struct nft_set_elem *v, size_t max, size_t *n,
    size_t *total, struct box_err *e);

/* The names of the table's sets (at most max; -ENOSPC beyond). */
int nft_list_sets(struct nl_sock *s, int family, const char *table,
    char (*names)[NFT_NAMELEN], size_t max, size_t *n, struct box_err *e);

/* --------------------------------------------------------------- probing */

/* Writes the expressions under test into the open rule. */
typedef int (*nft_expr_fn)(struct nft_batch *bt, void *arg);

/*
 * Can this kernel accept a rule?  Sends one batch: a throwaway dormant
 * table "box-probe-<pid>", the chain per spec, one rule of fn's
 * expressions, and the table's deletion, so nothing remains whether the
 * kernel accepts or refuses.  Returns 1 accepted, 0 refused (*why holds
 * the kernel's answer; may be NULL), < 0 when the probe itself failed (e
 * set; e.g. -EPERM without CAP_NET_ADMIN).
 */
int nft_probe(struct nl_sock *s, int family, const struct nft_chain_spec *c,
    nft_expr_fn fn, void *arg, struct nl_error *why, struct box_err *e);

/*
 * Does the bridge family accept `meta ibrname "x" meta obrname "x"` in a
 * forward chain?  Same return contract as nft_probe().
 */
int nft_probe_brname(struct nl_sock *s, struct nl_error *why,
    struct box_err *e);

#endif
