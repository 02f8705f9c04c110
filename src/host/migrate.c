/* migrate.c - re-homing legacy boxes, retiring the legacy stack (see migrate.h). */
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
#include "host/contract.h"
#include "host/doctor.h"
#include "host/doctor_shape.h"
#include "host/stack.h"
#include "host/sysd.h"
#include "incus/exec.h"
#include "incus/stream.h"
#include "net/nft.h"
#include "util/clock.h"
#include "util/text.h"

#define SELF_MAX	(16u << 20)
#define PROBE_OUT	8192
#define PROBE_EXEC_MS	20000
#define DNS_MS		2000

/* --- reading the daemon's record (pure) ----------------------------------- */

int
migrate_kind(const struct json_doc *d, int inst)
{
	int cfg = json_get(d, inst, "config");
	int now = json_streq(d, json_get(d, cfg, "user.box"), "1");
	int old = json_streq(d, json_get(d, cfg, CONTRACT_LEGACY_TAG), "1");

	if (old)
		return now ? MIG_HALFWAY : MIG_LEGACY;
	return now ? MIG_DONE : MIG_NOT_BOX;
}

int
migrate_uses_legacy(const struct json_doc *d, int inst)
{
	int k, devs = json_get(d, inst, "expanded_devices");

	for (k = json_child(d, json_get(d, inst, "profiles")); k >= 0;
	    k = json_next(d, k))
		if (json_streq(d, k, CONTRACT_LEGACY_PROFILE))
			return 1;
	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k))) {
		int dev = json_next(d, k);

		if (json_streq(d, json_get(d, dev, "type"), "nic") &&
		    (json_streq(d, json_get(d, dev, "network"),
		    CONTRACT_LEGACY_BRIDGE) ||
		    json_streq(d, json_get(d, dev, "parent"),
		    CONTRACT_LEGACY_BRIDGE)))
			return 1;
	}
	return 0;
}

int
migrate_drop_device(const char *name, const struct json_doc *d, int dev)
{
	(void)name;
	return json_streq(d, json_get(d, dev, "type"), "nic") ||
	    json_streq(d, json_get(d, dev, "type"), "proxy");
}

int
migrate_foreign_devices(const struct json_doc *d, int inst, char *buf,
    size_t cap)
{
	int k, dev, n = 0;
	char name[64];
	size_t len;

	buf[0] = '\0';
	for (k = json_child(d, json_get(d, inst, "devices")); k >= 0;
	    k = json_next(d, json_next(d, k))) {
		dev = json_next(d, k);
		if (migrate_drop_device(NULL, d, dev) ||
		    (json_streq(d, json_get(d, dev, "type"), "disk") &&
		    json_streq(d, json_get(d, dev, "path"), "/")))
			continue;
		if (json_str(d, k, name, sizeof(name)) < 0)
			snprintf(name, sizeof(name), "(a long name)");
		text_sanitize(name, strlen(name));
		len = strlen(buf);
		if (len + strlen(name) + 3 < cap)
			snprintf(buf + len, cap - len, "%s%s", n ? ", " : "",
			    name);
		n++;
	}
	return n;
}

/* Add k=v unless the instance already has k (a resumed re-homing). */
static int
add_missing(struct mint_kv *kv, const struct json_doc *d, int cfg,
    const char *k, const char *v)
{
	if (json_get(d, cfg, k) >= 0)
		return 0;
	return mint_kv_add(kv, k, v);
}

int
migrate_stamps(const struct json_doc *d, int inst, const char *now,
    struct mint_kv *kv)
{
	int cfg = json_get(d, inst, "config");
	int vm = json_streq(d, json_get(d, inst, "type"), "virtual-machine");
	char fp[80];

