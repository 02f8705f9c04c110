/* migrate_probe.c - the in-box probe of migrate-host (see migrate.h). */
#include "host/migrate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/life.h"
#include "host/doctor.h"
#include "incus/exec.h"
#include "incus/stream.h"
#include "util/clock.h"
#include "util/text.h"

#define PROBE_OUT	8192
#define PROBE_EXEC_MS	20000
#define DNS_MS		2000

/* --- the in-box probe ---------------------------------------------------- */

static void
fmt4(uint32_t a, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
	    (a >> 8) & 255, a & 255);
}

static int
parse4(const char *s, uint32_t *a)
{
	struct in_addr ia;

	if (inet_pton(AF_INET, s, &ia) != 1)
		return -1;
	*a = ntohl(ia.s_addr);
	return 0;
}

/* Does /etc/passwd hold the legacy user? */
static int
has_user(const char *user)
{
	char buf[16384];
	size_t ul = strlen(user);
	ssize_t n;
	char *line;
	int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (line = buf; line != NULL && *line != '\0';) {
		if (strncmp(line, user, ul) == 0 && line[ul] == ':')
			return 1;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return 0;
}

void
migrate_probe_gather(struct migrate_probe *p, uint32_t gw, const char *name)
{
	struct dr_net *n = malloc(sizeof(*n));
	struct box_err e;
	uint32_t a = 0;
	int i, rc;

	memset(p, 0, sizeof(*p));
	p->name = -1;
	err_clear(&e);
	if (n != NULL && dr_net_read(n, &e) == 0)
		for (i = 0; i < n->nlocal && p->naddr < MIGRATE_MAX_ADDRS; i++) {
			if ((n->local[i].a >> 24) == 127)
				continue;
			p->addr[p->naddr] = n->local[i].a;
			p->plen[p->naddr] = n->local[i].plen;
			snprintf(p->dev[p->naddr], sizeof(p->dev[0]), "%s",
			    n->local[i].dev);
			p->naddr++;
		}
	free(n);
	rc = dr_dns_ask(gw, MIGRATE_GW_NAME, DNS_MS, &a, p->gw_why,
	    sizeof(p->gw_why));
	p->gw = rc >= 0;
	p->name = dr_dns_ask(gw, name, DNS_MS, &p->name_a, p->name_why,
	    sizeof(p->name_why));
	p->user = has_user(MIGRATE_USER);
}

int
migrate_probe_json(const struct migrate_probe *p, char **out)
{
	struct json_w w;
	char a[16];
	int i;

	json_w_init(&w, 1 << 16);
	json_w_obj(&w);
	json_w_key(&w, "addrs");
	json_w_arr(&w);
	for (i = 0; i < p->naddr; i++) {
		json_w_obj(&w);
		fmt4(p->addr[i], a, sizeof(a));
		json_w_key(&w, "a");
		json_w_str(&w, a);
		json_w_key(&w, "plen");
		json_w_int(&w, p->plen[i]);
		json_w_key(&w, "dev");
		json_w_str(&w, p->dev[i]);
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_key(&w, "gw");
	json_w_int(&w, p->gw);
	json_w_key(&w, "gw_why");
	json_w_str(&w, p->gw_why);
	json_w_key(&w, "name");
	json_w_int(&w, p->name);
	fmt4(p->name_a, a, sizeof(a));
	json_w_key(&w, "name_a");
	json_w_str(&w, a);
	json_w_key(&w, "name_why");
	json_w_str(&w, p->name_why);
	json_w_key(&w, "user");
	json_w_int(&w, p->user);
	json_w_end(&w, '}');
	return json_w_finish(&w, out, NULL);
}

/* A small integer member in [lo, hi], else -1 (and *bad set). */
static long long
small_int(const struct json_doc *d, int obj, const char *key, long long lo,
    long long hi, int *bad)
{
	long long v;

	if (json_int(d, json_get(d, obj, key), &v) < 0 || v < lo || v > hi) {
		*bad = 1;
		return -1;
	}
	return v;
}

/* A string member, printable and bounded ("" when absent). */
static void
text_member(const struct json_doc *d, int obj, const char *key, char *buf,
    size_t cap)
{
	if (json_gets(d, obj, key, buf, cap, NULL) == NULL)
		buf[0] = '\0';
	text_sanitize(buf, strlen(buf));
}

int
migrate_probe_parse(const char *json, size_t n, struct migrate_probe *p,
    struct box_err *e)
{
	struct json_doc d;
	char a[20];
	int rc, k, bad = 0;

	memset(p, 0, sizeof(*p));
	memset(&d, 0, sizeof(d));
	if ((rc = json_parse(&d, json, n, e)) < 0)
		return rc;
	if (json_type(&d, 0) != JSON_OBJECT ||
	    json_type(&d, json_get(&d, 0, "addrs")) != JSON_ARRAY) {
		json_free(&d);
		return err_set(e, -EBOX_PROTO, "not a probe report");
	}
	for (k = json_child(&d, json_get(&d, 0, "addrs")); k >= 0;
	    k = json_next(&d, k)) {
		if (p->naddr == MIGRATE_MAX_ADDRS)
			break;	/* more are the box's business */
		if (json_gets(&d, k, "a", a, sizeof(a), NULL) == NULL ||
		    parse4(a, &p->addr[p->naddr]) < 0) {
			bad = 1;
			break;
		}
		p->plen[p->naddr] = (unsigned)small_int(&d, k, "plen", 0, 32,
		    &bad);
		text_member(&d, k, "dev", p->dev[p->naddr],
		    sizeof(p->dev[0]));
		p->naddr++;
	}
	p->gw = (int)small_int(&d, 0, "gw", 0, 1, &bad);
	p->name = (int)small_int(&d, 0, "name", -1, 1, &bad);
	p->user = (int)small_int(&d, 0, "user", 0, 1, &bad);
	text_member(&d, 0, "gw_why", p->gw_why, sizeof(p->gw_why));
	text_member(&d, 0, "name_why", p->name_why, sizeof(p->name_why));
	if (json_gets(&d, 0, "name_a", a, sizeof(a), NULL) == NULL ||
	    parse4(a, &p->name_a) < 0)
		bad = 1;
	json_free(&d);
	if (bad) {
		memset(p, 0, sizeof(*p));
		return err_set(e, -EBOX_PROTO, "a malformed probe report");
	}
	return 0;
}

uint32_t
migrate_probe_lease(const struct migrate_probe *p, uint32_t net)
{
	int i;

	for (i = 0; i < p->naddr; i++)
		if ((p->addr[i] & 0xffffff00u) == net &&
		    (p->addr[i] & 0xffu) != 0 && (p->addr[i] & 0xffu) != 255)
			return p->addr[i];
	return 0;
}

int
migrate_probe_main(struct box_err *e)
{
	const char *g = getenv("BOX_MIGRATE_GATEWAY");
	const char *n = getenv("BOX_MIGRATE_PROBE_NAME");
	struct migrate_probe *p = malloc(sizeof(*p));
	char *out = NULL;
	uint32_t gw;

	if (p == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if (g == NULL || parse4(g, &gw) < 0) {
		free(p);
		return err_usage(e, "the in-box probe needs "
		    "BOX_MIGRATE_GATEWAY=a.b.c.d");
	}
	migrate_probe_gather(p, gw, n != NULL && *n ? n : "deb.debian.org");
	if (migrate_probe_json(p, &out) < 0) {
		free(p);
		return err_set(e, -ENOMEM, "out of memory");
	}
	puts(out);
	free(out);
	free(p);
	return 0;
}

/* --- running the probe from the host -------------------------------------- */

const char *
migrate_probe_name(void)
{
	const char *n = getenv("BOX_MIGRATE_PROBE_NAME");

	if (n == NULL || *n == '\0')
		n = getenv("BOX_DOCTOR_PROBE_NAME");
	return n != NULL && *n != '\0' ? n : "deb.debian.org";
}

static int
probe_once(struct incus *c, const char *name, const char *path, uint32_t gw,
    struct migrate_probe *p, struct box_err *e)
{
	char ebuf[512], eg[48], en[200];
	char *obuf = malloc(PROBE_OUT);
	struct exec_buf out = { obuf, PROBE_OUT, 0, 0 };
	struct exec_buf err = { ebuf, sizeof(ebuf), 0, 0 };
	const char *argv[] = { path, "migrate-host", "--probe-inside", NULL };
	const char *env[] = { "BOX_MIGRATE_INSIDE=1", eg, en,
	    "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct exec_status st;
	struct exec_req req;
	char g[16];
	int rc;

	if (obuf == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	fmt4(gw, g, sizeof(g));
	snprintf(eg, sizeof(eg), "BOX_MIGRATE_GATEWAY=%s", g);
	snprintf(en, sizeof(en), "BOX_MIGRATE_PROBE_NAME=%s", migrate_probe_name());
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.env = env;
	req.uid = req.gid = -1;
	memset(&st, 0, sizeof(st));
	rc = exec_capture(c, name, &req, NULL, 0, &out, &err, PROBE_EXEC_MS,
	    &st, e);
	if (rc == 0 && (st.err[0] != '\0' || st.code != 0 || out.truncated)) {
		text_sanitize(ebuf, strlen(ebuf));
		ebuf[strcspn(ebuf, "\n")] = '\0';
		rc = err_set(e, -EIO, "the in-box probe did not finish (exit "
		    "%d: %s)", st.code, st.err[0] ? st.err : ebuf[0] ? ebuf :
		    "no output");
	}
	if (rc == 0)
		rc = migrate_probe_parse(obuf, out.len, p, e);
	free(obuf);
	return rc;
}

/*
 * Until the box, from inside, holds a lease on net and the gateway's DNS
 * answers it; or the deadline.
 */
int
migrate_verify_inside(struct incus *c, const char *name, uint32_t net,
    long long deadline, struct migrate_probe *p, struct box_err *e)
{
	char path[64], got[200] = "", a[16];
	uint32_t gw = net | 1;
	int rc, i;

	if ((rc = life_wait_agent(c, name, deadline, NULL, e)) < 0)
		return rc;
	snprintf(path, sizeof(path), "/tmp/.box-migrate.%ld", (long)getpid());
	if ((rc = life_push_self(c, name, path, e)) < 0) {
		err_context(e, "pushing the probe into %s", name);
		return rc;
	}
	for (;;) {
		if (life_interrupted()) {
			rc = err_set(e, -EINTR, "interrupted");
			break;
		}
		rc = probe_once(c, name, path, gw, p, e);
		if (rc == 0 && migrate_probe_lease(p, net) != 0 && p->gw)
			break;
		if (clock_ms() >= deadline) {
			if (rc == 0) {
				for (i = 0; i < p->naddr; i++) {
					fmt4(p->addr[i], a, sizeof(a));
					snprintf(got + strlen(got), sizeof(got) -
					    strlen(got), "%s%s/%u on %s",
					    i ? ", " : "", a, p->plen[i],
					    p->dev[i]);
				}
				fmt4(net, a, sizeof(a));
				rc = migrate_probe_lease(p, net) == 0 ?
				    err_set(e, -ETIMEDOUT, "no lease in %s/24 "
				    "inside %s before the time ran out (it "
				    "holds %s)", a, name, got[0] ? got :
				    "no IPv4 address") :
				    err_set(e, -ETIMEDOUT, "the gateway's DNS "
				    "did not answer %s (%s)", name, p->gw_why);
			}
			break;
		}
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
	}
	life_remove_file(c, name, path);
	return rc;
}
