/*
 * grant_probe.c - the daemon's symlink behaviour, measured (see
 * grant_probe.h).
 */
#include "host/stack/grant_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host/stack/contract.h"
#include "host/stack/grant_project.h"
#include "incus/image.h"
#include "incus/instance.h"
#include "incus/operation.h"
#include "incus/project.h"
#include "incus/server.h"
#include "util/clock.h"

#define PROBE_WAIT_S	60
#define PROBE_INSTANCE	"box-probe"
#define PROBE_ROOTFS	"box-probe-rootfs"
#define PROBE_TAR_MAX	(16u << 10)
#define CANARY		"box-canary-"

static void by_release(struct grant_probe *v);

static void
octal(unsigned char *p, size_t n, unsigned long long v)
{
	/* n-1 digits and a NUL, as tar writes them. */
	p[n - 1] = '\0';
	for (size_t i = n - 1; i-- > 0; v >>= 3)
		p[i] = (unsigned char)('0' + (v & 7));
}

int
grant_tar_member(unsigned char *buf, size_t cap, size_t *len,
    const char *name, char type, const char *link, const void *data,
    size_t n)
{
	unsigned char *h = buf + *len;
	size_t pad = (n + 511) / 512 * 512;
	unsigned sum = 0;

	if (type != '0')
		n = pad = 0;
	if (strlen(name) >= 100 || (link != NULL && strlen(link) >= 100) ||
	    *len + 512 + pad + 1024 > cap)
		return -E2BIG;
	memset(h, 0, 512 + pad);
	memcpy(h, name, strlen(name));
	octal(h + 100, 8, type == '5' ? 0755 : type == '2' ? 0777 : 0644);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, n);
	octal(h + 136, 12, (unsigned long long)time(NULL));
	h[156] = (unsigned char)type;
	if (link != NULL)
		memcpy(h + 157, link, strlen(link));
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	octal(h + 148, 7, sum);
	h[155] = ' ';
	if (n > 0)
		memcpy(h + 512, data, n);
	*len += 512 + pad;
	/* The two zero blocks that end the archive stay after it. */
	memset(buf + *len, 0, 1024);
	return 0;
}

/* The canary: <dir>/meta.yaml and <dir>/tpl/<token>.tpl, root-only. */
struct canary {
	char dir[64], meta[96], tpl[96], tplfile[160];
	char token[48];		/* box-canary-<hex> */
};

static int
put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static void
canary_remove(struct canary *k)
{
	if (k->dir[0] == '\0')
		return;
	unlink(k->tplfile);
	rmdir(k->tpl);
	unlink(k->meta);
	rmdir(k->dir);
}

static int
canary_make(struct canary *k, struct box_err *e)
{
	unsigned char rnd[8];
	char text[256];
	int rc;

	memset(k, 0, sizeof(*k));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return err_set(e, -EIO, "getrandom: %s", strerror(errno));
	snprintf(k->token, sizeof(k->token), CANARY "%02x%02x%02x%02x%02x%02x"
	    "%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6],
	    rnd[7]);
	snprintf(k->dir, sizeof(k->dir), "/run/box-probe.XXXXXX");
	if (mkdtemp(k->dir) == NULL) {
		k->dir[0] = '\0';
		return err_set(e, -errno, "making the probe's canary "
		    "directory in /run: %s", strerror(errno));
	}
	snprintf(k->meta, sizeof(k->meta), "%s/meta.yaml", k->dir);
	snprintf(k->tpl, sizeof(k->tpl), "%s/tpl", k->dir);
	snprintf(k->tplfile, sizeof(k->tplfile), "%s/%s.tpl", k->tpl,
	    k->token);
	snprintf(text, sizeof(text), "architecture: x86_64\ncreation_date: "
	    "1\nproperties:\n  description: %s\n", k->token);
	rc = put_file(k->meta, text);
	if (rc == 0 && mkdir(k->tpl, 0700) < 0)
		rc = -errno;
	if (rc == 0)
		rc = put_file(k->tplfile, k->token);
	if (rc < 0) {
		canary_remove(k);
		return err_set(e, rc, "writing the probe's canary: %s",
		    strerror(-rc));
	}
	return 0;
}