	mint_kv_init(kv);
	if (mint_kv_add(kv, "user.box", "1") < 0 ||
	    add_missing(kv, d, cfg, "user.box.template", MIGRATE_TEMPLATE) < 0 ||
	    add_missing(kv, d, cfg, "user.box.user", MIGRATE_USER) < 0 ||
	    add_missing(kv, d, cfg, "user.box.schema", MINT_SCHEMA) < 0 ||
	    add_missing(kv, d, cfg, "user.box.mode", vm ? "vm" :
	    "container") < 0 ||
	    add_missing(kv, d, cfg, "user.box.origin", "migrate") < 0 ||
	    add_missing(kv, d, cfg, "user.box.migrated", now) < 0 ||
	    add_missing(kv, d, cfg, "user.box.migrated.by", BOX_VERSION) < 0)
		return -E2BIG;
	if (json_gets(d, cfg, "volatile.base_image", fp, sizeof(fp), NULL) &&
	    add_missing(kv, d, cfg, "user.box.image.fingerprint", fp) < 0)
		return -E2BIG;
	return 0;
}

int
migrate_carry(const struct json_doc *d, int inst, struct mint_kv *kv)
{
	static const char *const keys[] = { "limits.cpu", "limits.memory",
	    NULL };
	int cfg = json_get(d, inst, "config");
	int ex = json_get(d, inst, "expanded_config");
	char v[160];
	int i;

	mint_kv_init(kv);
	for (i = 0; keys[i] != NULL; i++)
		if (json_get(d, cfg, keys[i]) < 0 &&
		    json_gets(d, ex, keys[i], v, sizeof(v), NULL) != NULL &&
		    v[0] != '\0' && mint_kv_add(kv, keys[i], v) < 0)
			return -E2BIG;
	if (json_streq(d, json_get(d, inst, "type"), "container") &&
	    json_get(d, cfg, "security.nesting") < 0 &&
	    json_streq(d, json_get(d, ex, "security.nesting"), "true") &&
	    mint_kv_add(kv, "security.nesting", "true") < 0)
		return -E2BIG;
	return 0;
}

static int
carried(const struct mint_kv *kv, const char *key)
{
	int i;

	for (i = 0; kv != NULL && i < kv->n; i++)
		if (strcmp(kv->k[i], key) == 0)
			return 1;
	return 0;
}

static void
copy_raw(struct json_w *w, const struct json_doc *d, int v)
{
	size_t n;
	const char *raw = json_raw(d, v, &n);

	if (raw != NULL)
		json_w_raw(w, raw, n);
	else
		json_w_null(w);
}

int
migrate_rollback_body(const struct json_doc *cur, int ci,
    const struct json_doc *orig, int oi, const struct mint_kv *kv,
    char **body, struct box_err *e)
{
	static const char *const keep[] = { "architecture", "description",
	    "ephemeral", "stateful", NULL };
	struct json_w w;
	char key[256];
	int i, k, v;

	json_w_init(&w, INCUS_MAX_BODY);
	json_w_obj(&w);
	for (i = 0; keep[i] != NULL; i++)
		if ((v = json_get(cur, ci, keep[i])) >= 0) {
			json_w_key(&w, keep[i]);
			copy_raw(&w, cur, v);
		}
	json_w_key(&w, "config");
	json_w_obj(&w);
	for (k = json_child(cur, json_get(cur, ci, "config")); k >= 0;
	    k = json_next(cur, json_next(cur, k))) {
		if (json_str(cur, k, key, sizeof(key)) < 0 || carried(kv, key))
			continue;
		json_w_key(&w, key);
		copy_raw(&w, cur, json_next(cur, k));
	}
	json_w_end(&w, '}');
	json_w_key(&w, "devices");
	if ((v = json_get(orig, oi, "devices")) >= 0)
		copy_raw(&w, orig, v);
	else {
		json_w_obj(&w);
		json_w_end(&w, '}');
	}
	json_w_key(&w, "profiles");
	if ((v = json_get(orig, oi, "profiles")) >= 0)
		copy_raw(&w, orig, v);
	else {
		json_w_arr(&w);
		json_w_end(&w, ']');
	}
	json_w_end(&w, '}');
	if (json_w_finish(&w, body, NULL) < 0)
		return err_set(e, -ENOMEM, "building the rollback failed");
	return 0;
}

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

