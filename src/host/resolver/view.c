/*
 * view.c - a box's view of the names (see view.h).
 */
#include "host/resolver/view.h"
#include "host/stack/resolver_unit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int
rsv_allowed(const struct rsv_box *b, const char *name)
{
	int i;

	if (b->pol.mode != EGRESS_ALLOW)
		return 1;
	for (i = 0; i < b->pol.n; i++)
		if (egress_covers(egress_domain(b->pol.pat[i]), name))
			return 1;
	return 0;
}

int
rsv_view_ask(const char *name, unsigned *octet, char *inner, size_t cap)
{
	static const char suf[] = "." RSVD_VIEW_SUFFIX;
	size_t n = strlen(name), s = sizeof(suf) - 1, k;
	const char *end, *p;
	unsigned o = 0;

	if (n <= s || strcmp(name + n - s, suf) != 0)
		return -EINVAL;
	end = name + n - s;		/* the octet's label ends here */
	for (p = end; p > name && p[-1] != '.'; p--)
		;
	if (p == name || end - p < 1 || end - p > 3)
		return -EINVAL;
	for (k = 0; p + k < end; k++) {
		if (p[k] < '0' || p[k] > '9')
			return -EINVAL;
		o = o * 10 + (unsigned)(p[k] - '0');
	}
	if (o < 1 || o > 254 || (p[0] == '0'))
		return -EINVAL;
	k = (size_t)(p - 1 - name);	/* NAME, before the octet's dot */
	if (k == 0 || k >= cap)
		return -EINVAL;
	memcpy(inner, name, k);
	inner[k] = '\0';
	*octet = o;
	return 0;
}

/* name is suffix or lies under it. */
static int
under(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	if (n == s)
		return strcmp(name, suffix) == 0;
	return n > s && name[n - s - 1] == '.' &&
	    strcmp(name + n - s, suffix) == 0;
}

/*
 * Reverse zones of what a box may not reach: the host's and the LAN's
 * names live there (a resolver upstream may know them), never the
 * internet's.
 */
static const char *const private_rev[] = {
	"10.in-addr.arpa", "127.in-addr.arpa", "254.169.in-addr.arpa",
	"168.192.in-addr.arpa", "0.in-addr.arpa",
	"16.172.in-addr.arpa", "17.172.in-addr.arpa", "18.172.in-addr.arpa",
	"19.172.in-addr.arpa", "20.172.in-addr.arpa", "21.172.in-addr.arpa",
	"22.172.in-addr.arpa", "23.172.in-addr.arpa", "24.172.in-addr.arpa",
	"25.172.in-addr.arpa", "26.172.in-addr.arpa", "27.172.in-addr.arpa",
	"28.172.in-addr.arpa", "29.172.in-addr.arpa", "30.172.in-addr.arpa",
	"31.172.in-addr.arpa", "localhost", "ip6.arpa", "local",
	"home.arpa",
};

static int
private_name(const char *name)
{
	static const char cgnat[] = ".100.in-addr.arpa";
	size_t i, n = strlen(name), c = sizeof(cgnat) - 1;
	const char *s;
	unsigned o = 0;

	for (i = 0; i < sizeof(private_rev) / sizeof(private_rev[0]); i++)
		if (under(name, private_rev[i]))
			return 1;
	/* 100.64.0.0/10: the label before 100.in-addr.arpa is 64..127 */
	if (n <= c || strcmp(name + n - c, cgnat) != 0)
		return 0;
	s = name + n - c;
	while (s > name && s[-1] != '.')
		s--;
	for (; *s >= '0' && *s <= '9' && o < 1000; s++)
		o = o * 10 + (unsigned)(*s - '0');
	return *s == '.' && o >= 64 && o <= 127;
}

/* A name for the EDE's text: at most NAMECUT characters, cut visibly
 * (a name may be 1020 characters of escapes; the text has 400). */
#define NAMECUT 90
static void
cut(const char *name, char out[NAMECUT + 4])
{
	size_t n = strlen(name);

	if (n <= NAMECUT) {
		memcpy(out, name, n + 1);
	} else {
		memcpy(out, name, NAMECUT);
		memcpy(out + NAMECUT, "...", 4);
	}
}

static void
refuse(struct rsv_verdict *v, int rcode, int ede, const char *why)
{
	v->act = RSV_REFUSE;
	v->rcode = rcode;
	v->ede = ede;
	v->why = why;
}

void
rsv_view(const struct rsv_box *b, const struct dns_query *q,
    struct rsv_verdict *v)
{
	char nm[NAMECUT + 4];

	memset(v, 0, sizeof(*v));
	v->act = RSV_FORWARD;
	v->ede = -1;
	v->why = "forwarded";
	if (b == NULL) {
		refuse(v, DNS_R_REFUSED, DNS_EDE_PROHIBITED, "not-a-box");
		snprintf(v->text, sizeof(v->text), "box's resolver answers "
		    "only the boxes of this host, by the address Incus "
		    "pinned for each");
		return;
	}
	if (DNS_OPCODE(q->h.flags) != 0) {
		refuse(v, DNS_R_NOTIMP, -1, "opcode");
		return;
	}
	if (q->q.cls != DNS_C_IN) {
		refuse(v, DNS_R_REFUSED, DNS_EDE_PROHIBITED, "class");
		snprintf(v->text, sizeof(v->text), "box's resolver answers "
		    "class IN only");
		return;
	}
	if (q->q.type == DNS_T_AXFR || q->q.type == DNS_T_IXFR) {
		refuse(v, DNS_R_REFUSED, DNS_EDE_NOT_SUPPORTED, "transfer");
		snprintf(v->text, sizeof(v->text), "no zone transfers");
		return;
	}
	cut(q->q.name, nm);
	if (q->q.labels == 1 || private_name(q->q.name)) {
		refuse(v, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED, "local-name");
		snprintf(v->text, sizeof(v->text), "%s is not resolved for "
		    "boxes: no box's name, no host's name, no private "
		    "address's name", nm);
		return;
	}
	if (!rsv_allowed(b, q->q.name)) {
		refuse(v, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED, "not-allowed");
		snprintf(v->text, sizeof(v->text), "box %s may resolve only "
		    "its egress allowlist; %s is not on it: ask for `box "
		    "egress %s allow %s`", b->name, nm, b->name, nm);
		return;
	}
}
