/*
 * doctor_box.c - the checks inside a box, and how the host gets them run
 * there (see doctor.h).
 *
 * The host pushes this very binary into each running box, runs `doctor`
 * in it and takes its report in (a line record in a file, not the
 * users' --json: see dr_report_lines): the checks are written once, in
 * C, with precise verdicts (a connect() tells refused from dropped; a shell
 * tool's exit code does not), and need nothing from the guest's userland.
 * What a box reports about itself is the box's word; the host's own checks
 * (ports, firewall) never depend on it.
 */
#include "host/doctor/doctor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box/boxfile.h"
#include "box/life/life.h"
#include "host/install/nested.h"
#include "incus/exec.h"
#include "model/ip4text.h"
#include "net/dnsq.h"
#include "net/netns.h"
#include "net/sniff.h"
#include "util/clock.h"
#include "util/text.h"

#define SUBJ		"this box"
#define ROUTE_MS	5000
#define GW_PORT		22
#define GW_MS		2000
#define OUT_MAX		(512u << 10)
#define BOX_EXEC_MS	120000

void
dr_opts_defaults(struct dr_opts *o)
{
	const char *a = getenv("BOX_DOCTOR_PROBE_ADDR");
	const char *n = getenv("BOX_DOCTOR_PROBE_NAME");

	memset(o, 0, sizeof(*o));
	o->probe_boxes = 1;
	snprintf(o->probe_addr, sizeof(o->probe_addr), "%s",
	    a != NULL && *a != '\0' ? a : "1.1.1.1:443");
	snprintf(o->probe_name, sizeof(o->probe_name), "%s",
	    n != NULL && *n != '\0' ? n : "deb.debian.org");
}

/* "a.b.c.d[:port]" (port 443 when absent): 0, or -1. */
static int
parse_target(const char *s, uint32_t *addr, int *port)
{
	char host[64];
	struct in_addr ia;
	const char *colon = strchr(s, ':');
	long p = 443;
	char *end;

	snprintf(host, sizeof(host), "%.*s", colon != NULL ?
	    (int)(colon - s) : (int)strlen(s), s);
	if (inet_pton(AF_INET, host, &ia) != 1)
		return -1;
	if (colon != NULL) {
		errno = 0;
		p = strtol(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || p < 1 || p > 65535)
			return -1;
	}
	*addr = ntohl(ia.s_addr);
	*port = (int)p;
	return 0;
}

/* --- inside --------------------------------------------------------------- */

static void
where(struct dr_report *r)
{
	struct nested_facts *f = malloc(sizeof(*f));
	struct nested_report *nr = malloc(sizeof(*nr));
	char ev[300] = "";
	int i;

	r->where = DR_INSIDE;
	if (f == NULL || nr == NULL) {
		snprintf(r->where_text, sizeof(r->where_text), "inside "
		    "(detection ran out of memory)");
		free(f);
		free(nr);
		return;
	}
	nested_probe(f, NESTED_GUESTAPI);
	nested_classify(f, nr);
	for (i = 0; i < nr->n; i++)
		if (nr->ev[i].weight >= NW_INSTANCE)
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev),
			    "%s%s", ev[0] ? "; " : "", nr->ev[i].text);
	snprintf(r->where_text, sizeof(r->where_text), "%s",
	    nr->verdict == NESTED_HOST ? "inside an instance (as the host "
	    "that ran this said)" : nested_verdict_text(nr->verdict));
	dr_add(r, "where", SUBJ, DR_INFO, NULL, "%s%s%s%s", r->where_text,
	    ev[0] ? " (" : "", ev, ev[0] ? ")" : "");
	free(f);
	free(nr);
}

static void
signature(struct dr_report *r, const struct dr_net *n, int ok)
{
	char why[320];

	if (!ok) {
		dr_add(r, "signature", SUBJ, DR_WARN, NULL, "routes and "
		    "addresses unreadable: the nested-box signature was not "
		    "checked");
		return;
	}
	if (dr_net_judge(n, why, sizeof(why)) == 0)
		dr_add(r, "signature", SUBJ, DR_PASS, NULL, "no nested-box "
		    "signature: %s", why);
	else
		dr_add(r, "signature", SUBJ, DR_FAIL, "a box stack was built "
		    "inside this box: remove it here (box teardown-host) or "
		    "move its bridge off this subnet; never run box setup-host "
		    "inside a box", "the nested-box signature (the #80 "
		    "outage): %s", why);
}