static int
read_self(char **buf, size_t *len, struct box_err *e)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	char *p = malloc(SELF_MAX);
	size_t n = 0;
	ssize_t k;

	if (fd < 0 || p == NULL) {
		if (fd >= 0)
			close(fd);
		free(p);
		return err_set(e, -EIO, "reading this binary (/proc/self/exe)");
	}
	while (n < SELF_MAX && ((k = read(fd, p + n, SELF_MAX - n)) > 0 ||
	    (k < 0 && errno == EINTR)))
		if (k > 0)
			n += (size_t)k;
	close(fd);
	if (n == 0 || n == SELF_MAX) {
		free(p);
		return err_set(e, -EFBIG, "/proc/self/exe: unexpected size");
	}
	*buf = p;
	*len = n;
	return 0;
}

static int
push_self(struct incus *c, const char *name, const char *path,
    struct box_err *e)
{
	struct incus_reply r;
	struct stream_mem m = { NULL, 0, 0 };
	char url[256], *self = NULL;
	size_t n = 0;
	int rc;

	if ((rc = read_self(&self, &n, e)) < 0)
		return rc;
	m.p = self;
	m.n = n;
	snprintf(url, sizeof(url), "/1.0/instances/%s/files?path=%s", name,
	    path);
	rc = stream_send(c, "POST", url, "application/octet-stream",
	    "X-Incus-type: file\r\nX-Incus-uid: 0\r\nX-Incus-gid: 0\r\n"
	    "X-Incus-mode: 0700\r\nX-Incus-write: overwrite\r\n",
	    (long long)n, stream_mem_read, &m, &r, e);
	incus_reply_free(&r);
	free(self);
	return rc;
}

static void
remove_file(struct incus *c, const char *name, const char *path)
{
	struct incus_reply r;
	struct box_err e;
	char url[256];

	err_clear(&e);
	snprintf(url, sizeof(url), "/1.0/instances/%s/files?path=%s", name,
	    path);
	if (incus_call(c, "DELETE", url, NULL, &r, &e) == 0)
		incus_reply_free(&r);
}

static const char *
probe_name(void)
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
	snprintf(en, sizeof(en), "BOX_MIGRATE_PROBE_NAME=%s", probe_name());
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
static int
verify_inside(struct incus *c, const char *name, uint32_t net,
    long long deadline, struct migrate_probe *p, struct box_err *e)
{
	char path[64], got[200] = "", a[16];
	uint32_t gw = net | 1;
	int rc, i;

	if ((rc = life_wait_agent(c, name, deadline, NULL, e)) < 0)
		return rc;
	snprintf(path, sizeof(path), "/tmp/.box-migrate.%ld", (long)getpid());
	if ((rc = push_self(c, name, path, e)) < 0) {
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
	remove_file(c, name, path);
	return rc;
}

/* --- re-homing one box ------------------------------------------------------ */

static long long
deadline_ms(void)
{
	const char *v = getenv("BOX_MIGRATE_TIMEOUT");
	long s = v != NULL ? strtol(v, NULL, 10) : 0;

	if (s <= 0 || s > 3600)
		s = MIGRATE_TIMEOUT_S;
	return clock_ms() + s * 1000;
}

static int
get_instance(struct incus *c, const char *name, struct incus_reply *r,
    struct box_err *e)
{
	char path[160];

	snprintf(path, sizeof(path), "/1.0/instances/%s", name);
	return incus_call(c, "GET", path, NULL, r, e);
}

/* The shape doctor demands, judged on the daemon's record as moved. */
static int
check_shape(struct incus *c, const char *name, struct box_err *e)
{
	struct shape_report *s = calloc(1, sizeof(*s));
	struct incus_reply r;
	int rc, n;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = get_instance(c, name, &r, e)) == 0) {
		n = shape_check(&r.doc, r.metadata, s);
		if (n > 0)
			rc = err_set(e, -EPERM, "on %s, %s does not have box's "
			    "shape: %s%s", CONTRACT_PROFILE, name, s->what[0],
			    n > 1 ? " (and more: box doctor)" : "");
	}
	incus_reply_free(&r);
	free(s);
	return rc;
}

