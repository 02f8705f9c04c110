/* ct.c - connection tracking over ctnetlink (see ct.h). */
#include "net/ct.h"

#include <errno.h>
#include <string.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#define AF_INET_	2	/* <sys/socket.h>'s, without it */
#define P_ICMP		1
#define P_TCP		6
#define P_UDP		17
#define P_DCCP		33
#define P_SCTP		132
#define P_UDPLITE	136

static int
ports_of(uint8_t p)
{
	return p == P_TCP || p == P_UDP || p == P_DCCP || p == P_SCTP ||
	    p == P_UDPLITE;
}

static int
parse_ip(const struct nl_attr *a, struct ct_tuple *t)
{
	struct nl_attr tb[CTA_IP_MAX + 1];

	if (nl_attr_parse_nested(a, tb, CTA_IP_MAX + 1) < 0)
		return -EBOX_PROTO;
	if (tb[CTA_IP_V6_SRC].present || tb[CTA_IP_V6_DST].present)
		return 0;
	if (nl_attr_be32(&tb[CTA_IP_V4_SRC], &t->src) < 0 ||
	    nl_attr_be32(&tb[CTA_IP_V4_DST], &t->dst) < 0)
		return -EBOX_PROTO;
	return 1;
}

static int
parse_proto(const struct nl_attr *a, struct ct_tuple *t)
{
	struct nl_attr tb[CTA_PROTO_MAX + 1];

	if (nl_attr_parse_nested(a, tb, CTA_PROTO_MAX + 1) < 0 ||
	    nl_attr_u8(&tb[CTA_PROTO_NUM], &t->proto) < 0)
		return -EBOX_PROTO;
	if (ports_of(t->proto)) {
		if (nl_attr_be16(&tb[CTA_PROTO_SRC_PORT], &t->sport) < 0 ||
		    nl_attr_be16(&tb[CTA_PROTO_DST_PORT], &t->dport) < 0)
			return -EBOX_PROTO;
		t->has_ports = 1;
	} else if (t->proto == P_ICMP) {
		if (nl_attr_be16(&tb[CTA_PROTO_ICMP_ID], &t->icmp_id) < 0 ||
		    nl_attr_u8(&tb[CTA_PROTO_ICMP_TYPE], &t->icmp_type) < 0 ||
		    nl_attr_u8(&tb[CTA_PROTO_ICMP_CODE], &t->icmp_code) < 0)
			return -EBOX_PROTO;
		t->has_icmp = 1;
	}
	return 0;
}

int
ct_parse(const struct nl_msg *m, struct ct_tuple *t)
{
	struct nl_attr tb[CTA_MAX + 1], tu[CTA_TUPLE_MAX + 1];
	struct nfgenmsg g;
	int r;

	memset(t, 0, sizeof(*t));
	if (m->hdr.nlmsg_type != (NFNL_SUBSYS_CTNETLINK << 8 |
	    IPCTNL_MSG_CT_NEW))
		return 0;
	if (m->len < sizeof(g))
		return -EBOX_PROTO;
	memcpy(&g, m->data, sizeof(g));
	if (g.nfgen_family != AF_INET_)
		return 0;
	if (nl_msg_attrs(m, sizeof(g), tb, CTA_MAX + 1) < 0 ||
	    !tb[CTA_TUPLE_ORIG].present ||
	    nl_attr_parse_nested(&tb[CTA_TUPLE_ORIG], tu,
	    CTA_TUPLE_MAX + 1) < 0 || !tu[CTA_TUPLE_IP].present ||
	    !tu[CTA_TUPLE_PROTO].present)
		return -EBOX_PROTO;
	if ((r = parse_ip(&tu[CTA_TUPLE_IP], t)) <= 0)
		return r;
	if (parse_proto(&tu[CTA_TUPLE_PROTO], t) < 0)
		return -EBOX_PROTO;
	if (tb[CTA_ZONE].present && nl_attr_be16(&tb[CTA_ZONE], &t->zone) < 0)
		return -EBOX_PROTO;
	return 1;
}