/* Either image's head: metadata.yaml (a regular file) and rootfs/. */
static int
tar_head(const char *what, unsigned char *buf, size_t cap, size_t *len)
{
	struct utsname un;
	char meta[256];
	int rc;

	*len = 0;
	if (uname(&un) < 0)
		return -errno;
	snprintf(meta, sizeof(meta), "architecture: %s\ncreation_date: %lld\n"
	    "properties:\n  description: box daemon %s probe\n",
	    un.machine, (long long)time(NULL), what);
	rc = grant_tar_member(buf, cap, len, "metadata.yaml", '0', NULL, meta,
	    strlen(meta));
	if (rc == 0)
		rc = grant_tar_member(buf, cap, len, "rootfs/", '5', NULL, NULL,
		    0);
	return rc;
}

/* The image: metadata.yaml (a file, then a link), rootfs/, templates. */
static int
probe_tar(const struct canary *k, unsigned char *buf, size_t cap,
    size_t *len)
{
	int rc = tar_head("symlink", buf, cap, len);

	if (rc == 0)
		rc = grant_tar_member(buf, cap, len, "metadata.yaml", '2',
		    k->meta, NULL, 0);
	if (rc == 0)
		rc = grant_tar_member(buf, cap, len, "templates", '2', k->tpl,
		    NULL, 0);
	if (rc == 0)
		*len += 1024;
	return rc;
}

/*
 * The second image: metadata.yaml, a rootfs/ directory (the import wants
 * one), then rootfs again as a link to the canary's template directory.
 * A daemon that unpacks it as it stands makes an instance whose root is
 * that directory.
 */
static int
rootfs_tar(const struct canary *k, unsigned char *buf, size_t cap,
    size_t *len)
{
	int rc = tar_head("rootfs", buf, cap, len);

	if (rc == 0)
		rc = grant_tar_member(buf, cap, len, "rootfs", '2', k->tpl,
		    NULL, 0);
	if (rc == 0)
		*len += 1024;
	return rc;
}

/* The scratch project's client; the project made first. */
static int
scratch_make(struct incus *c, const struct canary *k, char *project,
    size_t cap, struct incus *pc, struct box_err *e)
{
	struct incus_kvs cfg = { 0 };
	int rc;

	snprintf(project, cap, GRANT_PROBE_PREFIX "%.8s",
	    k->token + strlen(CANARY));
	rc = incus_kv_set(&cfg, "features.images", "true");
	if (rc == 0)
		rc = incus_kv_set(&cfg, "features.profiles", "true");
	if (rc == 0)
		rc = incus_project_create(c, project, "box: the daemon's "
		    "symlink probe (removed at once)", &cfg, e);
	else
		rc = err_set(e, rc, "building the probe's project");
	incus_kv_free(&cfg);
	if (rc < 0)
		return rc;
	return grant_project_client(c, project, pc, e);
}

static int
probe_instance(struct incus *pc, const char *name, struct box_err *e)
{
	static const char *const no_profiles[] = { NULL };
	struct incus_instance_new spec;
	struct incus_devices dev = { 0 };
	struct incus_kvs root = { 0 };
	struct incus_op op;
	int rc;

	rc = incus_kv_set(&root, "type", "disk");
	if (rc == 0)
		rc = incus_kv_set(&root, "path", "/");
	if (rc == 0)
		rc = incus_kv_set(&root, "pool", CONTRACT_POOL);
	if (rc == 0)
		rc = incus_dev_set(&dev, "root", &root);
	incus_kv_free(&root);
	if (rc < 0) {
		incus_dev_free(&dev);
		return err_set(e, rc, "building the probe's instance");
	}
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.type = "container";
	spec.description = "box: the daemon's symlink probe (never started)";
	spec.profiles = no_profiles;
	spec.devices = &dev;
	spec.source = INCUS_SRC_IMAGE;
	spec.alias = name;
	rc = incus_instance_create_begin(pc, &spec, &op, e);
	incus_dev_free(&dev);
	if (rc == 0)
		rc = incus_op_wait(pc, op.url, PROBE_WAIT_S, e);
	return rc;
}

/* The two reads; the verdict in v. */
static int
probe_read(struct incus *pc, const struct canary *k, struct grant_probe *v,
    struct box_err *e)
{
	char desc[128], tpl[80], why_m[120], why_t[120];
	struct box_err me, te;
	int rm, rt;