/* Put the box back: its old profiles and devices, both tags; restarted. */
static int
rollback(struct incus *c, const char *name, const struct incus_reply *orig,
    const struct mint_kv *carry, int was_running, struct box_err *e)
{
	struct incus_reply r;
	char path[160], *body = NULL;
	int rc;

	err_clear(e);
	life_state(c, name, "stop", 1, 0, e);	/* stopped already is fine */
	err_clear(e);
	if ((rc = get_instance(c, name, &r, e)) == 0)
		rc = migrate_rollback_body(&r.doc, r.metadata, &orig->doc,
		    orig->metadata, carry, &body, e);
	incus_reply_free(&r);
	if (rc == 0) {
		snprintf(path, sizeof(path), "/1.0/instances/%s", name);
		rc = incus_do(c, "PUT", path, body, LIFE_OP_S, &r, e);
		incus_reply_free(&r);
	}
	free(body);
	if (rc == 0 && was_running)
		rc = life_state(c, name, "start", 0, 0, e);
	return rc;
}

static int
refuse(struct migrate_result *res, struct box_err *e, int rc)
{
	res->outcome = MIG_R_REFUSED;
	return rc;
}

/* Everything up to (not including) the first change. */
static int
preflight(struct incus *c, const char *name, struct incus_reply *orig,
    uint32_t *net, struct migrate_result *res, struct box_err *e)
{
	char pool[64], foreign[200];
	int rc, kind;

	if (!box_name_ok(name))
		return refuse(res, e, err_usage(e, "not a box name: %.64s",
		    name));
	if ((rc = life_require_stack(c, pool, sizeof(pool), e)) < 0)
		return refuse(res, e, rc);
	rc = stack_bridge_net(c, net, e);
	if (rc == 0 || (rc > 0 && *net == 0)) {
		err_set(e, -ENOENT, "no %s bridge with an IPv4 address: the "
		    "host stack a box runs on is missing", CONTRACT_BRIDGE);
		err_fix(e, "build it: box setup-host");
		return refuse(res, e, -ENOENT);
	}
	if (rc < 0)
		return refuse(res, e, rc);
	rc = get_instance(c, name, orig, e);
	if (rc == -ENOENT) {
		err_set(e, -ENOENT, "no such box: %s", name);
		return refuse(res, e, rc);
	}
	if (rc < 0)
		return refuse(res, e, rc);
	kind = migrate_kind(&orig->doc, orig->metadata);
	if (kind == MIG_NOT_BOX) {
		err_set(e, -EPERM, "%s is not a box (neither user.box=1 nor the "
		    "legacy %s=1): box leaves it alone", name,
		    CONTRACT_LEGACY_TAG);
		return refuse(res, e, -EPERM);
	}
	if (kind == MIG_DONE) {
		res->outcome = MIG_R_SKIPPED;
		return 1;
	}
	if (migrate_foreign_devices(&orig->doc, orig->metadata, foreign,
	    sizeof(foreign)) > 0) {
		err_set(e, -EPERM, "%s has devices of its own that box never "
		    "gives a box (%s): re-homing it would carry them onto the "
		    "hardened stack. Nothing was changed", name, foreign);
		err_fix(e, "remove them (box incus %s -- config device remove "
		    "{} <device>), then run migrate-host again", name);
		return refuse(res, e, -EPERM);
	}
	return 0;
}

