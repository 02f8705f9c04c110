/*
 * life.c - the lifecycle helpers (see life.h).
 */
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/egress/egress_sync.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "box/box.h"
#include "incus/exec.h"
#include "incus/instance.h"
#include "incus/operation.h"
#include "incus/profile.h"
#include "incus/storage.h"
#include "util/fdio.h"
#include "util/prompt.h"
#include "util/self.h"
#include "util/text.h"


int
life_consent(const char *question, int force, struct box_err *e)
{
	return consent_or_force(question, force, "--force", e);
}

int
life_exists(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_instance in;
	struct box_err le;
	int rc;

	if ((rc = box_name_check(name, "", e)) < 0)
		return rc;
	err_clear(&le);
	rc = incus_instance_get(c, name, 0, &in, &le);
	incus_instance_free(&in);
	if (rc == 0)
		return 1;
	if (rc == -ENOENT)
		return 0;
	*e = le;
	return rc;
}

int
life_rename(struct incus *c, const char *from, const char *to,
    struct box_err *e)
{
	struct box_info bi;
	int rc;

	if ((rc = box_resolve(c, from, &bi, e)) < 0)
		return rc;
	if (strcmp(bi.status, "Stopped") != 0) {
		rc = err_set(e, -EBUSY, "box %s is not stopped — Incus "
		    "renames only a stopped instance", from);
		err_fix(e, "stop it first: box down %s", from);
		return rc;
	}
	if ((rc = life_exists(c, to, e)) != 0) {
		if (rc > 0)
			rc = err_set(e, -EEXIST, "an instance named %s already "
			    "exists", to);
		return rc;
	}
	rc = incus_instance_rename(c, from, to, LIFE_OP_S, e);
	if (rc == 0)
		life_say("renamed %s to %s", from, to);
	/* its egress sets are named after it */
	if (rc == 0)
		rc = egress_sync_box(c, to, e);
	return rc;
}

int
life_require_stack(struct incus *c, char *pool, size_t cap,
    struct box_err *e)
{
	struct incus_profile p;
	struct box_err le;
	const char *root;
	int rc;

	err_clear(&le);
	rc = incus_profile_get(c, CONTRACT_PROFILE, &p, &le);
	if (rc == -ENOENT) {
		err_set(e, -ENOENT, "no %s profile — the host stack a box "
		    "runs on is missing", CONTRACT_PROFILE);
		err_fix(e, "build it: box setup-host");
		return -ENOENT;
	}
	if (rc < 0) {
		*e = le;
		err_context(e, "reading the %s profile", CONTRACT_PROFILE);
		return rc;
	}
	root = incus_dev_key(&p.devices, "root", "pool");
	snprintf(pool, cap, "%s", root != NULL ? root : "default");
	incus_profile_free(&p);
	return 0;
}

int
life_pool_driver(struct incus *c, const char *pool, char *drv, size_t cap,
    struct box_err *e)
{
	if (!box_name_ok(pool) && strspn(pool, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(pool))
		return err_set(e, -EINVAL, "odd pool name '%s'", pool);
	return incus_pool_driver(c, pool, drv, cap, e);
}

int
life_state(struct incus *c, const char *name, const char *action, int force,
    int timeout_s, struct box_err *e)
{
	return incus_instance_set_state(c, name, action, force, timeout_s,
	    (timeout_s > 0 ? timeout_s : 0) + LIFE_OP_S, e);
}

int
life_stop(struct incus *c, const char *name, int grace_s, int *forced,
    struct box_err *e)
{
	struct box_err le;
	int rc;