	err_clear(&me);
	err_clear(&te);
	rm = incus_metadata_property(pc, PROBE_INSTANCE, "description", desc,
	    sizeof(desc), &me);
	snprintf(tpl, sizeof(tpl), "%s.tpl", k->token);
	rt = incus_template_listed(pc, PROBE_INSTANCE, tpl, &te);
	(void)e;
	if ((rm == 0 && strcmp(desc, k->token) == 0) || rt == 1) {
		v->failing |= GRANT_GATE_SYMLINK;
		snprintf(v->how, sizeof(v->how), "it served %s%s%s through "
		    "symlinks out of the instance's directory",
		    rm == 0 && strcmp(desc, k->token) == 0 ? "box's canary as "
		    "the instance's metadata.yaml" : "", rm == 0 &&
		    strcmp(desc, k->token) == 0 && rt == 1 ? " and " : "",
		    rt == 1 ? "the canary directory as its templates" : "");
		return 0;
	}
	snprintf(why_m, sizeof(why_m), "%.100s", rm < 0 ? me.msg : "answered "
	    "without the canary");
	snprintf(why_t, sizeof(why_t), "%.100s", rt < 0 ? te.msg : "listed "
	    "no canary");
	snprintf(v->how, sizeof(v->how), "links out of the instance's "
	    "directory are not followed (metadata: %.90s; templates: %.90s)",
	    why_m, why_t);
	return 0;
}

/* Remove what the probe made, in order; the first failure is kept. */
static void
scratch_remove(struct incus *c, struct incus *pc, const char *project,
    char fp[2][INCUS_IMAGE_FP], struct box_err *e)
{
	static const char *const names[] = { PROBE_INSTANCE, PROBE_ROOTFS };
	struct box_err x;
	int i;

	err_clear(&x);
	for (i = 0; i < 2; i++)
		if (incus_instance_delete(pc, names[i], PROBE_WAIT_S, &x) ==
		    -ENOENT)
			err_clear(&x);
	for (i = 0; i < 2; i++)
		if (fp[i][0] != '\0' && incus_image_delete(pc, fp[i],
		    PROBE_WAIT_S, &x) == -ENOENT)
			err_clear(&x);
	if (incus_project_delete(c, project, PROBE_WAIT_S, &x) == -ENOENT)
		err_clear(&x);
	if (x.code != 0 && e->code == 0) {
		*e = x;
		err_context(e, "removing the probe's project %s", project);
		err_fix(e, "delete it by hand: incus delete --project %s -f "
		    PROBE_INSTANCE " " PROBE_ROOTFS "; incus image list "
		    "--project %s; incus "
		    "project delete %s", project, project, project);
	}
}

/* Collects a pulled file, up to the buffer's size. */
struct pulled {
	char p[96];
	size_t n;
};

static int
pull_sink(void *ctx, const void *p, size_t n)
{
	struct pulled *b = ctx;
	size_t k = n < sizeof(b->p) - 1 - b->n ? n : sizeof(b->p) - 1 - b->n;

	memcpy(b->p + b->n, p, k);
	b->n += k;
	b->p[b->n] = '\0';
	return 0;
}

/*
 * The rootfs gate: an image whose top-level rootfs is a link to the
 * canary's template directory.  A daemon that refuses it at unpack (or
 * makes an instance whose root is not that directory) passes; one that
 * hands back the canary's token from the instance's "/<token>.tpl" has
 * given the image's owner the daemon's root on the link's target.  The
 * symlink probe's image and instance were made just before in the same
 * project, so a refusal here is the daemon's judgement, not a broken pool.
 */