static int
edit(struct incus *c, const char *name, const char *const *set,
    int move, struct box_err *e)
{
	static const char *const profiles[] = { CONTRACT_PROFILE, NULL };
	struct life_edit ed;

	memset(&ed, 0, sizeof(ed));
	ed.set = set;
	if (move) {
		ed.profiles = profiles;
		ed.drop_dev = migrate_drop_device;
	}
	return life_edit(c, name, &ed, e);
}

/* The steps after the stamp; *stage names the one that failed. */
static int
rehome(struct incus *c, const char *name, uint32_t net,
    const struct incus_reply *orig, struct mint_kv *carry, int running,
    struct migrate_result *res, struct migrate_probe *p, struct box_err *e)
{
	long long deadline;
	int rc, forced = 0;

	if (running) {
		res->stage = "stop";
		life_say("stopping %s", name);
		if ((rc = life_stop(c, name, 30, &forced, e)) < 0)
			return rc;
		if (forced)
			life_say("%s did not stop within 30 s: stopped it the "
			    "hard way", name);
	}
	res->stage = "move";
	if ((rc = migrate_carry(&orig->doc, orig->metadata, carry)) < 0)
		return err_set(e, rc, "its keys are too long to carry");
	life_say("moving %s onto the %s profile alone", name,
	    CONTRACT_PROFILE);
	if ((rc = edit(c, name, mint_kv_list(carry), 1, e)) < 0)
		return rc;
	res->stage = "shape";
	if ((rc = check_shape(c, name, e)) < 0)
		return rc;
	res->stage = "start";
	deadline = deadline_ms();
	if ((rc = life_state(c, name, "start", 0, 0, e)) < 0)
		return rc;
	res->stage = "verify";
	life_say("verifying %s from inside", name);
	return verify_inside(c, name, net, deadline, p, e);
}

static int
untag(struct incus *c, const char *name, const struct migrate_probe *p,
    struct migrate_result *res, struct box_err *e)
{
	const char *set[] = { CONTRACT_LEGACY_TAG, "", NULL, NULL, NULL };

	if (!p->user) {
		set[2] = "user.box.user";
		set[3] = "root";
		snprintf(res->note, sizeof(res->note), "it has no user '%s': "
		    "box exec and shell use root", MIGRATE_USER);
	}
	res->stage = "untag";
	return edit(c, name, set, 0, e);
}

static void
say_result(const char *name, uint32_t net, const struct migrate_probe *p,
    struct migrate_result *res)
{
	char a[16], dns[160];

	fmt4(migrate_probe_lease(p, net), res->addr, sizeof(res->addr));
	fmt4(p->name_a, a, sizeof(a));
	if (p->name == 1)
		snprintf(dns, sizeof(dns), "%s resolves to %s", probe_name(), a);
	else
		snprintf(dns, sizeof(dns), "%s does not resolve (%s: the "
		    "host's upstream resolvers; see box doctor)", probe_name(),
		    p->name_why);
	printf("box: re-homed %s: on %s (%s), the gateway answers its DNS, "
	    "%s; its disk untouched, its MAC kept%s%s\n", name,
	    CONTRACT_BRIDGE, res->addr, dns, res->note[0] ? "; " : "",
	    res->note);
}

int
migrate_box(struct incus *c, const char *name, struct migrate_result *res,
    struct box_err *e)
{
	struct migrate_probe p;
	struct incus_reply orig;
	struct mint_kv stamps, carry;
	struct box_err rb;
	char now[32];
	uint32_t net = 0;
	int rc, running, forced = 0;