	*forced = 0;
	err_clear(&le);
	rc = life_state(c, name, "stop", 0, grace_s, &le);
	if (rc == 0)
		return 0;
	/*
	 * A guest that ignores the shutdown signal (or takes longer than
	 * the grace period) is stopped the hard way, and the caller says so.
	 */
	if (strstr(le.msg, "deadline exceeded") == NULL &&
	    strstr(le.msg, "Failed shutting down") == NULL &&
	    rc != -ETIMEDOUT) {
		*e = le;
		return rc;
	}
	*forced = 1;
	return life_state(c, name, "stop", 1, 0, e);
}

int
life_down(struct incus *c, const char *name, const char *status, int force,
    int grace_s, struct box_err *e)
{
	int rc, forced = 0;

	if (strcmp(status, "Stopped") == 0) {
		life_say("%s is already stopped", name);
		return 0;
	}
	if (force)
		rc = life_state(c, name, "stop", 1, 0, e);
	else
		rc = life_stop(c, name, grace_s, &forced, e);
	if (rc == 0 && forced)
		life_say("%s did not shut down within %d s; stopped it "
		    "forcibly", name, grace_s);
	if (rc == 0)
		life_say("stopped %s%s", name, force ? " (forced, at once)" :
		    "");
	return rc;
}

int
life_up(struct incus *c, const char *name, int running, struct box_err *e)
{
	int rc;

	if (running) {
		life_say("%s is already running", name);
		return 0;
	}
	rc = life_state(c, name, "start", 0, 0, e);
	if (rc == 0)
		life_say("started %s", name);
	return rc;
}

static int
instance_running(struct incus *c, const char *name, int *running,
    struct box_err *e)
{
	struct incus_inst_state st;
	int rc = incus_instance_state(c, name, &st, e);

	if (rc == 0)
		*running = strcmp(st.status, "Stopped") != 0;
	incus_state_free(&st);
	return rc;
}

int
life_delete(struct incus *c, const char *name, struct box_err *e)
{
	int rc, running = 0;

	if ((rc = instance_running(c, name, &running, e)) < 0)
		return rc;
	return life_stop_delete(c, name, running, e);
}

int
life_stop_delete(struct incus *c, const char *name, int running,
    struct box_err *e)
{
	int rc;

	if (running && (rc = life_state(c, name, "stop", 1, 0, e)) < 0)
		return rc;
	return incus_instance_delete(c, name, LIFE_OP_S, e);
}

int
life_snapshot(struct incus *c, const char *name, const char *label,
    struct box_err *e)
{
	return incus_snapshot_create(c, name, label, 0, LIFE_OP_S, e);
}

int
life_mark(struct incus *c, const char *name, const char *label,
    const char *pool, const char *known, const char *meaning)
{
	char knob[64], drv[32];
	const char *v;
	struct box_err le;
	size_t i;

	snprintf(knob, sizeof(knob), "BOX_SNAPSHOT_");
	for (i = 0; label[i] != '\0' && strlen(knob) < sizeof(knob) - 1; i++) {
		size_t k = strlen(knob);

		knob[k] = (char)(label[i] >= 'a' && label[i] <= 'z' ?
		    label[i] - 'a' + 'A' : label[i]);
		knob[k + 1] = '\0';
	}
	v = getenv(knob);
	if (v != NULL && strcmp(v, "0") == 0) {
		life_say("skipping the '%s' snapshot (%s=0).", label, knob);
		return 0;
	}
	err_clear(&le);
	drv[0] = '\0';
	if (known != NULL && known[0] != '\0')
		snprintf(drv, sizeof(drv), "%s", known);
	else if (life_pool_driver(c, pool, drv, sizeof(drv), &le) < 0) {
		drv[0] = '\0';
		life_say("warning: could not read storage pool %s's driver "
		    "(%s); taking the '%s' snapshot anyway", pool, le.msg,
		    label);
	}
	if (strcmp(drv, "dir") == 0) {
		life_say("skipping the '%s' snapshot: storage pool '%s' uses "
		    "the dir driver, which has no copy-on-write (every "
		    "snapshot is a full copy of the disk).", label, pool);
		life_say("  take it by hand if you want it:  box snapshot %s "
		    "%s", name, label);
		return 0;
	}
	life_say("marking '%s' — %s", label, meaning);
	err_clear(&le);
	if (life_snapshot(c, name, label, &le) < 0) {
		life_say("warning: the '%s' snapshot failed (%s); the box is "
		    "fine and the mint goes on", label, le.msg);
		return 0;
	}
	life_say("  roll back to it any time:  box restore %s %s", name, label);
	return 1;
}

int
life_push(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const void *data, size_t n,
    struct box_err *e)
{
	return incus_file_push(c, name, path, type, mode, data, n, e);
}

void
life_remove_file(struct incus *c, const char *name, const char *path)
{
	struct box_err e;

	err_clear(&e);
	incus_file_delete(c, name, path, &e);
}

int
life_push_self(struct incus *c, const char *name, const char *path,
    struct box_err *e)
{
	unsigned char *self;
	size_t n;
	int rc;