/* The address the uplink holds (the lease), or 0. */
static uint32_t
lease(const struct dr_net *n, char *dev, size_t cap, uint8_t *plen)
{
	int i;

	for (i = 0; i < n->nlocal; i++)
		if ((n->local[i].a >> 24) != 127 &&
		    (!n->has_gw || strcmp(n->local[i].dev, n->gw_dev) == 0)) {
			snprintf(dev, cap, "%s", n->local[i].dev);
			*plen = n->local[i].plen;
			return n->local[i].a;
		}
	return 0;
}

static void
check_lease(struct dr_report *r, const struct dr_net *n)
{
	char dev[16], a[16];
	uint8_t plen = 0;
	uint32_t x = lease(n, dev, sizeof(dev), &plen);

	if (x == 0) {
		dr_add(r, "lease", SUBJ, DR_FAIL, "on the host: box doctor "
		    "(is a dnsmasq serving boxnet?)", "no IPv4 address on the "
		    "uplink: no lease from the bridge");
		return;
	}
	ip4_fmt(x, a, sizeof(a));
	dr_add(r, "lease", SUBJ, DR_PASS, NULL, "%s holds %s/%u", dev, a, plen);
}

static void
check_ipv6(struct dr_report *r)
{
	char text[8192], dev[32];
	ssize_t n = -1;
	int fd = open("/proc/net/if_inet6", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	if (n < 0) {
		dr_add(r, "ipv6", SUBJ, DR_PASS, NULL, "no IPv6 in this kernel "
		    "view (/proc/net/if_inet6 absent)");
		return;
	}
	if (dr_inet6_global(text, (size_t)n, dev, sizeof(dev)))
		dr_add(r, "ipv6", SUBJ, DR_FAIL, "on the host: box doctor (the "
		    "bridge must have ipv6.address none)", "%s holds a global "
		    "IPv6 address: an IPv6 path no box rule covers", dev);
	else
		dr_add(r, "ipv6", SUBJ, DR_PASS, NULL, "no global IPv6 "
		    "address");
}

static int
probe_route(struct dr_report *r, const struct dr_opts *o)
{
	char why[96];
	uint32_t a;
	int port, v;

	if (parse_target(o->probe_addr, &a, &port) < 0) {
		dr_add(r, "routing", SUBJ, DR_WARN, "BOX_DOCTOR_PROBE_ADDR="
		    "a.b.c.d:port", "'%s' is not an IPv4 address[:port]: "
		    "routing NOT checked", o->probe_addr);
		return -1;
	}
	v = dr_tcp_probe(a, port, ROUTE_MS, why, sizeof(why));
	if (v == DR_CONNECTED || v == DR_REFUSED) {
		dr_add(r, "routing", SUBJ, DR_PASS, NULL, "%s by address: %s "
		    "(it answered)", o->probe_addr, dr_verdict_name(v));
		return 1;
	}
	dr_add(r, "routing", SUBJ, v == DR_ERROR ? DR_WARN : DR_FAIL, NULL,
	    "%s by address: %s (%s)", o->probe_addr, dr_verdict_name(v), why);
	return v == DR_ERROR ? -1 : 0;
}

static int
probe_dns(struct dr_report *r, const struct dr_opts *o)
{
	char a[INET_ADDRSTRLEN] = "?", why[96];
	uint32_t x;
	int rc;

	rc = dnsq_resolve(o->probe_name, ROUTE_MS, &x, why, sizeof(why));
	if (rc != 1) {
		dr_add(r, "dns", SUBJ, DR_FAIL, NULL, "%s by name: does not "
		    "resolve (%s)", o->probe_name, rc == 0 ? "no address" : why);
		return 0;
	}
	ip4_fmt(x, a, sizeof(a));
	dr_add(r, "dns", SUBJ, DR_PASS, NULL, "%s by name: %s", o->probe_name,
	    a);
	return 1;
}

/* The split diagnosis, attached to the failing probe. */
static void
diagnose(struct dr_report *r, int route, int dns, int poisoned)
{
	if (route == 1 && dns == 0)
		dr_add(r, "diagnosis", SUBJ, DR_INFO, "on the host: box doctor "
		    "--pin-dns", "routing works and DNS does not: the "
		    "gateway's forwarder is at fault, not this box");
	else if (route == 0 && dns == 1)
		dr_add(r, "diagnosis", SUBJ, DR_INFO, poisoned ? "see the "
		    "signature line above" : NULL, "DNS works and routing does "
		    "not: the nested-box fingerprint (the gateway answers, "
		    "traffic past it is lost)");
	else if (route == 0 && dns == 0)
		dr_add(r, "diagnosis", SUBJ, DR_INFO, "on the host: box doctor",
		    "neither routing nor DNS works: egress is broken (lease, "
		    "NAT or the host's uplink)");
}

static void
probe_gateway(struct dr_report *r, const struct dr_net *n, int poisoned)
{
	char gw[16], why[96];
	int v;

	if (!n->has_gw || poisoned)
		return;
	ip4_fmt(n->gw, gw, sizeof(gw));
	v = dr_tcp_probe(n->gw, GW_PORT, GW_MS, why, sizeof(why));
	if (v == DR_DROPPED)
		dr_add(r, "host_drop", SUBJ, DR_PASS, NULL, "box -> host: a "
		    "connection to the gateway %s:%d was dropped (%s)", gw,
		    GW_PORT, why);
	else if (v == DR_ERROR)
		dr_add(r, "host_drop", SUBJ, DR_WARN, NULL, "box -> host NOT "
		    "checked: %s", why);
	else
		dr_add(r, "host_drop", SUBJ, DR_FAIL, "on the host: box doctor "
		    "--fix", "box -> host: the gateway %s:%d %s — the packet "
		    "arrived; the host's firewall does not drop boxes", gw,
		    GW_PORT, dr_verdict_name(v));
}

void
dr_inside(struct dr_report *r, const struct dr_opts *o)
{
	struct dr_net *n = malloc(sizeof(*n));
	struct box_err e;
	int ok, route, dns, poisoned = 0;
	char why[16];

	where(r);
	err_clear(&e);
	ok = n != NULL && dr_net_read(n, &e) == 0;
	signature(r, n, ok);
	if (ok) {
		poisoned = dr_net_judge(n, why, sizeof(why)) != 0;
		check_lease(r, n);
	}
	check_ipv6(r);
	route = probe_route(r, o);
	dns = probe_dns(r, o);
	diagnose(r, route, dns, poisoned);
	if (ok)
		probe_gateway(r, n, poisoned);
	free(n);
}

int
dr_report_save(const struct dr_report *r, struct box_err *e)
{
	char *rec = NULL;
	size_t len = 0;
	int rc;

	if ((rc = dr_report_lines(r, &rec, &len)) < 0)
		return err_set(e, rc, "rendering the report");
	rc = life_report_write(rec, len, e);
	free(rec);
	return rc;
}

/* --- a VM or another member's box, from the host: the guest's word ------- */

void
dr_box_probe_vm(struct incus *c, const char *name, struct dr_report *r,
    const struct dr_opts *o)
{
	char subject[80], ea[96], en[160], where_[32];
	const char *args[] = { "doctor", NULL };
	const char *env[] = { "BOX_DOCTOR_INSIDE=1", ea, en,
	    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	    NULL };
	struct life_inside in = { "doctor", args, env, BOX_EXEC_MS };
	struct exec_buf rep = { NULL, OUT_MAX, 0, 0 };
	struct exec_status st;
	struct box_err e;

	snprintf(subject, sizeof(subject), "box %s", name);
	snprintf(ea, sizeof(ea), "BOX_DOCTOR_PROBE_ADDR=%s", o->probe_addr);
	snprintf(en, sizeof(en), "BOX_DOCTOR_PROBE_NAME=%s", o->probe_name);
	err_clear(&e);
	if ((rep.p = malloc(OUT_MAX)) == NULL) {
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "out of "
		    "memory: nothing inside was verified");
		return;
	}
	if (life_run_inside(c, name, &in, &rep, &st, &e) < 0)
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "checks did not finish (%s): nothing inside was verified",
		    e.msg);
	else if (st.err[0] != '\0' || (st.code != 0 && st.code != 1))
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "checks did not finish (exit %d): nothing inside was "
		    "verified", st.code);
	else if (dr_merge_box(r, subject, rep.p, rep.len, where_,
	    sizeof(where_), &e) < 0)
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "report was unreadable (%s): nothing inside was verified",
		    e.msg);
	free(rep.p);
}

