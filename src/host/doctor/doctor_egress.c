/*
 * doctor_egress.c - doctor's word on the boxes' egress policies: each
 * allow box's policy, whether the kernel holds its rules and sets (read
 * back by content, box/egress/egress_fw.h), whether its address set holds
 * an address named for a name the policy does not allow (its contents,
 * not its size), and whether the gateway's resolver feeds its set
 * (boxnet's raw.dnsmasq nftset lines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress_sync.h"
#include "host/doctor/doctor_int.h"
#include "incus/network.h"

#define S_EG		"egress"
#define RAW_MAX		(512u << 10)

/* Are the nftset lines the boxes need all in the bridge's raw.dnsmasq? */
static int
resolver_feeds(struct dh_ctx *h, const struct egfw_box *b, size_t n)
{
	char *want = malloc(RAW_MAX), *raw = malloc(RAW_MAX);
	struct incus_network net;
	struct box_err e;
	const char *p;
	int ok = -1;

	err_clear(&e);
	if (want == NULL || raw == NULL || egfw_dnsmasq(b, n, want,
	    RAW_MAX) < 0 || incus_network_get(&h->c, DH_BR, &net, &e) < 0)
		goto out;
	/* Bounded as the reader always was: a longer one is cut. */
	snprintf(raw, RAW_MAX, "%s", incus_kv_or(&net.config, "raw.dnsmasq",
	    ""));
	incus_network_free(&net);
	ok = 1;
	for (p = want; ok && *p != '\0';) {
		size_t l = strcspn(p, "\n");
		const char *q = raw;

		ok = 0;
		while ((q = strstr(q, "nftset=")) != NULL && !ok) {
			ok = strncmp(q, p, l) == 0 && (q[l] == '\n' ||
			    q[l] == '\0');
			q++;
		}
		p += l + (p[l] == '\n');
	}
out:
	free(want);
	free(raw);
	return ok;
}

void
dh_check_egress(struct dh_ctx *h)
{
	struct egfw_box *b = NULL;
	struct egfw_held *held = NULL;
	char *text = malloc(EGRESS_TEXTMAX);
	struct box_err e;
	size_t n = 0, i, extra = 0, nallow = 0;
	int bad = 0, feeds;

	err_clear(&e);
	if (text == NULL || egress_gather(&h->c, &b, &n, &bad, &e) < 0)
		goto out;
	for (i = 0; i < n; i++)
		nallow += b[i].pol.mode == EGRESS_ALLOW;
	if (nallow == 0) {
		dr_add(h->r, "egress", S_EG, DR_INFO, NULL, "every box is open "
		    "(the contract's internet; box egress <box> allow <name> "
		    "narrows one)");
		goto out;
	}
	if ((held = calloc(n, sizeof(*held))) == NULL ||
	    egfw_read(b, n, held, &extra, &e) < 0) {
		dr_add(h->r, "egress", S_EG, DR_WARN, "run box doctor as root",
		    "%zu box%s egress polic%s could not be checked in the "
		    "kernel (%s)", nallow, nallow == 1 ? "'s" : "es'",
		    nallow == 1 ? "y" : "ies", e.msg[0] ? e.msg : "no memory");
		goto out;
	}
	feeds = resolver_feeds(h, b, n);
	for (i = 0; i < n; i++) {
		if (b[i].pol.mode != EGRESS_ALLOW)
			continue;
		if (b[i].pol.n == 0)
			snprintf(text, EGRESS_TEXTMAX, "a stored policy that "
			    "does not parse (enforced as nothing allowed)");
		else
			egress_format(&b[i].pol, text, EGRESS_TEXTMAX);
		if (held[i].rules_ok && held[i].sets_ok &&
		    !held[i].contents_ok)
			dr_add(h->r, "egress.box", S_EG, DR_FAIL, "box egress "
			    "<box> show (a sync replaces the set)", "%s: %.200s "
			    "is NOT held by the kernel: %s — %zu address%s of "
			    "names it does not allow still connect",
			    b[i].name, text, held[i].why, held[i].nstray,
			    held[i].nstray == 1 ? "" : "es");
		else if (held[i].rules_ok && held[i].sets_ok)
			dr_add(h->r, "egress.box", S_EG, b[i].pol.n ? DR_PASS :
			    DR_FAIL, b[i].pol.n ? NULL : "box egress <box> open "
			    "(or allow <name>)", "%s: %.200s — the kernel holds "
			    "it (%zu address%s answered for its names, %zu "
			    "named by the name that put it there, none for a "
			    "name it does not allow; %llu packet%s refused "
			    "at once: TCP a reset, the rest ICMP "
			    "admin-prohibited)",
			    b[i].name, text, held[i].naddr,
			    held[i].naddr == 1 ? "" : "es", held[i].nnamed,
			    (unsigned long long)held[i].refused,
			    held[i].refused == 1 ? "" : "s");
		else
			dr_add(h->r, "egress.box", S_EG, DR_FAIL, "box firewall "
			    "apply (or: box egress <box> show)", "%s: %.200s is "
			    "NOT held by the kernel: %s — the box reaches the "
			    "whole internet", b[i].name, text, b[i].has_mac ?
			    held[i].why : "its NIC has no MAC to match");
	}
	if (feeds == 1)
		dr_add(h->r, "egress.resolver", S_EG, DR_PASS, NULL, "the "
		    "gateway's dnsmasq feeds every allow box's set (nftset "
		    "lines in raw.dnsmasq)");
	else if (feeds == 0)
		dr_add(h->r, "egress.resolver", S_EG, DR_FAIL, "box setup-host",
		    "raw.dnsmasq lacks nftset lines the allow boxes need: "
		    "their allowed names resolve but do not connect");
	if (extra > 0)
		dr_add(h->r, "egress.extra", S_EG, DR_WARN, "box firewall "
		    "apply", "chain egress holds %zu rule%s of no current "
		    "box", extra, extra == 1 ? "" : "s");
out:
	free(held);
	free(b);
	free(text);
}