static void
probe_rootfs(struct incus *pc, const struct canary *k, unsigned char *tar,
    size_t cap, char *fp, struct grant_probe *v)
{
	struct pulled b = { .n = 0 };
	struct box_err x;
	char path[80];
	size_t n;
	int rc;

	err_clear(&x);
	b.p[0] = '\0';
	if ((rc = rootfs_tar(k, tar, cap, &n)) < 0)
		rc = err_set(&x, rc, "building the image");
	if (rc == 0 && (rc = incus_image_upload(pc, tar, n, PROBE_ROOTFS, fp,
	    PROBE_WAIT_S, &x)) < 0)
		err_context(&x, "refused at import");
	if (rc == 0 && (rc = probe_instance(pc, PROBE_ROOTFS, &x)) < 0)
		err_context(&x, "refused at unpack");
	snprintf(path, sizeof(path), "/%s.tpl", k->token);
	if (rc == 0)
		rc = incus_file_pull(pc, PROBE_ROOTFS, path, pull_sink, &b, &x);
	if (rc == 0 && strcmp(b.p, k->token) == 0) {
		v->failing |= GRANT_GATE_ROOTFS;
		snprintf(v->how_rootfs, sizeof(v->how_rootfs), "it unpacked an "
		    "image whose rootfs links to box's canary directory and "
		    "served the canary as the instance's %s", path);
		return;
	}
	snprintf(v->how_rootfs, sizeof(v->how_rootfs), "an image whose rootfs "
	    "links out is not followed (%.140s)", rc < 0 ? x.msg :
	    "the instance's files are not the canary's");
}

static int
probe_run(struct incus *c, struct grant_probe *v, struct box_err *e)
{
	unsigned char *tar;
	struct canary k;
	struct incus pc;
	char project[64], fp[2][INCUS_IMAGE_FP] = { "", "" };
	size_t n;
	int rc;

	if ((tar = malloc(PROBE_TAR_MAX)) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = canary_make(&k, e);
	if (rc < 0) {
		free(tar);
		return rc;
	}
	if (probe_tar(&k, tar, PROBE_TAR_MAX, &n) < 0) {
		canary_remove(&k);
		free(tar);
		return err_set(e, -E2BIG, "building the probe's image");
	}
	rc = scratch_make(c, &k, project, sizeof(project), &pc, e);
	if (rc < 0) {
		canary_remove(&k);
		free(tar);
		return rc;
	}
	rc = incus_image_upload(&pc, tar, n, PROBE_INSTANCE, fp[0],
	    PROBE_WAIT_S, e);
	if (rc == 0)
		rc = probe_instance(&pc, PROBE_INSTANCE, e);
	if (rc == 0)
		rc = probe_read(&pc, &k, v, e);
	if (rc == 0)
		probe_rootfs(&pc, &k, tar, PROBE_TAR_MAX, fp[1], v);
	if (rc < 0)
		err_context(e, "probing the daemon in the scratch project %s",
		    project);
	scratch_remove(c, &pc, project, fp, e);
	incus_close(&pc);
	canary_remove(&k);
	free(tar);
	return e->code != 0 ? e->code : rc;
}

/* "v2 <version> <ino> <mtime> <mask>\t<how>\t<how_rootfs>", this daemon. */
static int
cache_key(const struct incus *c, const char *version, char *key, size_t cap)
{
	struct stat st;

	if (stat(c->socket_path, &st) < 0)
		return -1;
	snprintf(key, cap, "v2 %s %llu %lld", version,
	    (unsigned long long)st.st_ino, (long long)st.st_mtime);
	return 0;
}

static int
cache_read(const char *key, struct grant_probe *v)
{
	char buf[640], *tab, *tab2;
	struct stat st;
	ssize_t n;
	size_t kl = strlen(key);
	int fd = open(GRANT_PROBE_CACHE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, key, kl) != 0 || buf[kl] != ' ' ||
	    buf[kl + 1] < '0' || buf[kl + 1] > '3' || buf[kl + 2] != '\t' ||
	    (tab = strchr(buf + kl, '\t')) == NULL ||
	    (tab2 = strchr(tab + 1, '\t')) == NULL)
		return -1;
	*tab2 = '\0';
	v->failing = (unsigned)(buf[kl + 1] - '0');
	snprintf(v->how, sizeof(v->how), "%s", tab + 1);
	snprintf(v->how_rootfs, sizeof(v->how_rootfs), "%s", tab2 + 1);
	v->cached = 1;
	return 0;
}

static void
cache_write(const char *key, const struct grant_probe *v)
{
	char tmp[sizeof(GRANT_PROBE_CACHE) + 16];
	int fd;

	if (mkdir("/run/box", 0755) < 0 && errno != EEXIST)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%ld", GRANT_PROBE_CACHE, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd < 0)
		return;
	dprintf(fd, "%s %u\t%s\t%s\n", key, v->failing & GRANT_PROBED, v->how,
	    v->how_rootfs);
	if (close(fd) < 0 || rename(tmp, GRANT_PROBE_CACHE) < 0)
		unlink(tmp);
}

