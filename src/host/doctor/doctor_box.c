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
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box/life.h"
#include "host/install/nested.h"
#include "incus/exec.h"
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

static void
fmt4(uint32_t a, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
	    (a >> 8) & 255, a & 255);
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
	fmt4(x, a, sizeof(a));
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
	struct addrinfo hints, *res = NULL;
	char a[INET_ADDRSTRLEN] = "?";
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(o->probe_name, NULL, &hints, &res);
	if (rc != 0) {
		dr_add(r, "dns", SUBJ, DR_FAIL, NULL, "%s by name: does not "
		    "resolve (%s)", o->probe_name, gai_strerror(rc));
		return 0;
	}
	inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)res->ai_addr)->
	    sin_addr, a, sizeof(a));
	freeaddrinfo(res);
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
	fmt4(n->gw, gw, sizeof(gw));
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

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t k;

	while (n > 0) {
		k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int
dr_report_save(const struct dr_report *r, const char *path,
    struct box_err *e)
{
	char tmp[300], *rec = NULL;
	size_t len = 0;
	int fd, rc;

	if (strlen(path) > 200 || path[0] != '/')
		return err_usage(e, "BOX_DOCTOR_REPORT must be an absolute "
		    "path");
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	if ((rc = dr_report_lines(r, &rec, &len)) < 0)
		return err_set(e, rc, "rendering the report");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	rc = fd < 0 ? -errno : write_all(fd, rec, len);
	if (fd >= 0 && rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	free(rec);
	if (rc < 0) {
		unlink(tmp);
		return err_set(e, rc, "writing the report to %s: %s", path,
		    err_str(rc));
	}
	return 0;
}

/* --- from the host -------------------------------------------------------- */

static int
run_inside(struct incus *c, const char *name, const char *path,
    const char *report, const struct dr_opts *o, struct exec_buf *out,
    struct exec_buf *err, struct exec_status *st, struct box_err *e)
{
	char ea[96], en[160], er[128];
	const char *argv[] = { path, "doctor", NULL };
	const char *env[] = { "BOX_DOCTOR_INSIDE=1", ea, en, er,
	    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	    NULL };
	struct exec_req req;

	snprintf(ea, sizeof(ea), "BOX_DOCTOR_PROBE_ADDR=%s", o->probe_addr);
	snprintf(en, sizeof(en), "BOX_DOCTOR_PROBE_NAME=%s", o->probe_name);
	snprintf(er, sizeof(er), "BOX_DOCTOR_REPORT=%s", report);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.env = env;
	req.uid = req.gid = -1;
	memset(st, 0, sizeof(*st));
	return exec_capture(c, name, &req, NULL, 0, out, err, BOX_EXEC_MS, st,
	    e);
}

/*
 * rep is the report file as pulled (pulled < 0: it could not be read,
 * why in pe), err the run's stderr.
 */
static void
take_in(const char *subject, struct dr_report *r, struct exec_buf *rep,
    int pulled, const struct box_err *pe, struct exec_buf *err,
    const struct exec_status *st)
{
	char where_[32], msg[200];
	struct box_err e;

	err_clear(&e);
	if (st->err[0] != '\0' || (st->code != 0 && st->code != 1) ||
	    pulled < 0) {
		snprintf(msg, sizeof(msg), "%.199s", st->err[0] ? st->err :
		    err->len ? err->p : rep->truncated ? "its report was too "
		    "long" : pulled < 0 ? pe->msg : "no output");
		text_sanitize(msg, strlen(msg));
		msg[strcspn(msg, "\n")] = '\0';
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "checks did not finish (exit %d: %s%s): nothing inside "
		    "was verified", st->code, msg, pulled < 0 && !st->err[0] &&
		    st->code >= 0 && st->code <= 1 ? "; they left no report" :
		    "");
		return;
	}
	if (dr_merge_box(r, subject, rep->p, rep->len, where_, sizeof(where_),
	    &e) < 0)
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "report was unreadable (%s): nothing inside was verified",
		    e.msg);
}

void
dr_box_probe(struct incus *c, const char *name, struct dr_report *r,
    const struct dr_opts *o)
{
	char subject[80], path[64], report[80], ebuf[1024];
	struct exec_buf out = { NULL, OUT_MAX, 0, 0 };
	struct exec_buf err = { ebuf, sizeof(ebuf), 0, 0 };
	struct exec_buf rep = { NULL, OUT_MAX, 0, 0 };
	struct exec_status st;
	struct box_err e, pe;
	unsigned rnd = 0;
	int rc, pulled = -1;

	snprintf(subject, sizeof(subject), "box %s", name);
	/* two doctors at once (two hosts' users, two terminals) never share */
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (unsigned)clock_ms();
	snprintf(path, sizeof(path), "/tmp/.box-doctor.%ld.%08x",
	    (long)getpid(), rnd);
	snprintf(report, sizeof(report), "%s.report", path);
	err_clear(&e);
	err_clear(&pe);
	out.p = malloc(OUT_MAX);
	rep.p = malloc(OUT_MAX);
	if (out.p == NULL || rep.p == NULL) {
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "out of "
		    "memory: nothing inside was verified");
		free(out.p);
		free(rep.p);
		return;
	}
	rc = life_push_self(c, name, path, &e);
	if (rc == 0) {
		rc = run_inside(c, name, path, report, o, &out, &err, &st, &e);
		if (rc == 0)
			pulled = life_pull_file(c, name, report, &rep, &pe);
		life_remove_file(c, name, report);
		life_remove_file(c, name, path);
	}
	if (rc < 0)
		dr_add(r, "box.inside", subject, DR_WARN, NULL, "the in-box "
		    "checks could not run (%s): nothing inside was verified",
		    e.msg);
	else
		take_in(subject, r, &rep, pulled, &pe, &err, &st);
	free(out.p);
	free(rep.p);
}