	if ((rc = self_read(&self, &n, e)) < 0)
		return rc;
	rc = life_push(c, name, path, "file", "0700", self, n, e);
	free(self);
	return rc;
}

/* A stream sink into an exec_buf: past its capacity, truncated. */
static int
pull_to_buf(void *ctx, const void *p, size_t n)
{
	struct exec_buf *b = ctx;

	if (n >= b->cap - b->len) {
		b->truncated = 1;
		return -EFBIG;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int
life_pull_file(struct incus *c, const char *name, const char *path,
    struct exec_buf *b, struct box_err *e)
{
	b->len = 0;
	b->truncated = 0;
	b->p[0] = '\0';
	return incus_file_pull(c, name, path, pull_to_buf, b, e);
}


/* --- the one in-box runner ------------------------------------------------ */

#define INSIDE_ERR	512

int
life_run_inside(struct incus *c, const char *name,
    const struct life_inside *in, struct exec_buf *rep,
    struct exec_status *st, struct box_err *e)
{
	char path[80], report[96], er[128], ebuf[INSIDE_ERR];
	const char *argv[8], *env[12];
	struct exec_buf err = { ebuf, sizeof(ebuf), 0, 0 };
	struct exec_req req;
	unsigned rnd = 0;
	size_t i, k;
	int rc;

	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (unsigned)clock_ms() ^ ((unsigned)getpid() << 16);
	snprintf(path, sizeof(path), "/tmp/.box-%.16s.%ld.%08x", in->what,
	    (long)getpid(), rnd);
	snprintf(report, sizeof(report), "%s.report", path);
	snprintf(er, sizeof(er), LIFE_REPORT_ENV "=%s", report);
	argv[0] = path;
	for (i = 0; in->args != NULL && in->args[i] != NULL && i < 6; i++)
		argv[i + 1] = in->args[i];
	argv[i + 1] = NULL;
	env[0] = er;
	for (k = 0; in->env != NULL && in->env[k] != NULL && k < 10; k++)
		env[k + 1] = in->env[k];
	env[k + 1] = NULL;
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.env = env;
	req.uid = req.gid = -1;
	memset(st, 0, sizeof(*st));
	ebuf[0] = '\0';
	if ((rc = life_push_self(c, name, path, e)) < 0) {
		err_context(e, "pushing this binary into %s", name);
		return rc;
	}
	rc = exec_capture(c, name, &req, NULL, 0, NULL, &err, in->timeout_ms,
	    st, e);
	if (rc == 0 && (rc = life_pull_file(c, name, report, rep, e)) < 0) {
		ebuf[strcspn(ebuf, "\n")] = '\0';
		err_context(e, "its run (exit %d: %.160s) left no report",
		    st->code, st->err[0] ? st->err : ebuf[0] ? ebuf :
		    "no output");
	}
	life_remove_file(c, name, report);
	life_remove_file(c, name, path);
	return rc;
}

int
life_report_write(const char *data, size_t n, struct box_err *e)
{
	const char *path = getenv(LIFE_REPORT_ENV);
	char tmp[300];
	int fd, rc;

	if (path == NULL || *path == '\0')
		return fd_write_all(1, data, n) < 0 ? err_set(e, -EIO,
		    "writing the report failed") : 0;
	if (strlen(path) > 200 || path[0] != '/')
		return err_usage(e, LIFE_REPORT_ENV " must be an absolute "
		    "path");
	snprintf(tmp, sizeof(tmp), "%s.part", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	rc = fd < 0 ? -errno : fd_write_all(fd, data, n);
	if (fd >= 0 && rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		return err_set(e, rc, "writing the report to %s: %s", path,
		    err_str(rc));
	}
	return 0;
}