int
grant_probe_daemon(struct incus *c, int fresh, struct grant_probe *v,
    struct box_err *e)
{
	struct incus_server s;
	char key[160];
	long long t0;
	int rc, keyed;

	memset(v, 0, sizeof(*v));
	/* The canary is a file of this machine: only a daemon here sees it. */
	if (c->dialer != NULL && c->dialer != &unix_dialer)
		return err_set(e, -EOPNOTSUPP, "the daemon is reached through "
		    "another dialer than this machine's unix socket: the "
		    "probe's canary would not be on its side");
	rc = incus_server_get(c, &s, e);
	if (rc < 0)
		return rc;
	snprintf(v->version, sizeof(v->version), "%s", s.server_version != NULL ?
	    s.server_version : "?");
	incus_server_free(&s);
	/* A version that could break the cache line is never cached. */
	keyed = strspn(v->version, "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ.-+~_") == strlen(v->version) &&
	    cache_key(c, v->version, key, sizeof(key)) == 0;
	if (!keyed || fresh || cache_read(key, v) < 0) {
		t0 = clock_ms();
		rc = probe_run(c, v, e);
		v->ms = (long)(clock_ms() - t0);
		if (rc < 0)
			return rc;
		if (keyed)
			cache_write(key, v);
	}
	by_release(v);
	return 0;
}

/*
 * The escapes root cannot probe: both are a restricted client's request
 * judged as if it came from the admin (the source instance's project is
 * never checked against the client's; the copy's config is not held to
 * the target project's restrictions), and box's probe runs as the admin.
 * So they go by release: fixed is the first Incus release known to fix
 * the class, NULL while none is.  tests/integration/test_grant.sh shows
 * both as a granted user on the daemon it runs on.
 */
static const struct gate_release {
	unsigned gate;
	const char *fixed;
} releases[] = {
	{ GRANT_GATE_XCOPY, NULL },
	{ GRANT_GATE_PRIVCOPY, NULL },
};

/* Dotted release numbers compared field by field (6.0.4 < 6.10). */
static int
release_before(const char *v, const char *fixed)
{
	unsigned long a, b;
	char *ea, *eb;

	for (;;) {
		a = strtoul(v, &ea, 10);
		b = strtoul(fixed, &eb, 10);
		if (ea == v || eb == fixed)
			return 1;	/* not a number: not known fixed */
		if (a != b)
			return a < b;
		if (*eb != '.')
			return 0;
		if (*ea != '.')
			return 1;
		v = ea + 1;
		fixed = eb + 1;
	}
}

static void
by_release(struct grant_probe *v)
{
	size_t i;

	for (i = 0; i < sizeof(releases) / sizeof(releases[0]); i++)
		if (releases[i].fixed == NULL ||
		    release_before(v->version, releases[i].fixed))
			v->failing |= releases[i].gate;
}

/* Each failing gate: its name (and what the daemon did, or why by release). */
size_t
grant_gates_text(const struct grant_probe *v, int detail, char *buf,
    size_t cap)
{
	static const struct {
		unsigned gate;
		const char *name;
	} names[] = {
		{ GRANT_GATE_SYMLINK, "symlinked metadata/templates" },
		{ GRANT_GATE_ROOTFS, "a top-level rootfs link" },
		{ GRANT_GATE_XCOPY, "cross-project copy" },
		{ GRANT_GATE_PRIVCOPY, "copy of a privileged instance" },
	};
	size_t i, k, n = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *why = NULL;

		if (!(v->failing & names[i].gate))
			continue;
		if (names[i].gate == GRANT_GATE_SYMLINK)
			why = v->how;
		else if (names[i].gate == GRANT_GATE_ROOTFS)
			why = v->how_rootfs;
		else
			for (k = 0; k < sizeof(releases) /
			    sizeof(releases[0]); k++)
				if (releases[k].gate == names[i].gate)
					why = releases[k].fixed == NULL ? "no "
					    "Incus release is known to fix it "
					    "(root cannot probe it)" : "fixed "
					    "only in a later release";
		if (len < cap && detail)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s "
			    "(%s)", n ? "; " : "", names[i].name, why);
		else if (len < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s",
			    n ? "; " : "", names[i].name);
		n++;
	}
	return n;
}
