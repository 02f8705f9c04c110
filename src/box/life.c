/*
 * life.c - the lifecycle helpers (see life.h).
 */
#include "util/clock.h"
#include "box/life.h"

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
#include "util/prompt.h"
#include "util/self.h"

static volatile sig_atomic_t interrupted;

/* json_gets() that always fills buf: with the value, else def. */
static const char *
life_jstr(const struct json_doc *d, int obj, const char *key, char *buf,
    size_t cap, const char *def)
{
	if (json_gets(d, obj, key, buf, cap, NULL) == NULL)
		snprintf(buf, cap, "%s", def);
	return buf;
}

void
life_say(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("box: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void
life_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;	/* the second one kills */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int
life_interrupted(void)
{
	return interrupted != 0;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int
life_consent(const char *question, int force, struct box_err *e)
{
	return consent_or_force(question, force, "--force", e);
}

int
life_ask(const char *question, struct box_err *e)
{
	return consent_ask(question, NULL, e);
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
life_require_stack(struct incus *c, char *pool, size_t cap,
    struct box_err *e)
{
	struct incus_reply r;
	struct box_err le;
	int rc, root;

	err_clear(&le);
	rc = incus_call(c, "GET", "/1.0/profiles/" LIFE_PROFILE, NULL, &r,
	    &le);
	if (rc == -ENOENT) {
		incus_reply_free(&r);
		err_set(e, -ENOENT, "no %s profile — the host stack a box "
		    "runs on is missing", LIFE_PROFILE);
		err_fix(e, "build it: box setup-host");
		return -ENOENT;
	}
	if (rc < 0) {
		incus_reply_free(&r);
		*e = le;
		err_context(e, "reading the %s profile", LIFE_PROFILE);
		return rc;
	}
	root = json_path(&r.doc, r.metadata, "devices.root");
	life_jstr(&r.doc, root, "pool", pool, cap, "default");
	incus_reply_free(&r);
	return 0;
}

int
life_pool_driver(struct incus *c, const char *pool, char *drv, size_t cap,
    struct box_err *e)
{
	struct incus_reply r;
	char path[256];
	int rc;

	if (!box_name_ok(pool) && strspn(pool, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(pool))
		return err_set(e, -EINVAL, "odd pool name '%s'", pool);
	snprintf(path, sizeof(path), "/1.0/storage-pools/%s", pool);
	rc = incus_call(c, "GET", path, NULL, &r, e);
	if (rc == 0 && json_gets(&r.doc, r.metadata, "driver", drv, cap,
	    NULL) == NULL)
		rc = err_set(e, -EBOX_PROTO, "pool %s has no driver", pool);
	incus_reply_free(&r);
	return rc;
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

	rc = instance_running(c, name, &running, e);
	if (rc == 0 && running)
		rc = life_state(c, name, "stop", 1, 0, e);
	if (rc < 0)
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
    const char *pool, const char *meaning)
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
	if (life_pool_driver(c, pool, drv, sizeof(drv), &le) < 0) {
		life_say("warning: could not read storage pool %s's driver "
		    "(%s); taking the '%s' snapshot anyway", pool, le.msg,
		    label);
	} else if (strcmp(drv, "dir") == 0) {
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
life_wait_op(struct incus *c, const char *op, long long deadline,
    struct progress *p, struct incus_reply *r, struct box_err *e)
{
	struct box_err le;
	long long left;
	int rc, slice;
	char text[160];

	for (;;) {
		left = deadline - clock_ms();
		if (left <= 0)
			return err_set(e, -ETIMEDOUT, "still running when the "
			    "time ran out");
		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		slice = p != NULL ? 1 : (int)((left + 999) / 1000);
		if (slice > (left + 999) / 1000)
			slice = (int)((left + 999) / 1000);
		err_clear(&le);
		rc = incus_wait(c, op, slice, r, &le);
		if (rc == 0)
			return 0;
		incus_reply_free(r);
		if (rc != -ETIMEDOUT) {
			*e = le;
			return rc;
		}
		if (p != NULL) {
			incus_op_progress(c, op, text, sizeof(text));
			progress_note(p, text);
		}
	}
}

int
life_sh(struct incus *c, const char *name, const char *script, char *out,
    size_t cap, int timeout_ms, int *code, struct box_err *e)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct exec_req req;
	struct exec_buf ob, *obp = NULL;
	struct exec_status st;
	int rc;

	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.uid = req.gid = -1;
	if (out != NULL && cap > 0) {
		ob.p = out;
		ob.cap = cap;
		ob.len = 0;
		ob.truncated = 0;
		out[0] = '\0';
		obp = &ob;
	}
	memset(&st, 0, sizeof(st));
	rc = exec_capture(c, name, &req, NULL, 0, obp, NULL, timeout_ms, &st,
	    e);
	if (rc < 0)
		return rc;
	if (st.err[0] != '\0')
		return err_set(e, -EBOX_API, "Incus says: %s", st.err);
	*code = st.code;
	return 0;
}

int
life_wait_agent(struct incus *c, const char *name, long long deadline,
    struct progress *p, struct box_err *e)
{
	struct box_err le;
	long long left;
	int code = -1, rc;

	err_clear(&le);
	for (;;) {
		left = deadline - clock_ms();
		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		if (left <= 0)
			break;
		err_clear(&le);
		rc = life_sh(c, name, "true", NULL, 0, left < 10000 ?
		    (int)left : 10000, &code, &le);
		if (rc == 0 && code == 0)
			return 0;
		if (p != NULL)
			progress_note(p, le.msg[0] ? le.msg : "");
		sleep_ms(500);
	}
	err_set(e, -ETIMEDOUT, "no command ran in %s before the time ran "
	    "out%s%s", name, le.msg[0] ? " (last answer: " : "",
	    le.msg[0] ? le.msg : "");
	if (le.msg[0])
		strncat(e->msg, ")", sizeof(e->msg) - strlen(e->msg) - 1);
	return -ETIMEDOUT;
}

int
life_wait_address(struct incus *c, const char *name, long long deadline,
    struct progress *p, char *addr, size_t cap, struct box_err *e)
{
	struct box_subnets sn;
	int rc;

	box_subnets_read(&sn);
	for (;;) {
		struct incus_instance in;

		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		rc = incus_instance_get(c, name, INCUS_INST_STATE, &in, e);
		if (rc < 0)
			return rc;
		box_address_of(&in, &sn, addr, cap);
		incus_instance_free(&in);
		if (strcmp(addr, "-") != 0)
			return 0;
		if (clock_ms() >= deadline)
			return err_set(e, -ETIMEDOUT, "%s got no IPv4 address "
			    "on its bridge before the time ran out", name);
		if (p != NULL)
			progress_note(p, "waiting for a DHCP lease");
		/* a lease lands ~0.3 s after start; one GET costs the
		 * daemon ~10 ms, so asking often is cheap and saves the
		 * user most of a poll interval */
		sleep_ms(100);
	}
}

int
life_address_holder(struct incus *c, const char *self, const char *addr,
    char *who, size_t cap, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i, k, a;
	int rc;

	who[0] = '\0';
	rc = incus_instance_list(c, NULL, INCUS_INST_STATE, &l, e);
	for (i = 0; rc == 0 && i < l.n; i++) {
		const struct incus_inst_state *st = &l.v[i].state;

		if (strcmp(l.v[i].name, self) == 0)
			continue;
		for (k = 0; k < st->nnic; k++)
			for (a = 0; a < st->nic[k].naddr; a++)
				if (strcmp(st->nic[k].addr[a].address,
				    addr) == 0) {
					snprintf(who, cap, "%s", l.v[i].name);
					goto out;
				}
	}
out:
	incus_instance_list_free(&l);
	return rc;
}

int
life_push(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const void *data, size_t n,
    struct box_err *e)
{
	return incus_file_push(c, name, path, type, mode, data, n, e);
}

static int
push_file(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const char *text, struct box_err *e)
{
	return life_push(c, name, path, type, mode, text, strlen(text), e);
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

int
life_machine_id(char id[34], struct box_err *e)
{
	unsigned char rnd[16];
	int i;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return err_set(e, -errno, "no randomness for a machine id");
	for (i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	id[32] = '\n';
	id[33] = '\0';
	return 0;
}

int
life_new_machine_id_offline(struct incus *c, const char *name,
    struct box_err *e)
{
	char id[34];
	struct box_err le;
	int rc;

	if ((rc = life_machine_id(id, e)) < 0)
		return rc;
	rc = push_file(c, name, "/etc/machine-id", "file", "0444", id, e);
	if (rc < 0) {
		err_context(e, "writing a new /etc/machine-id");
		return rc;
	}
	/* dbus's copy, when the image keeps one, must follow. */
	err_clear(&le);
	rc = incus_file_delete(c, name, "/var/lib/dbus/machine-id", &le);
	/* No dbus copy (the DELETE failed) is fine. */
	rc = rc == 0 ? push_file(c, name, "/var/lib/dbus/machine-id",
	    "symlink", "0777", "/etc/machine-id", e) : 0;
	/*
	 * The daemon's file helper (forkfile) syncs the instance's filesystem
	 * after each session, and the start asks it to leave and then polls,
	 * once a second, until its sessions are gone.  Right after a restore
	 * or a copy that sync has the whole disk to write, so one start in
	 * two or four waited a full second more.  Writing the dirty pages out
	 * here first (any user may) leaves the helper nothing to wait for:
	 * measured on an import of 65 MiB, the start took 0.2-0.3 s in 12 of
	 * 12 tries, against 1.2-1.5 s in 3 of 6 without, for ~0.2 s of sync.
	 */
	sync();
	return rc < 0 ? rc : 0;
}

int
life_new_machine_id_online(struct incus *c, const char *name,
    long long deadline, struct progress *p, struct box_err *e)
{
	static const char script[] =
	    "rm -f /etc/machine-id /var/lib/dbus/machine-id\n"
	    "if command -v systemd-machine-id-setup >/dev/null 2>&1; then\n"
	    "  systemd-machine-id-setup >/dev/null 2>&1\n"
	    "elif command -v dbus-uuidgen >/dev/null 2>&1; then\n"
	    "  dbus-uuidgen >/etc/machine-id\n"
	    "fi\n"
	    "[ -s /etc/machine-id ] || tr -d '-' </proc/sys/kernel/random/uuid"
	    " >/etc/machine-id\n"
	    "if [ -d /var/lib/dbus ]; then\n"
	    "  ln -sf /etc/machine-id /var/lib/dbus/machine-id\n"
	    "fi\n"
	    "test -s /etc/machine-id\n";
	struct box_err le;
	int code = -1, rc;

	rc = life_sh(c, name, script, NULL, 0, 60000, &code, e);
	if (rc == 0 && code != 0)
		rc = err_set(e, -EIO, "regenerating /etc/machine-id exited "
		    "%d", code);
	if (rc < 0)
		return rc;
	/*
	 * Truncating the id and carrying on is not enough: the DHCP client
	 * and systemd read it at boot.  Restart, gracefully first.
	 */
	err_clear(&le);
	if (life_state(c, name, "restart", 0, 60, &le) < 0 &&
	    life_state(c, name, "restart", 1, 0, e) < 0)
		return -EIO;
	return life_wait_agent(c, name, deadline, p, e);
}

static void
step(struct progress *p, const char **stage, const char *name,
    const char *what)
{
	*stage = name;
	if (p != NULL) {
		progress_clear(p);
		progress_start(p, what);
		progress_note(p, "");
	}
}

int
life_copy_up(struct incus *c, const char *name, int vm, long long deadline,
    struct progress *p, const char **stage, char *addr, size_t cap,
    struct box_err *e)
{
	int rc;

	if (!vm) {
		step(p, stage, "identity", "giving it a machine identity of "
		    "its own");
		if ((rc = life_new_machine_id_offline(c, name, e)) < 0)
			return rc;
	}
	return life_up_fresh(c, name, vm, deadline, p, stage, addr, cap, e);
}

int
life_up_fresh(struct incus *c, const char *name, int vm, long long deadline,
    struct progress *p, const char **stage, char *addr, size_t cap,
    struct box_err *e)
{
	char who[128];
	int rc;

	step(p, stage, "start", "starting it");
	if ((rc = life_state(c, name, "start", 0, 0, e)) < 0)
		return rc;
	step(p, stage, "agent", "waiting for the instance to answer");
	if ((rc = life_wait_agent(c, name, deadline, p, e)) < 0)
		return rc;
	if (vm) {
		step(p, stage, "identity", "giving it a machine identity of "
		    "its own");
		if ((rc = life_new_machine_id_online(c, name, deadline, p,
		    e)) < 0)
			return rc;
	}
	step(p, stage, "address", "waiting for an address of its own");
	if ((rc = life_wait_address(c, name, deadline, p, addr, cap, e)) < 0)
		return rc;
	if ((rc = life_address_holder(c, name, addr, who, sizeof(who), e)) < 0)
		return rc;
	if (who[0] != '\0')
		return err_set(e, -EADDRINUSE, "%s came up on %s, which %s "
		    "holds too", name, addr, who);
	if (p != NULL)
		progress_clear(p);
	return 0;
}

/* --- editing an instance whole ------------------------------------------ */

static int
in_set(const char *const *set, const char *key)
{
	for (; set != NULL && set[0] != NULL; set += 2)
		if (strcmp(set[0], key) == 0)
			return 1;
	return 0;
}

void
life_copy_raw(struct json_w *w, const struct json_doc *d, int v)
{
	size_t n;
	const char *raw = json_raw(d, v, &n);

	if (raw != NULL)
		json_w_raw(w, raw, n);
	else
		json_w_null(w);
}

/* The old callback reads a device as JSON: hand it one of its own. */
static int
drop_by_json(struct life_edit *ed, const struct incus_device *dev)
{
	struct json_doc d = { 0 };
	struct json_w w;
	struct box_err le;
	char *text;
	size_t n;
	int drop;

	json_w_init(&w, INCUS_MAX_BODY);
	incus_kv_to_json(&w, &dev->kv);
	if (json_w_finish(&w, &text, &n) < 0)
		return 0;
	err_clear(&le);
	drop = json_parse(&d, text, n, &le) == 0 &&
	    ed->drop_dev(dev->name, &d, 0);
	json_free(&d);
	free(text);
	return drop;
}

static int
set_profiles(struct incus_instance *in, const char *const *prof)
{
	size_t i, n;
	char **v;

	for (n = 0; prof[n] != NULL; n++)
		;
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if ((v[i] = strdup(prof[i])) == NULL) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	for (i = 0; i < in->nprofiles; i++)
		free(in->profiles[i]);
	free(in->profiles);
	in->profiles = v;
	in->nprofiles = n;
	return 0;
}

/* The edit applied to the instance as read. */
static int
edit_apply(struct incus_instance *in, struct life_edit *ed,
    struct box_err *e)
{
	const char *const *s;
	size_t i;
	int rc = 0;

	for (i = 0; i < in->config.n;)
		if (in_set(ed->set, in->config.v[i].key) ||
		    (ed->drop_cfg != NULL && ed->drop_cfg(in->config.v[i].key)))
			incus_kv_del(&in->config, in->config.v[i].key);
		else
			i++;
	for (s = ed->set; rc == 0 && s != NULL && s[0] != NULL; s += 2)
		if (s[1][0] != '\0')
			rc = incus_kv_set(&in->config, s[0], s[1]);
	ed->dropped = 0;
	for (i = 0; rc == 0 && i < in->devices.n;) {
		const struct incus_device *dev = &in->devices.v[i];

		if (ed->add_dev != NULL && strcmp(dev->name, ed->add_dev) == 0) {
			incus_dev_del(&in->devices, ed->add_dev);
		} else if ((ed->drop_dev != NULL && drop_by_json(ed, dev)) ||
		    (ed->drop_dev_name != NULL &&
		    strcmp(dev->name, ed->drop_dev_name) == 0)) {
			ed->dropped++;
			incus_dev_del(&in->devices, dev->name);
		} else {
			i++;
		}
	}
	if (rc == 0 && ed->add_dev != NULL) {
		struct incus_kvs kv = { 0 };
		struct json_doc d = { 0 };
		struct box_err le;

		err_clear(&le);
		rc = json_parse(&d, ed->add_dev_json, strlen(ed->add_dev_json),
		    &le);
		if (rc == 0)
			rc = incus_kv_from_json(&kv, &d, 0);
		if (rc == 0)
			rc = incus_dev_set(&in->devices, ed->add_dev, &kv);
		incus_kv_free(&kv);
		json_free(&d);
	}
	if (rc == 0 && ed->profiles != NULL)
		rc = set_profiles(in, ed->profiles);
	if (rc < 0)
		return err_set(e, rc, "building the instance update failed");
	return 0;
}

int
life_edit_body(const struct json_doc *d, int inst, struct life_edit *ed,
    char **body, struct box_err *e)
{
	struct incus_instance in;
	int rc;

	if ((rc = incus_instance_from_json(d, inst, 0, &in, e)) < 0)
		return rc;
	rc = edit_apply(&in, ed, e);
	if (rc == 0)
		rc = incus_instance_put_body(&in, body, e);
	incus_instance_free(&in);
	return rc;
}

int
life_edit(struct incus *c, const char *name, struct life_edit *ed,
    struct box_err *e)
{
	struct incus_instance in;
	int rc;

	if ((rc = incus_instance_get(c, name, 0, &in, e)) < 0)
		return rc;
	rc = edit_apply(&in, ed, e);
	if (rc == 0)
		rc = incus_instance_put(c, &in, LIFE_OP_S, e);
	incus_instance_free(&in);
	return rc;
}