	memset(res, 0, sizeof(*res));
	memset(&p, 0, sizeof(p));
	mint_kv_init(&carry);
	res->stage = "checks";
	rc = preflight(c, name, &orig, &net, res, e);
	if (rc != 0) {
		incus_reply_free(&orig);
		if (rc > 0)
			printf("box: %s is already on the hardened stack "
			    "(user.box=1, no legacy tag): nothing to do\n",
			    name);
		return rc > 0 ? 0 : rc;
	}
	running = !json_streq(&orig.doc, json_get(&orig.doc, orig.metadata,
	    "status"), "Stopped");
	text_utc(now, sizeof(now), time(NULL));
	res->stage = "stamp";
	if (migrate_stamps(&orig.doc, orig.metadata, now, &stamps) < 0)
		rc = err_set(e, -E2BIG, "stamps too long");
	else
		rc = edit(c, name, mint_kv_list(&stamps), 0, e);
	if (rc < 0) {
		incus_reply_free(&orig);
		res->outcome = MIG_R_REFUSED;
		err_context(e, "stamping %s (nothing else was changed)", name);
		return rc;
	}
	rc = rehome(c, name, net, &orig, &carry, running, res, &p, e);
	if (rc == 0)
		rc = untag(c, name, &p, res, e);
	if (rc == 0) {
		incus_reply_free(&orig);
		res->outcome = MIG_R_DONE;
		say_result(name, net, &p, res);
		/* it was started only to be verified: leave it as it was */
		if (!running && life_stop(c, name, 30, &forced, e) < 0) {
			life_say("re-homed, but stopping %s again failed: %s",
			    name, e->msg);
			err_clear(e);
		}
		return 0;
	}
	if (strcmp(res->stage, "untag") == 0) {
		/* verified on the stack, both tags: valid; a re-run ends it */
		incus_reply_free(&orig);
		res->outcome = MIG_R_STRANDED;
		err_context(e, "%s is verified on %s but still carries both "
		    "tags", name, CONTRACT_PROFILE);
		err_fix(e, "box migrate-host --box %s (it resumes)", name);
		return rc;
	}
	life_say("%s failed at '%s': putting it back where it was", name,
	    res->stage);
	err_clear(&rb);
	if (rollback(c, name, &orig, &carry, running, &rb) == 0) {
		res->outcome = MIG_R_ROLLED_BACK;
		err_context(e, "re-homing %s failed at '%s'; it is back on its "
		    "old profiles%s, carrying both tags (a box either way)",
		    name, res->stage, running ? " and running" : "");
		err_fix(e, "fix the cause, then box migrate-host --box %s",
		    name);
	} else {
		res->outcome = MIG_R_STRANDED;
		err_context(e, "re-homing %s failed at '%s', and putting it "
		    "back failed too (%s); it carries both tags, so every box "
		    "verb still reaches it", name, res->stage, rb.msg);
		err_fix(e, "box info %s; then box migrate-host --box %s", name,
		    name);
	}
	incus_reply_free(&orig);
	return rc;
}

/* --- listing ------------------------------------------------------------ */

static int
cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int
migrate_legacy_names(struct incus *c, char (*names)[BOX_NAME_MAX], int max,
    int *n, int *more, struct box_err *e)
{
	struct incus_reply r;
	int i, rc, k;

	*n = *more = 0;
	rc = incus_call(c, "GET", "/1.0/instances?recursion=1", NULL, &r, e);
	for (i = rc == 0 ? json_child(&r.doc, r.metadata) : -1; i >= 0;
	    i = json_next(&r.doc, i)) {
		k = migrate_kind(&r.doc, i);
		if (k != MIG_LEGACY && k != MIG_HALFWAY)
			continue;
		if (*n == max) {
			(*more)++;
			continue;
		}
		json_gets(&r.doc, i, "name", names[*n], BOX_NAME_MAX, "?");
		(*n)++;
	}
	incus_reply_free(&r);
	if (rc == 0)
		qsort(names, (size_t)*n, BOX_NAME_MAX, cmp_name);
	return rc;
}

/* --- retiring ----------------------------------------------------------- */

static const char *const legacy_objects[] = {
	/* the profile names the bridge, the bridge the ACL: in that order */
	"/1.0/profiles/" CONTRACT_LEGACY_PROFILE,
	"/1.0/networks/" CONTRACT_LEGACY_BRIDGE,
	"/1.0/network-acls/" CONTRACT_LEGACY_ACL,
};
#define NLEGACY (sizeof(legacy_objects) / sizeof(legacy_objects[0]))