/* --- a container, probed by this host in its network namespace ------------ */

/* What the child in the box's namespace measured (our own code). */
struct ns_facts {
	int route;		/* DR_CONNECTED ... DR_ERROR, -1 not tried */
	char route_why[96];
	int dns;		/* dnsq_ask_id: 1, 0, -1 */
	uint32_t dns_a;
	char dns_why[64];
	int gwv;		/* the gateway's port GW_PORT */
	char gw_why[96];
	int net_ok;
	struct dr_net net;	/* the box's own routes and addresses */
	int v6;			/* a global IPv6 address (the box's own) */
	char v6dev[32];
};

struct ns_ask {
	uint32_t addr, gw;
	int port;
	uint16_t qid;
	const char *name;
};

static ssize_t
ns_measure(void *arg, char *out, size_t cap)
{
	const struct ns_ask *a = arg;
	struct ns_facts *f = (struct ns_facts *)(void *)out;
	struct box_err e;
	char text[8192];
	ssize_t n = -1;
	int fd;

	if (cap < sizeof(*f))
		return -1;
	memset(f, 0, sizeof(*f));
	err_clear(&e);
	f->net_ok = dr_net_read(&f->net, &e) == 0;
	f->route = a->addr != 0 ? dr_tcp_probe(a->addr, a->port, ROUTE_MS,
	    f->route_why, sizeof(f->route_why)) : -1;
	f->dns = dnsq_ask_id(a->gw, a->name, a->qid, GW_MS * 2, &f->dns_a,
	    f->dns_why, sizeof(f->dns_why));
	f->gwv = dr_tcp_probe(a->gw, GW_PORT, GW_MS, f->gw_why,
	    sizeof(f->gw_why));
	/* /proc/net is the namespace's of the reader: the box's own */
	if ((fd = open("/proc/net/if_inet6", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	f->v6 = n > 0 && dr_inet6_global(text, (size_t)n, f->v6dev,
	    sizeof(f->v6dev));
	return (ssize_t)sizeof(*f);
}

/* What the box's port carried for one flow to addr:port. */
struct flow {
	int left, answered;	/* answered: 1 RST, 2 SYN-ACK */
};

static void
port_flows(struct sniff *sn, uint32_t self, uint32_t gw, uint16_t qid,
    uint32_t to, int port, struct flow *route, struct flow *gwf,
    int *dns_seen, int *dns_has, uint32_t *dns_a)
{
	uint8_t buf[SNIFF_FRAME_MAX];
	struct sniff_frame fr;
	size_t len;
	int out, frames = 0, rc, rcode;
	uint32_t a;

	while (frames++ < 200000 &&
	    sniff_next_any(sn, buf, sizeof(buf), &len, &out) == 1) {
		if (sniff_parse(buf, len, &fr) != 1)
			continue;
		if (fr.kind == SNIFF_UDP4 && out && fr.saddr == gw &&
		    fr.sport == 53 && fr.daddr == self && fr.plen >= 12 &&
		    (uint16_t)(fr.payload[0] << 8 | fr.payload[1]) == qid &&
		    !*dns_seen) {
			rc = dnsq_reply(fr.payload, fr.plen, qid, &a,
			    &rcode);
			if (rc >= 0) {
				*dns_seen = 1;
				*dns_has = rc == 1;
				*dns_a = a;
			}
		}
		if (fr.kind != SNIFF_TCP4)
			continue;
		for (int k = 0; k < 2; k++) {
			struct flow *f = k ? gwf : route;
			uint32_t t = k ? gw : to;
			int p = k ? GW_PORT : port;

			if (!out && fr.saddr == self && fr.daddr == t &&
			    fr.dport == p && (fr.tcpflags & SNIFF_TCP_SYN) &&
			    !(fr.tcpflags & SNIFF_TCP_ACK))
				f->left = 1;
			if (out && fr.saddr == t && fr.daddr == self &&
			    fr.sport == p) {
				if ((fr.tcpflags & (SNIFF_TCP_SYN |
				    SNIFF_TCP_ACK)) == (SNIFF_TCP_SYN |
				    SNIFF_TCP_ACK))
					f->answered = 2;
				else if (fr.tcpflags & SNIFF_TCP_RST &&
				    !f->answered)
					f->answered = 1;
			}
		}
	}
}

/* "the box says" findings: its own routes, addresses and resolv.conf. */
static void
box_says(struct dr_report *r, const char *subject, const struct ns_facts *f,
    long long pid, uint32_t gw)
{
	char why[320], a[16], dev[16], text[4096], ns[4][48];
	struct box_err fe;
	uint8_t plen = 0;
	uint32_t x;
	ssize_t n = -1;
	int k, i, named = 0;

	if (!f->net_ok) {
		dr_add(r, "box.signature", subject, DR_WARN, NULL, "its routes "
		    "and addresses could not be read in its namespace");
	} else if (dr_net_judge(&f->net, why, sizeof(why)) == 0) {
		dr_add(r, "box.signature", subject, DR_PASS, NULL, "the box "
		    "says: no nested-box signature: %s", why);
	} else {
		dr_add(r, "box.signature", subject, DR_FAIL, "a box stack was "
		    "built inside this box: remove it there (box teardown-host)",
		    "the box says: the nested-box signature: %s", why);
	}
	x = f->net_ok ? lease(&f->net, dev, sizeof(dev), &plen) : 0;
	ip4_fmt(x, a, sizeof(a));
	if (x == 0)
		dr_add(r, "box.lease", subject, DR_FAIL, "box doctor (is a "
		    "dnsmasq serving boxnet?)", "the box says: no IPv4 "
		    "address on its uplink");
	else
		dr_add(r, "box.lease", subject, DR_PASS, NULL, "the box says: "
		    "%s holds %s/%u", dev, a, plen);
	if (f->v6)
		dr_add(r, "box.ipv6", subject, DR_FAIL, "the bridge must have "
		    "ipv6.address none", "the box says: %.31s holds a global "
		    "IPv6 address", f->v6dev);
	else
		dr_add(r, "box.ipv6", subject, DR_PASS, NULL, "the box says: "
		    "no global IPv6 address");
	/* its resolv.conf, read by this host inside its root (boxfile.h:
	 * a FIFO or a symlink out of it cannot hold doctor): its word */
	err_clear(&fe);
	n = boxfile_read(pid, "/etc/resolv.conf", text, sizeof(text), &fe);
	ip4_fmt(gw, a, sizeof(a));
	k = n > 0 ? dnsq_resolv_parse(text, (size_t)n, ns, 4) : 0;
	for (i = 0; i < k; i++)
		named |= strcmp(ns[i], a) == 0;
	if (k > 0 && named)
		dr_add(r, "box.resolv", subject, DR_PASS, NULL, "the box says: "
		    "its resolv.conf names the gateway %s", a);
	else
		dr_add(r, "box.resolv", subject, DR_INFO, NULL, "the box says: "
		    "its resolv.conf %s the gateway %s: its programs may ask "
		    "another resolver (which the firewall drops)%s%.120s", n < 0 ?
		    "could not be read; it may not name" : "does not name", a,
		    n < 0 ? ": " : "", n < 0 ? fe.msg : "");
}

void
dr_box_probe_ns(const struct dr_box_target *bt, struct dr_report *r,
    const struct dr_opts *o)
{
	char subject[136], gw[16], why[160];
	struct ns_facts *f = malloc(sizeof(*f));
	struct flow route = { 0, 0 }, gwf = { 0, 0 };
	struct sniff sn = { -1 };
	struct netns ns;
	struct ns_ask a;
	struct box_err e;
	int port = 443, rc, dns_seen = 0, dns_has = 0;
	uint32_t dns_a = 0;

	snprintf(subject, sizeof(subject), "box %s", bt->name);
	err_clear(&e);
	memset(&a, 0, sizeof(a));
	if (parse_target(o->probe_addr, &a.addr, &port) < 0)
		a.addr = 0;
	a.port = port;
	a.gw = bt->gw;
	a.name = o->probe_name;
	if (getrandom(&a.qid, sizeof(a.qid), 0) != (ssize_t)sizeof(a.qid))
		a.qid = (uint16_t)clock_ms();
	ip4_fmt(bt->gw, gw, sizeof(gw));
	if (f == NULL) {
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "out of memory: "
		    "its network NOT probed");
		return;
	}
	if ((rc = sniff_open(&sn, bt->veth, &e)) < 0 ||
	    (rc = netns_open(&ns, (pid_t)bt->pid, &e)) < 0) {
		dr_add(r, "box.inside", subject, DR_WARN, "run box doctor as "
		    "root", "its network could not be probed from this host "
		    "(%s)", e.msg);
		sniff_close(&sn);
		free(f);
		return;
	}
	rc = netns_run(&ns, ns_measure, &a, (char *)f, sizeof(*f), ROUTE_MS +
	    4 * GW_MS + 5000, &e);
	netns_close(&ns);
	if (rc != (int)sizeof(*f)) {
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the probes in "
		    "its network did not finish (%s)", rc < 0 ? e.msg :
		    "a short answer");
		sniff_close(&sn);
		free(f);
		return;
	}
	f->route_why[sizeof(f->route_why) - 1] = '\0';
	f->dns_why[sizeof(f->dns_why) - 1] = '\0';
	f->gw_why[sizeof(f->gw_why) - 1] = '\0';
	f->v6dev[sizeof(f->v6dev) - 1] = '\0';
	port_flows(&sn, bt->self, bt->gw, a.qid, a.addr, port, &route, &gwf,
	    &dns_seen, &dns_has, &dns_a);
	sniff_close(&sn);
	dr_add(r, "box.where", subject, DR_INFO, NULL, "probed by this host in "
	    "its network namespace (init pid %lld); what arrived is what its "
	    "port %s carried", bt->pid, bt->veth);
	box_says(r, subject, f, bt->pid, bt->gw);
	/* routing: the probe address must answer, seen going into the box */
	if (a.addr == 0)
		dr_add(r, "box.routing", subject, DR_WARN,
		    "BOX_DOCTOR_PROBE_ADDR=a.b.c.d:port", "'%s' is not an "
		    "IPv4 address[:port]: routing NOT checked", o->probe_addr);
	else if (route.answered)
		dr_add(r, "box.routing", subject, DR_PASS, NULL, "%s by address: "
		    "%s (its answer went into the box on %s)", o->probe_addr,
		    route.answered == 2 ? "connected" : "refused", bt->veth);
	else if (route.left)
		dr_add(r, "box.routing", subject, DR_FAIL, NULL, "%s by address: "
		    "dropped (it left the box on %s, nothing came back)",
		    o->probe_addr, bt->veth);
	else
		dr_add(r, "box.routing", subject, DR_WARN, NULL, "%s by address "
		    "NOT checked: nothing left the box's port %s (%s)",
		    o->probe_addr, bt->veth, f->route_why);
	/* DNS: the gateway's answer, seen going into the box */
	ip4_fmt(dns_a, why, sizeof(why));
	if (dns_seen && dns_has)
		dr_add(r, "box.dns", subject, DR_PASS, NULL, "%s by name, from "
		    "the gateway %s: %s (its answer went into the box)",
		    o->probe_name, gw, why);
	else if (dns_seen)
		dr_add(r, "box.dns", subject, DR_FAIL, "on the host: box doctor "
		    "--pin-dns", "%s by name: the gateway %s answered without "
		    "an address", o->probe_name, gw);
	else
		dr_add(r, "box.dns", subject, DR_FAIL, "on the host: box doctor "
		    "--pin-dns", "%s by name: no answer from the gateway %s "
		    "went into the box (%s)", o->probe_name, gw, f->dns_why);
	/* the host: dropped means it left and nothing came back */
	if (gwf.answered)
		dr_add(r, "box.host_drop", subject, DR_FAIL, "on the host: box "
		    "doctor --fix", "box -> host: the gateway %s:%d answered "
		    "(%s) — the host's firewall does not drop boxes", gw,
		    GW_PORT, gwf.answered == 2 ? "connected" : "refused");
	else if (gwf.left)
		dr_add(r, "box.host_drop", subject, DR_PASS, NULL, "box -> host: "
		    "a connection to the gateway %s:%d left the box on %s and "
		    "nothing came back", gw, GW_PORT, bt->veth);
	else
		dr_add(r, "box.host_drop", subject, DR_WARN, NULL, "box -> host "
		    "NOT checked: nothing left the box's port %s (%s)", bt->veth,
		    f->gw_why);
	free(f);
}
