/*
 * fuzz_dns - the DNS wire reader (net/dns.h): every packet a box sends
 * the resolver, and every answer an upstream sends back.  The first byte
 * picks the reader.  A query that parses must give a text name of the
 * form the view compares (lower-case LDH, '_', dots and \DDD escapes
 * only), a wire name within bounds, and replies that build and parse
 * back, and a view's verdict (host/resolver/view.h) whose EDE text fits
 * its bound; an answer that parses holds at most DNS_MAXADDR addresses,
 * and the resolver's TTL rewrite and rebinding fence (answer.h) stay in
 * bounds and settle in one pass.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/resolver/answer.h"
#include "host/resolver/view.h"
#include "net/dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dns_query q;
static struct dns_answer a;
static unsigned char out[DNS_MAXMSG];

static void
query(const uint8_t *p, size_t n)
{
	char txt[64];
	size_t i;
	int len, code;

	if (dns_query_parse(p, n, &q) != 0)
		return;
	if (q.q.wlen == 0 || q.q.wlen > DNS_NAME_WIRE)
		abort();
	for (i = 0; q.q.name[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789-_.\\",
		    q.q.name[i]) == NULL)
			abort();
	{
		static struct rsv_box b;
		struct rsv_verdict v;

		b.pol.mode = EGRESS_ALLOW;
		b.pol.n = 1;
		memcpy(b.pol.pat[0], "*.pypi.org", 11);
		memcpy(b.name, "fuzz", 5);
		rsv_view(&b, &q, &v);
		if (strlen(v.text) > DNS_EDE_TEXTMAX ||
		    (v.act == RSV_FORWARD && !rsv_allowed(&b, q.q.name)))
			abort();
		if (v.act == RSV_REFUSE && dns_build_reply(&q, 1, 0, v.rcode,
		    v.ede, v.text, out, sizeof(out)) <= 0)
			abort();
	}
	{
		/* the host's view question: NAME within the name, in bound */
		char inner[DNS_NAME_TEXT];
		unsigned o;

		if (rsv_view_ask(q.q.name, &o, inner, sizeof(inner)) == 0 &&
		    (o < 1 || o > 254 || inner[0] == '\0' ||
		    strncmp(q.q.name, inner, strlen(inner)) != 0))
			abort();
	}
	len = dns_build_reply(&q, 1, 0, DNS_R_NXDOMAIN, DNS_EDE_BLOCKED,
	    "blocked", out, sizeof(out));
	if (len <= 0)
		abort();
	if (q.edns && (dns_ede_read(out, (size_t)len, &code, txt,
	    sizeof(txt)) != 1 || code != DNS_EDE_BLOCKED ||
	    strcmp(txt, "blocked") != 0))
		abort();
	len = dns_build_query(&q, 0x4242, out, sizeof(out));
	if (len <= 0)
		abort();
	/* what we send upstream is itself a query that parses, same name */
	{
		static struct dns_query again;

		if (dns_query_parse(out, (size_t)len, &again) != 0 ||
		    strcmp(again.q.name, q.q.name) != 0)
			abort();
	}
}

static void
answer(const uint8_t *p, size_t n)
{
	static const unsigned char qm[] = {
		0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0,
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
		0, 1, 0, 1,
	};
	char txt[64];
	int code;

	if (dns_query_parse(qm, sizeof(qm), &q) != 0)
		abort();
	if (dns_answer_parse(p, n, &q.q, 0x1234, &a) == 0 &&
	    a.naddr > DNS_MAXADDR)
		abort();
	(void)dns_ede_read(p, n, &code, txt, sizeof(txt));
	/* the resolver's judge and TTL rewrite (host/resolver/answer.h):
	 * within bounds; an answer it passes has every TTL its own, and
	 * a second pass finds nothing more to change */
	if (n <= sizeof(out)) {
		static unsigned char again[DNS_MAXMSG];
		struct rsv_fence f;
		uint32_t bad;
		int rc;

		memset(&f, 0, sizeof(f));
		f.net = 0xcb007100u;
		memcpy(out, p, n);
		rc = rsv_answer_fix(out, n, &f, RSV_TTL, &bad, NULL);
		if (rc == 1 && (!rsv_fenced(&f, bad, NULL) ||
		    memcmp(out, p, n) != 0))
			abort();
		if (rc == 0) {
			memcpy(again, out, n);
			if (rsv_answer_fix(again, n, &f, RSV_TTL, &bad,
			    NULL) != 0 || memcmp(again, out, n) != 0)
				abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		answer(data + 1, size - 1);
	else
		query(data + 1, size - 1);
	return 0;
}