static const char *const legacy_files[] = {
	CONTRACT_LEGACY_UNIT_WANTS, CONTRACT_LEGACY_UNIT_PATH,
	CONTRACT_LEGACY_SCRIPT,
};
#define NFILES (sizeof(legacy_files) / sizeof(legacy_files[0]))

static void
cat(char *buf, size_t cap, const char *s)
{
	size_t n = strlen(buf);

	if (n + strlen(s) + 2 < cap)
		snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", s);
}

/* Every instance that still needs the legacy stack, named. */
static int
blockers(struct incus *c, char *buf, size_t cap, struct box_err *e)
{
	struct incus_reply r;
	char name[BOX_NAME_MAX], item[BOX_NAME_MAX + 48];
	int i, rc, k, count = 0;

	buf[0] = '\0';
	rc = incus_call(c, "GET", "/1.0/instances?recursion=1", NULL, &r, e);
	for (i = rc == 0 ? json_child(&r.doc, r.metadata) : -1; i >= 0;
	    i = json_next(&r.doc, i)) {
		k = migrate_kind(&r.doc, i);
		json_gets(&r.doc, i, "name", name, sizeof(name), "?");
		text_sanitize(name, strlen(name));
		if (k == MIG_LEGACY)
			snprintf(item, sizeof(item), "%s", name);
		else if (k == MIG_HALFWAY)
			snprintf(item, sizeof(item), "%s (both tags: its "
			    "re-homing did not finish)", name);
		else if (migrate_uses_legacy(&r.doc, i))
			snprintf(item, sizeof(item), "%s (on %s or %s)", name,
			    CONTRACT_LEGACY_PROFILE, CONTRACT_LEGACY_BRIDGE);
		else
			continue;
		cat(buf, cap, item);
		count++;
	}
	incus_reply_free(&r);
	return rc < 0 ? rc : count;
}

static int
delete_objects(struct incus *c, struct box_err *e)
{
	struct incus_reply r;
	size_t i;
	int rc;

	for (i = 0; i < NLEGACY; i++) {
		rc = incus_do(c, "DELETE", legacy_objects[i], NULL, 60, &r, e);
		if (rc == -ENOENT) {
			err_clear(e);
			continue;
		}
		if (rc < 0) {
			err_context(e, "deleting %s", legacy_objects[i] + 5);
			return rc;
		}
		incus_reply_free(&r);
		printf("box: removed %s\n", legacy_objects[i] + 5);
	}
	return 0;
}

static int
remove_unit(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now",
	    CONTRACT_LEGACY_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;
	size_t i;

	err_clear(&ignore);
	if (sysd_present() && access(CONTRACT_LEGACY_UNIT_PATH, F_OK) == 0)
		sysd_run(disable, &ignore);	/* an inactive unit is fine */
	for (i = 0; i < NFILES; i++) {
		if (unlink(legacy_files[i]) == 0)
			printf("box: removed %s\n", legacy_files[i]);
		else if (errno != ENOENT)
			return err_set(e, -errno, "removing %s: %s",
			    legacy_files[i], strerror(errno));
	}
	if (sysd_present())
		sysd_run(reload, &ignore);
	return 0;
}

/* One netfilter socket, for destroying or for listing our legacy tables. */
struct nft_job {
	int destroy;
	int exists[2];		/* inet, bridge */
};