int
ct_build_delete(struct nl_buf *b, const struct ct_tuple *t, uint32_t seq)
{
	size_t tu, n;

	nl_nfmsg_begin(b, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_DELETE,
	    AF_INET_, NLM_F_ACK, seq);
	tu = nl_nest_begin(b, CTA_TUPLE_ORIG);
	n = nl_nest_begin(b, CTA_TUPLE_IP);
	nl_put_be32(b, CTA_IP_V4_SRC, t->src);
	nl_put_be32(b, CTA_IP_V4_DST, t->dst);
	nl_nest_end(b, n);
	n = nl_nest_begin(b, CTA_TUPLE_PROTO);
	nl_put_u8(b, CTA_PROTO_NUM, t->proto);
	if (t->has_ports) {
		nl_put_be16(b, CTA_PROTO_SRC_PORT, t->sport);
		nl_put_be16(b, CTA_PROTO_DST_PORT, t->dport);
	} else if (t->has_icmp) {
		nl_put_be16(b, CTA_PROTO_ICMP_ID, t->icmp_id);
		nl_put_u8(b, CTA_PROTO_ICMP_TYPE, t->icmp_type);
		nl_put_u8(b, CTA_PROTO_ICMP_CODE, t->icmp_code);
	}
	nl_nest_end(b, n);
	nl_nest_end(b, tu);
	if (t->zone != 0)
		nl_put_be16(b, CTA_ZONE, t->zone);
	return nl_msg_end(b);
}

int
ct_build_dump(struct nl_buf *b, uint32_t seq)
{
	nl_nfmsg_begin(b, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_GET, AF_INET_,
	    NLM_F_DUMP, seq);
	return nl_msg_end(b);
}

struct dump_ctx {
	ct_fn fn;
	void *arg;
};

static int
on_entry(const struct nl_msg *m, void *arg)
{
	struct dump_ctx *c = arg;
	struct ct_tuple t;
	int r = ct_parse(m, &t);

	if (r < 0)
		return r;
	return r == 1 ? c->fn(&t, c->arg) : 0;
}

int
ct_dump(struct nl_sock *s, ct_fn fn, void (*reset)(void *), void *arg,
    struct box_err *e)
{
	struct dump_ctx c = { fn, arg };
	unsigned char req[64];
	struct nl_buf b;
	struct nl_error ne;
	int r, tries;

	for (tries = 0; tries < 4; tries++) {
		if (reset != NULL)
			reset(arg);
		nl_buf_init(&b, req, sizeof(req));
		if ((r = ct_build_dump(&b, nl_seq_take(s, 1))) != 0)
			return err_set(e, r, "conntrack: dump: %s",
			    err_str(r));
		r = nl_dump(s, req, b.len, on_entry, &c, &ne,
		    "conntrack: dump", e);
		if (r != -EINTR)
			return r;
		err_clear(e);
	}
	return err_set(e, -EAGAIN, "conntrack: the table kept changing "
	    "while it was read");
}

int
ct_delete(struct nl_sock *s, const struct ct_tuple *v, size_t n,
    size_t *gone, struct box_err *e)
{
	unsigned char req[256];
	struct nl_buf b;
	struct nl_error ne;
	struct box_err one;
	size_t i;
	int r, first = 0;

	*gone = 0;
	for (i = 0; i < n; i++) {
		nl_buf_init(&b, req, sizeof(req));
		if ((r = ct_build_delete(&b, &v[i], nl_seq_take(s, 1))) != 0)
			return err_set(e, r, "conntrack: delete: %s",
			    err_str(r));
		err_clear(&one);
		r = nl_request(s, req, b.len, NULL, NULL, &ne,
		    "conntrack: delete", &one);
		if (r == 0)
			(*gone)++;
		else if (r != -ENOENT && first == 0) {
			first = r;
			err_set(e, r, "%s", one.msg);
		}
		if (s->broken)
			return first != 0 ? first : err_set(e, -EIO,
			    "conntrack: the socket broke");
	}
	return first;
}