static int
nft_legacy(struct nft_job *job, struct box_err *e)
{
	static const int fam[2] = { NFT_FAM_INET, NFT_FAM_BRIDGE };
	struct nl_sock *s = malloc(sizeof(*s));
	struct nft_batch *bt = malloc(sizeof(*bt));
	unsigned char *buf = malloc(4096);
	struct nft_table_info ti;
	struct nft_chain_info ch[32];
	int i, rc;

	if (s == NULL || bt == NULL || buf == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = nl_open(s, NETLINK_NETFILTER, e)) < 0)
		goto out;
	if (job->destroy) {
		nft_batch_init(bt, buf, 4096, s->seq);
		for (i = 0; i < 2; i++)
			nft_table_destroy(bt, fam[i],
			    CONTRACT_LEGACY_NFT_TABLE);
		rc = nft_batch_send(s, bt, NULL, e);
	}
	for (i = 0; rc == 0 && i < 2; i++) {
		memset(&ti, 0, sizeof(ti));
		ti.chains = ch;
		ti.maxchains = sizeof(ch) / sizeof(ch[0]);
		rc = nft_list_table(s, fam[i], CONTRACT_LEGACY_NFT_TABLE, &ti,
		    e);
		job->exists[i] = ti.exists;
	}
	nl_close(s);
out:
	free(s);
	free(bt);
	free(buf);
	return rc;
}

/* Nothing of the legacy stack may survive; name whatever did. */
static int
assert_absent(struct incus *c, struct box_err *e)
{
	struct nft_job job = { 0, { 0, 0 } };
	char left[600] = "", item[120];
	struct incus_reply r;
	struct box_err le;
	size_t i;
	int n;

	for (i = 0; i < NLEGACY; i++) {
		err_clear(&le);
		if (incus_call(c, "GET", legacy_objects[i], NULL, &r,
		    &le) == 0)
			cat(left, sizeof(left), legacy_objects[i] + 5);
		incus_reply_free(&r);
	}
	for (i = 0; i < NFILES; i++)
		if (access(legacy_files[i], F_OK) == 0)
			cat(left, sizeof(left), legacy_files[i]);
	err_clear(&le);
	if (nft_legacy(&job, &le) < 0) {
		snprintf(item, sizeof(item), "nft tables (unreadable: %.80s)",
		    le.msg);
		cat(left, sizeof(left), item);
	} else {
		if (job.exists[0])
			cat(left, sizeof(left), "table inet "
			    CONTRACT_LEGACY_NFT_TABLE);
		if (job.exists[1])
			cat(left, sizeof(left), "table bridge "
			    CONTRACT_LEGACY_NFT_TABLE);
	}
	err_clear(&le);
	n = blockers(c, item, sizeof(item), &le);
	if (n > 0)
		cat(left, sizeof(left), "legacy boxes");
	if (left[0] != '\0')
		return err_set(e, -EEXIST, "retiring left these behind: %s",
		    left);
	return 0;
}

int
migrate_retire(struct incus *c, struct box_err *e)
{
	struct nft_job job = { 1, { 0, 0 } };
	char who[900];
	int rc;

	rc = blockers(c, who, sizeof(who), e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		err_set(e, -EBUSY, "refusing to retire the legacy stack: %d "
		    "instance%s still need%s it: %s", rc, rc == 1 ? "" : "s",
		    rc == 1 ? "s" : "", who);
		err_fix(e, "box migrate-host --all-boxes, then retire again");
		return -EBUSY;
	}
	if ((rc = delete_objects(c, e)) < 0 || (rc = remove_unit(e)) < 0)
		return rc;
	if ((rc = nft_legacy(&job, e)) < 0) {
		err_context(e, "removing the nft tables inet/bridge %s",
		    CONTRACT_LEGACY_NFT_TABLE);
		return rc;
	}
	if ((rc = assert_absent(c, e)) < 0)
		return rc;
	printf("box: legacy stack retired: %s, %s, %s, the %s unit and "
	    "script, the nft tables inet/bridge %s are gone\n",
	    CONTRACT_LEGACY_PROFILE, CONTRACT_LEGACY_BRIDGE,
	    CONTRACT_LEGACY_ACL, CONTRACT_LEGACY_UNIT,
	    CONTRACT_LEGACY_NFT_TABLE);
	return 0;
}
