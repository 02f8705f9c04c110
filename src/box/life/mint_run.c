/*
 * mint_run.c - the pipeline behind `box new` (see mint_run.h): mint a box
 * from a template, or clone one.
 *
 * Fresh mint, in stages (the one that fails is named, and the half-made
 * box removed):
 *   create      POST /1.0/instances: box-net profile only, the tag and the
 *               provenance stamps, limits, user-data; then the image's
 *               fingerprint is stamped
 *   start       PUT .../state start
 *   agent       a command runs inside
 *   cloud-init  `cloud-init status` polled until it settles; its own
 *               verdict is reported (with `status --long` and its log's
 *               tail, sanitised) — never a claim of success it did not make
 *   pristine    snapshot (skipped loudly on a dir pool or when disabled)
 *   bootstrap   the template's rig role, watched; then `bootstrapped`
 * create..cloud-init share one budget, BOX_LAUNCH_TIMEOUT (600 s); the
 * bootstrap gets a budget of the same size of its own.
 *
 * Clone (--from box[/snap]): copy, re-stamp (a clone was not there at its
 * source's mint), leave behind what is the source's alone (its doors on
 * the host's loopback, a pinned address), give it a machine identity of
 * its own, start it and check that the address it got is nobody else's.
 *
 * Decisions on the original's quirks: a failed cloud-init removes the box
 * (the original kept it) — the issue asks for no half-made boxes; --vm /
 * --container / --image with --from are refused, not silently ignored; the
 * clone's source must carry the box tag like every other box argument.
 */
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/discard.h"
#include "box/door.h"
#include "box/each.h"
#include "box/conf.h"
#include "box/egress/egress.h"
#include "box/egress/egress_sync.h"
#include "box/life/identity.h"
#include "box/input.h"
#include "box/life/life.h"
#include "box/life/up.h"
#include "box/edit.h"
#include "box/narrate.h"
#include "box/life/mint.h"
#include "box/life/mint_run.h"
#include "box/place.h"
#include "box/life/template.h"
#include "box/remote/tier.h"
#include "box/secret/secret.h"
#include "box/life/waits.h"
#include "incus/api.h"
#include "incus/exec.h"
#include "incus/instance.h"
#include "incus/operation.h"
#include "incus/storage.h"
#include "util/clock.h"
#include "util/progress.h"
#include "util/text.h"

#define DEFAULT_BUDGET_S 600
#define GUEST_TEXT_MAX	(16u << 10)	/* cloud-init's words on a failure */

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* How cloud-init finished, when it did not fail. */
enum { CI_DONE, CI_ABSENT, CI_DISABLED, CI_DEGRADED };

struct run {
	struct incus c;
	const char *name;
	const char *stage;
	long long deadline;
	int budget_s;
	int posted;		/* the daemon accepted our create/copy */
	struct incus_op pending;	/* an operation of ours still running */
	long long t0;
	struct progress p;
	const char *egress;	/* --egress, or NULL */
	int fork, slow;		/* box fork (--slow) */
	struct box_mint_out *out;	/* what the verb prints at the end */
	char drv[32];		/* the pool's driver, "" when unread */
	char target[80];	/* on a cluster: a member or "@box" */
};

/*
 * A box whose policy is allow never starts before the kernel holds its
 * rules: the first packet it sends is already judged.
 */
static int
egress_needed(const char *pol)
{
	struct egress *p = malloc(sizeof(*p));
	int allow;

	if (p == NULL)
		return 1;
	allow = egress_parse(pol, p, NULL, 0) < 0 || p->mode == EGRESS_ALLOW;
	free(p);
	return allow;
}

static void stage(struct run *r, const char *name, const char *what);

static int
egress_before_start(struct run *r, const char *pol, struct box_err *e)
{
	if (pol == NULL || !egress_needed(pol))
		return 0;
	stage(r, "egress", "putting its egress policy into the kernel");
	return egress_sync_box(&r->c, r->name, e);
}

/* The same for a clone, whose policy is its source's (or --egress). */
static int
egress_clone(struct run *r, struct box_err *e)
{
	stage(r, "egress", "putting its egress policy into the kernel");
	return egress_sync_box(&r->c, r->name, e);
}

static int
budget(int *s, struct box_err *e)
{
	const char *v = getenv("BOX_LAUNCH_TIMEOUT");
	long n;

	*s = DEFAULT_BUDGET_S;
	if (v == NULL || *v == '\0')
		return 0;
	if (text_uint(v, 1, 86400, &n) < 0)
		return err_usage(e, "BOX_LAUNCH_TIMEOUT must be whole seconds "
		    "from 1 to 86400, not '%s'", v);
	*s = (int)n;
	return 0;
}

/*
 * Turn a stage's failure into the story: which stage, why, and what was
 * done about the half-made box.
 */
static int
failed(struct run *r, int rc, struct box_err *e)
{

	progress_clear(&r->p);
	if (rc == -ETIMEDOUT) {
		char msg[sizeof(e->msg)];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		err_clear(e);
		err_set(e, -ETIMEDOUT, "%s (the whole launch may take "
		    "BOX_LAUNCH_TIMEOUT=%d s)", msg, r->budget_s);
		err_fix(e, "retry; a busy host or a first image unpack can "
		    "need longer: BOX_LAUNCH_TIMEOUT=%d box new ...",
		    r->budget_s < 300 ? 600 : r->budget_s * 2);
	}
	err_context(e, "%s: stage '%s' failed", r->name, r->stage);
	if (r->posted)
		box_discard(&r->c, r->name, "half-made box", r->pending.url);
	return rc;
}

static void
stage(struct run *r, const char *name, const char *what)
{
	progress_clear(&r->p);
	r->stage = name;
	progress_start(&r->p, what);
	/* no terminal (CI logs): one plain line per stage, then a heartbeat */
	if (!r->p.tty)
		life_say("%s", what);
	progress_note(&r->p, "");
}

/*
 * Wait for an operation of ours within the budget.  While it runs it is
 * r->pending, so an interrupted or timed-out mint can still wait it out
 * before removing the half-made box.
 */
static int
run_op(struct run *r, const struct incus_op *op, struct box_err *e)
{
	struct incus_reply rep;
	int rc;

	r->pending = *op;
	rc = life_wait_op(&r->c, op->url, r->deadline, &r->p, &rep, e);
	incus_reply_free(&rep);
	if (rc != -ETIMEDOUT && rc != -EINTR)
		r->pending.url[0] = '\0';
	return rc;
}

/* Create (or copy); once accepted, a failure must remove the box. */
static int
create(struct run *r, const struct incus_instance_new *spec,
    struct box_err *e)
{
	struct incus_op op;
	int rc = incus_instance_create_begin(&r->c, spec, &op, e);

	if (rc < 0)
		return rc;
	r->posted = 1;
	return run_op(r, &op, e);
}

static int
start(struct run *r, struct box_err *e)
{
	struct incus_op op;
	int rc = incus_instance_state_begin(&r->c, r->name, "start", 0, 0, &op,
	    e);

	return rc < 0 ? rc : run_op(r, &op, e);
}

/* PATCH one config key (a PATCH without a description clears it). */
static int
stamp(struct run *r, const char *key, const char *value, struct box_err *e)
{
	struct incus_kvs kv = { 0 };
	int rc;

	if (incus_kv_set(&kv, key, value) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_instance_patch(&r->c, r->name, &kv, NULL, "", 0, e);
	incus_kv_free(&kv);
	return rc;
}

static int
user_name_ok(const char *u)
{
	return u[0] != '\0' && u[0] != '-' && strlen(u) < 33 &&
	    strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == strlen(u);
}

/*
 * The user the box really has.  The template's user is stamped at create,
 * but only cloud-init makes it: an image without cloud-init (or one whose
 * cloud-init failed to make it) would leave a box whose every exec fails
 * ("no user").  Decided here, once, from the box's own /etc/passwd (what
 * exec's login reads): present, the stamp stands; absent, root is
 * stamped, and said.  *user receives the user in force.
 */
static int
settle_user(struct run *r, const char *want, int kind, int known,
    const char **user, struct box_err *e)
{
	static const char probe[] =
	    "while IFS=: read -r n _; do\n"
	    "	[ \"$n\" = \"$1\" ] && { echo present; exit 0; }\n"
	    "done </etc/passwd\n"
	    "echo absent\n";
	char script[512], out[64];
	struct box_err le;
	int code = -1, rc;

	*user = want;
	if (strcmp(want, "root") == 0)
		return 0;
	err_clear(&le);
	rc = -EINVAL;
	if (known >= 0) {
		/* cloud-init's last probe read /etc/passwd already */
		snprintf(out, sizeof(out), "%s", known ? "present" : "absent");
		rc = code = 0;
	} else if (user_name_ok(want)) {
		snprintf(script, sizeof(script), "set -- '%s'\n%s", want,
		    probe);
		rc = life_sh(&r->c, r->name, script, out, sizeof(out), 20000,
		    &code, &le);
	}
	if (rc == 0 && code == 0 && strncmp(out, "present", 7) == 0) {
		if (kind == CI_ABSENT || kind == CI_DISABLED)
			life_say("the image has a user '%s' of its own: box "
			    "shell and exec run as it", want);
		return 0;
	}
	if (rc < 0 || code != 0 || strncmp(out, "absent", 6) != 0)
		return err_set(e, rc < 0 ? rc : -EIO, "could not tell whether "
		    "the box has a user '%s'%s%s", want, le.msg[0] ? ": " : "",
		    le.msg);
	if ((rc = stamp(r, "user.box.user", "root", e)) < 0) {
		err_context(e, "recording root as the box's user");
		return rc;
	}
	*user = "root";
	life_say("note: the box has no user '%s' (%s), so its user is root: "
	    "box shell and box exec run as root (recorded as "
	    "user.box.user=root)", want, kind == CI_ABSENT ? "the image has "
	    "no cloud-init to make it" : kind == CI_DISABLED ? "cloud-init "
	    "is disabled in the image" : "cloud-init did not make it");
	return 0;
}

/* The image's fingerprint, stamped beside the alias (best effort). */
static void
pin_fingerprint(struct run *r)
{
	struct incus_instance in;
	struct box_err le;
	const char *fp;

	err_clear(&le);
	if (incus_instance_get(&r->c, r->name, 0, &in, &le) < 0)
		return;
	fp = incus_kv_get(&in.config, "volatile.base_image");
	if (fp != NULL && fp[0] != '\0' && strlen(fp) < 128)
		stamp(r, "user.box.image.fingerprint", fp, &le);
	incus_instance_free(&in);
}

/* Print guest text indented, each line escaped (text_shown). */
static void
show_guest_text(const char *title, char *s)
{
	const char *line = text_tail(s, strlen(s), 12), *nl;
	char shown[1024];
	size_t len;

	if (*line == '\0')
		return;
	fprintf(stderr, "  %s\n", title);
	for (; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		len = nl != NULL ? (size_t)(nl - line) : strlen(line);
		text_shown(line, len, shown, sizeof(shown));
		fprintf(stderr, "    %s\n", shown);
		if (nl == NULL || nl[1] == '\0')
			break;
	}
}

static void
cloud_init_detail(struct run *r)
{
	char *buf = malloc(GUEST_TEXT_MAX);
	struct box_err le;
	int code;

	err_clear(&le);
	if (buf == NULL)
		return;
	if (life_sh(&r->c, r->name, "cloud-init status --long 2>&1", buf,
	    GUEST_TEXT_MAX, 20000, &code, &le) == 0)
		show_guest_text("cloud-init status --long:", buf);
	if (life_sh(&r->c, r->name, "tail -n 12 /var/log/cloud-init-output.log"
	    " 2>&1", buf, GUEST_TEXT_MAX, 20000, &code, &le) == 0)
		show_guest_text("the end of /var/log/cloud-init-output.log:",
		    buf);
	free(buf);
}

/*
 * Poll cloud-init until it settles.  0 when it finished (a note for a
 * degraded or disabled finish, or for an image without cloud-init), < 0
 * with cloud-init's own verdict.
 */
/*
 * The modules cloud-init's log blames, comma-separated, into buf ("" when
 * it names none): the ones that failed outright ("Running module X (...)
 * failed"), else those that logged a warning or an error of their own
 * (cc_X.py[WARNING]: what a newer cloud-init counts as a recoverable
 * error, e.g. a package mirror that never answered).
 */
static void
cloud_init_modules(struct run *r, char *buf, size_t cap)
{
	static const char script[] =
	    "l=/var/log/cloud-init.log\n"
	    "m=$(sed -n 's/.*Running module \\([A-Za-z0-9_-]*\\) .* failed.*/"
	    "\\1/p' $l 2>/dev/null | sort -u)\n"
	    "[ -n \"$m\" ] || m=$(sed -n 's/.* - cc_\\([a-z0-9_]*\\)\\.py"
	    "\\[\\(WARNING\\|ERROR\\)\\].*/\\1/p' $l 2>/dev/null | sort -u)\n"
	    "printf '%s\\n' $m | head -n 8 | tr '\\n' ',' | sed -e 's/,*$//' "
	    "-e 's/,/, /g'\n";
	struct box_err le;
	int code;

	err_clear(&le);
	if (life_sh(&r->c, r->name, script, buf, cap, 20000, &code, &le) < 0 ||
	    code != 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	text_shown_in(buf, cap);
}

/*
 * The probe prints cloud-init's status (or "absent"), then whether the
 * template's user ($1) is in /etc/passwd as read after that status
 * ("user:present", "user:absent", "user:-" for none asked), then the
 * module cloud-init's log names last.
 */
static int
cloud_init(struct run *r, const char *user, int agent_first, int *kind,
    int *known, char *mods, size_t mcap, struct box_err *e)
{
	static const char probe[] =
	    "u() { [ -n \"$1\" ] || { echo user:-; return; }\n"
	    "  while IFS=: read -r n _; do\n"
	    "    [ \"$n\" = \"$1\" ] && { echo user:present; return; }\n"
	    "  done </etc/passwd; echo user:absent; }\n"
	    "command -v cloud-init >/dev/null 2>&1 || { echo absent; u \"$1\";"
	    " exit 0; }\n"
	    "out=$(cloud-init status 2>&1); rc=$?\n"
	    "s=$(printf '%s\\n' \"$out\" | sed -n 's/^status:[[:space:]]*//p'"
	    " | head -n 1)\n"
	    "echo \"${s:-unknown}|$rc\"\n"
	    "u \"$1\"\n"
	    "sed -n 's/.*Running module \\([a-z0-9_-]*\\).*/\\1/p' "
	    "/var/log/cloud-init.log 2>/dev/null | tail -n 1\n";
	char script[sizeof(probe) + 80], out[1024], status[64], modline[64];
	char *nl, *bar;
	struct box_err le;
	int code, rc, answered = !agent_first;

	*known = -1;
	snprintf(script, sizeof(script), "set -- '%s'\n%s",
	    strcmp(user, "root") != 0 && user_name_ok(user) ? user : "",
	    probe);
	err_clear(&le);
	for (;;) {
		if (life_interrupted())
			return err_set(e, -EINTR, "interrupted");
		if (clock_ms() >= r->deadline && !answered) {
			/* as life_wait_agent says it */
			err_set(e, -ETIMEDOUT, "no command ran in %s before "
			    "the time ran out%s%s%s", r->name, le.msg[0] ?
			    " (last answer: " : "", le.msg, le.msg[0] ? ")" :
			    "");
			return -ETIMEDOUT;
		}
		if (clock_ms() >= r->deadline)
			return err_set(e, -ETIMEDOUT, "cloud-init had not "
			    "finished when the time ran out");
		err_clear(&le);
		rc = life_sh(&r->c, r->name, script, out, sizeof(out), 20000,
		    &code, &le);
		if (rc < 0) {
			progress_note(&r->p, le.msg);
			if (answered)
				sleep(1);
			else
				sleep_ms(500);
			continue;
		}
		if (!answered) {
			/* the agent answers: now cloud-init is waited for */
			answered = 1;
			stage(r, "cloud-init", "waiting for cloud-init");
		}
		nl = strchr(out, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		*known = -1;
		if (nl != NULL && strncmp(nl, "user:present\n", 13) == 0)
			*known = 1;
		else if (nl != NULL && strncmp(nl, "user:absent\n", 12) == 0)
			*known = 0;
		if (nl != NULL)
			nl = strchr(nl, '\n');
		if (nl != NULL)
			nl++;
		snprintf(status, sizeof(status), "%.63s", out);
		if (strcmp(status, "absent") == 0) {
			progress_clear(&r->p);
			life_say("note: the image has no cloud-init, so the "
			    "template's user-data was not applied (no "
			    "packages, no files, no user '%s' made)", user);
			*kind = CI_ABSENT;
			return 0;
		}
		bar = strrchr(status, '|');
		if (bar != NULL)
			*bar++ = '\0';
		if (strstr(status, "error") != NULL) {
			progress_clear(&r->p);
			cloud_init_detail(r);
			cloud_init_modules(r, mods, mcap);
			return err_set(e, -EIO, "cloud-init says: status "
			    "%s%s%s — the box would lack what the template "
			    "asked for",
			    status, !mods[0] ? "" : strchr(mods, ',') ? "; it "
			    "failed in modules " : "; it failed in module ",
			    mods);
		}
		if (strstr(status, "degraded") != NULL ||
		    (strcmp(status, "done") == 0 && bar != NULL &&
		    strcmp(bar, "2") == 0)) {
			/*
			 * Kept: a degraded finish is cloud-init's own "went
			 * on anyway" (a mirror that never answered is the
			 * usual one), and the box may be usable.  Said here
			 * and again under the last line, never hidden.
			 */
			progress_clear(&r->p);
			cloud_init_detail(r);
			cloud_init_modules(r, mods, mcap);
			life_say("warning: cloud-init finished with errors"
			    "%s%s: "
			    "the box may lack what the template asked for "
			    "(packages, files, users); inside, 'cloud-init "
			    "status --long' and /var/log/cloud-init.log say "
			    "more", !mods[0] ? "" : strchr(mods, ',') ?
			    " in modules " : " in module ", mods);
			*kind = CI_DEGRADED;
			return 0;
		}
		if (strcmp(status, "done") == 0)
			return 0;
		if (strcmp(status, "disabled") == 0) {
			progress_clear(&r->p);
			life_say("note: cloud-init is disabled in this image; "
			    "the template's user-data was not applied");
			*kind = CI_DISABLED;
			return 0;
		}
		/*
		 * Only a module's name from the box (what it writes is
		 * hostile): [a-z0-9_-], at most 40, else nothing.
		 */
		if (nl != NULL) {
			size_t n = strspn(nl, "abcdefghijklmnopqrstuvwxyz"
			    "0123456789_-");

			if (n == 0 || n > 40 || (nl[n] != '\0' &&
			    nl[n] != '\n'))
				nl = NULL;
			else {
				nl[n] = '\0';
				snprintf(modline, sizeof(modline), "module %s",
				    nl);
			}
		}
		progress_note(&r->p, nl != NULL ? modline : status);
		sleep(1);
	}
}

static int
bootstrap(struct run *r, const char *role, struct box_err *e)
{
	const char *argv[] = { "rig", "bootstrap", role, NULL };
	struct exec_req req;
	struct exec_stdio io;
	struct exec_status st;
	int rc;

	progress_clear(&r->p);
	life_say("converging the tenant — rig bootstrap %s (rig's own "
	    "narration follows)...", role);
	memset(&req, 0, sizeof(req));
	req.argv = argv;
	req.uid = req.gid = -1;
	memset(&io, 0, sizeof(io));
	io.in = -1;
	io.out = 1;
	io.err = 2;
	io.tty = -1;
	io.timeout_ms = r->budget_s * 1000;
	memset(&st, 0, sizeof(st));
	rc = exec_run(&r->c, r->name, &req, &io, &st, e);
	if (rc < 0)
		return rc;
	if (st.err[0] != '\0')
		return err_set(e, -EIO, "Incus says: %s", st.err);
	if (st.code != 0)
		return err_set(e, -EIO, "rig bootstrap %s exited %d", role,
		    st.code);
	return 0;
}

struct fresh_args {
	const char *tpl, *cpu, *memory, *disk, *image;
	const char *egress;	/* --egress, or NULL */
	const char *idle_stop;	/* seconds, or NULL: the template's */
	int mode;
};

/*
 * The local image alias: exists, of which type, and the fingerprint it
 * names into fp (64 hex digits, else "": the create then goes by alias).
 */
static int
local_image(struct run *r, const char *alias, int *type, char *fp,
    size_t fcap, struct box_err *e)
{
	char t[32];
	int rc;

	rc = incus_instance_image_type(&r->c, alias, t, sizeof(t), fp, fcap,
	    e);
	if (rc == 0 && (strlen(fp) != 64 ||
	    strspn(fp, "0123456789abcdef") != 64))
		fp[0] = '\0';
	if (rc == -ENOENT) {
		err_clear(e);
		err_set(e, -ENOENT, "no local image '%s'", alias);
		err_fix(e, "import it first (incus image import <tarball> "
		    "--alias %s), or name another with --image", alias);
	}
	if (rc == 0)
		*type = strcmp(t, "container") == 0 ? MINT_CT :
		    strcmp(t, "virtual-machine") == 0 ? MINT_VM : 0;
	return rc;
}

static int
host_caps(struct run *r, struct mint_host *h, struct box_err *e)
{
	struct incus_server s;
	int rc;

	memset(h, 0, sizeof(*h));
	h->kvm = access("/dev/kvm", F_OK) == 0;
	rc = incus_server_get(&r->c, &s, e);
	if (rc == 0)
		mint_host_read(&s, h);
	incus_server_free(&s);
	return rc;
}

static int
mint_stages(struct run *r, const struct template *t, struct mint_plan *plan,
    struct box_err *e)
{
	struct mint_spec spec;
	char mods[256] = "";
	const char *user;
	int rc, kind = CI_DONE, known = -1;

	stage(r, "create", "creating the instance");
	rc = mint_spec(plan, &spec, e);
	if (rc == 0) {
		rc = create(r, &spec.n, e);
		mint_spec_free(&spec);
	}
	if (rc < 0)
		return failed(r, rc, e);
	if (plan->fingerprint == NULL)
		pin_fingerprint(r);
	if ((rc = egress_before_start(r, plan->egress, e)) < 0)
		return failed(r, rc, e);
	stage(r, "start", "starting it");
	if ((rc = start(r, e)) < 0)
		return failed(r, rc, e);
	/*
	 * A container's first cloud-init probe is the agent's: it is retried
	 * until a command runs (a VM's agent comes up later, waited for on
	 * its own); the probe that sees cloud-init settled reads the user.
	 */
	stage(r, "agent", "waiting for the instance to answer");
	if (plan->vm) {
		if ((rc = life_wait_agent(&r->c, r->name, r->deadline, &r->p,
		    e)) < 0)
			return failed(r, rc, e);
		stage(r, "cloud-init", "waiting for cloud-init");
	}
	if ((rc = cloud_init(r, t->user, !plan->vm, &kind, &known, mods,
	    sizeof(mods), e)) < 0)
		return failed(r, rc, e);
	progress_clear(&r->p);
	r->stage = "user";
	if ((rc = settle_user(r, t->user, kind, known, &user, e)) < 0)
		return failed(r, rc, e);
	life_mark(&r->c, r->name, "pristine", plan->pool, r->drv,
	    "the guest right after cloud-init, before anything converged");
	if (t->role[0] != '\0') {
		r->stage = "bootstrap";
		r->deadline = clock_ms() + (long long)r->budget_s * 1000;
		if ((rc = bootstrap(r, t->role, e)) < 0)
			return failed(r, rc, e);
		life_mark(&r->c, r->name, "bootstrapped", plan->pool, r->drv,
		    "converged by rig and untouched since");
	}
	life_say("minted %s in %.1fs%s%s%s", r->name,
	    (double)(clock_ms() - r->t0) / 1000, kind == CI_DEGRADED ?
	    " — but cloud-init finished with errors" : "", kind !=
	    CI_DEGRADED || !mods[0] ? "" : strchr(mods, ',') ? " in modules " :
	    " in module ", kind == CI_DEGRADED ? mods : "");
	if (kind == CI_DEGRADED)
		life_say("  the box may lack what template %s asked for; look "
		    "inside: box root %s -- cloud-init status --long", t->name,
		    r->name);
	mint_ready(r->name, t->name, r->out->ready, sizeof(r->out->ready));
	if (strcmp(user, "root") == 0 && strcmp(t->user, "root") != 0)
		snprintf(r->out->note, sizeof(r->out->note), "(its user is "
		    "root: the image made no '%s')", t->user);
	return 0;
}

/*
 * A note said once per host: the first time, it is written to a note file
 * (root: /var/lib/box/, anyone else: ~/.local/state/box/); after that, as
 * long as the file holds the same text, 1 (keep quiet).  A note that
 * cannot be recorded is said every time.
 */
/* mkdir -p, for the note directory: 0 or -1 */
static int
mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST) {
				*p = '/';
				return -1;
			}
			*p = '/';
		}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int
said_before(const char *note)
{
	char path[512], old[512];
	const char *home = getenv("HOME");
	FILE *f;
	size_t n;

	if (getuid() == 0)
		snprintf(path, sizeof(path), "/var/lib/box");
	else if (home != NULL && home[0] == '/' && strlen(home) < 400)
		snprintf(path, sizeof(path), "%s/.local/state/box", home);
	else
		return 0;
	if ((f = fopen(strcat(path, "/note-mode"), "r")) != NULL) {
		n = fread(old, 1, sizeof(old) - 1, f);
		old[n] = '\0';
		fclose(f);
		if (strcmp(old, note) == 0)
			return 1;
	}
	*strrchr(path, '/') = '\0';
	if (mkdir_p(path) < 0)
		return 0;
	strcat(path, "/note-mode");
	if ((f = fopen(path, "w")) != NULL) {
		fputs(note, f);
		fclose(f);
	}
	return 0;
}

/*
 * The resources a mint asks for, wherever they came from (--cpu and
 * friends are checked by the verb already; BOX_CPU and the template's
 * here), checked and normalised before anything is created.
 */
static int
shape_check(struct mint_plan *plan, const struct template *t, char *mem,
    char *dsk, size_t cap, struct box_err *e)
{
	char why[200];

	if (input_cpu(plan->cpu, why, sizeof(why)) < 0)
		goto bad;
	if (input_size(plan->memory, IS_MEMORY, mem, cap, why,
	    sizeof(why)) < 0)
		goto bad;
	plan->memory = mem;
	if (input_size(plan->disk, IS_DISK, dsk, cap, why, sizeof(why)) < 0)
		goto bad;
	plan->disk = dsk;
	return 0;
bad:
	err_usage(e, "%s", why);
	err_fix(e, "check --cpu/--memory/--disk, BOX_CPU/BOX_MEMORY/BOX_DISK "
	    "and template %s's BOX_CPU/BOX_MEMORY/BOX_DISK", t->name);
	return -EINVAL;
}

static int
fresh(struct run *r, const struct fresh_args *a, struct box_err *e)
{
	struct template t;
	struct mint_host host;
	struct mint_plan plan;
	const char *alias, *image, *repo, *ref, *disk_asked;
	char pool[64], note[256], created[32], mem[32], dsk[32], owner[16];
	char fp[80] = "";
	int rc, remote, vm, itype = 0, uses_rig;
	char *ud = NULL;

	/* the environment over the config files (box/conf.h); once a run */
	if ((rc = conf_load(e)) < 0)
		return rc;
	rc = template_load(a->tpl, &t, e);
	if (rc < 0)
		return rc;
	memset(&plan, 0, sizeof(plan));
	plan.name = r->name;
	plan.template_ = t.name;
	plan.user = t.user;
	plan.cpu = mint_pick(a->cpu, conf_get(CONF_CPU), t.cpu, MINT_CPU);
	plan.memory = mint_pick(a->memory, conf_get(CONF_MEMORY), t.memory,
	    MINT_MEMORY);
	plan.disk = mint_pick(a->disk, conf_get(CONF_DISK), t.disk, MINT_DISK);
	disk_asked = mint_pick(a->disk, conf_get(CONF_DISK), NULL, NULL);
	if ((rc = shape_check(&plan, &t, mem, dsk, sizeof(mem), e)) < 0)
		goto out;
	image = mint_pick(a->image, conf_get(CONF_IMAGE), t.image, NULL);
	plan.idle_stop = mint_pick(a->idle_stop, NULL, t.idle_stop, NULL);
	plan.image = image;
	plan.role = t.role;
	plan.autostart = t.autostart;
	plan.mode_asked = a->mode == MINT_VM ? "vm" : a->mode == MINT_CT ?
	    "container" : "auto";
	plan.egress = a->egress != NULL ? a->egress : t.egress[0] ? t.egress :
	    NULL;
	if ((rc = mint_image(image, &remote, &alias, e)) < 0)
		goto out;
	repo = mint_pick(NULL, getenv("RIG_REPO"), NULL, MINT_RIG_REPO);
	ref = mint_pick(NULL, getenv("RIG_REF"), NULL, MINT_RIG_REF);
	if ((rc = mint_render(t.user_data, t.user_data_len, repo, ref, &ud,
	    &uses_rig, e)) < 0)
		goto out;
	plan.user_data = ud;
	if (uses_rig) {
		plan.rig_repo = repo;
		plan.rig_ref = ref;
	}
	if ((rc = life_require_stack(&r->c, pool, sizeof(pool), e)) < 0)
		goto out;
	plan.pool = pool;
	plan.target = r->target[0] != '\0' ? r->target : NULL;
	if ((rc = life_exists(&r->c, r->name, e)) != 0) {
		if (rc > 0) {
			rc = err_set(e, -EEXIST, "an instance named %s already "
			    "exists", r->name);
			err_fix(e, "pick another name (box list shows the "
			    "boxes)");
		}
		goto out;
	}
	if (!remote && (rc = local_image(r, alias, &itype, fp, sizeof(fp),
	    e)) < 0)
		goto out;
	if (fp[0] != '\0')
		plan.fingerprint = fp;
	if ((rc = host_caps(r, &host, e)) < 0)
		goto out;
	if ((rc = mint_mode(a->mode, itype, &t, &host, &vm, note,
	    sizeof(note), e)) < 0)
		goto out;
	plan.vm = vm;
	if (note[0] != '\0' && (a->mode == MINT_CT || !said_before(note)))
		life_say("%s", note);
	{
		struct box_err le;

		/* read once: the quota here, the pristine snapshot's choice */
		err_clear(&le);
		if (life_pool_driver(&r->c, pool, r->drv, sizeof(r->drv),
		    &le) < 0)
			r->drv[0] = '\0';
		plan.quota = !vm && r->drv[0] != '\0' &&
		    incus_driver_quota(r->drv);
	}
	if (!vm && !plan.quota && disk_asked != NULL)
		life_say("note: --disk/BOX_DISK sizes a VM's disk; a container "
		    "uses its storage pool's space (pool %s enforces no "
		    "limit), so it is ignored here", pool);
	text_utc(created, sizeof(created), time(NULL));
	plan.created = created;
	snprintf(owner, sizeof(owner), "%u", (unsigned)getuid());
	plan.owner = owner;
	life_say("minting %s from template %s (%s, image %s, %s cpu, %s "
	    "memory)", r->name, t.name, vm ? "VM" : "container", image,
	    plan.cpu, plan.memory);
	rc = mint_stages(r, &t, &plan, e);
out:
	free(ud);
	template_free(&t);
	return rc;
}

/* How many snapshots came along, and whether pristine is among them. */
static void
clone_snapshots_count(struct run *r, int *n, int *pristine)
{
	struct incus_snapshot_list l;
	struct box_err le;
	size_t s;

	*n = *pristine = 0;
	err_clear(&le);
	if (incus_snapshot_list(&r->c, r->name, &l, &le) == 0) {
		*n = (int)l.n;
		for (s = 0; s < l.n; s++)
			if (strcmp(l.v[s].name, "pristine") == 0)
				*pristine = 1;
	}
	incus_snapshot_list_free(&l);
}

static void
clone_snapshots_note(int n, int pristine, const char *snap)
{
	if (n > 0)
		life_say("it brought its source's %d snapshot%s along%s", n,
		    n == 1 ? "" : "s", pristine ? " (pristine among them: "
		    "box restore <box> pristine)" : "");
	else if (snap != NULL)
		life_say("a copy of a snapshot starts with no snapshots of its "
		    "own");
	else
		life_say("no snapshots came along (its source had none); a "
		    "clone has no pristine moment and box will not label one");
}

/*
 * fork: the source's pool must snapshot copy-on-write (else --slow: a
 * full copy while it runs).  *cow says which; the source keeps running.
 */
static int
fork_pool(struct run *r, const struct incus_instance *in, int slow, int *cow,
    struct box_err *e)
{
	char pool[64], drv[32];
	const char *p;
	int rc;

	p = incus_dev_key(&in->expanded_devices, "root", "pool");
	snprintf(pool, sizeof(pool), "%s", p != NULL ? p : "");
	if ((rc = life_pool_driver(&r->c, pool, drv, sizeof(drv), e)) < 0)
		return rc;
	*cow = incus_driver_cow(drv, NULL);
	if (*cow)
		return 0;
	if (!slow) {
		err_set(e, -EOPNOTSUPP, "box %s is on pool %s (%s): no "
		    "copy-on-write snapshot, so a fork would copy every byte "
		    "of the running box", in->name, pool, drv);
		err_fix(e, "box fork %s %s --slow (a full copy while it runs), "
		    "or put boxes on a copy-on-write pool: box setup-host "
		    "--pool btrfs", in->name, r->name);
		return -EOPNOTSUPP;
	}
	life_say("pool %s (%s) has no copy-on-write: --slow copies all of "
	    "%s while it runs (files it writes meanwhile may be caught "
	    "half-written)", pool, drv, in->name);
	return 0;
}

/* What a copy leaves behind: the source's pin (box/door.h) and its
 * secret grants (box/secret/secret.h). */
static int
source_key(const char *key)
{
	return door_source_key(key) || secret_source_key(key);
}

/* What is the source's alone (box/door.h): anything for the edit to drop. */
static int
has_doors(const struct incus_instance *in)
{
	size_t i;

	for (i = 0; i < in->devices.n; i++)
		if (door_source_only(in->devices.v[i].name,
		    &in->devices.v[i].kv))
			return 1;
	for (i = 0; i < in->config.n; i++)
		if (door_source_key(in->config.v[i].key))
			return 1;
	return 0;
}

/*
 * Clone (and fork).  The copy is made in one request that carries its
 * stamps and its profile (a value "" removes a key the source had), so
 * only a source with doors of its own needs the rewrite (GET + PUT) that
 * drops them.  Its machine identity is written by a child (box/life/identity.h)
 * while its egress policy goes into the kernel.  The clone is left as its
 * source box is: a stopped box's clone stays stopped (an incus copy's end
 * state; box start brings it up), a running box's clone (and a fork) is
 * started and its address read from the pin Incus writes at the start.
 * A fork of a running container on a copy-on-write pool copies the
 * running instance itself (instance only: the daemon's copy is a
 * copy-on-write snapshot of the live volume, the source never stopped and,
 * on btrfs, never frozen); a VM, or --slow on dir, goes through a snapshot
 * of its own, removed after.
 */
/* What a clone's stages share. */
struct clone_st {
	char src[128], snap[128], pool[64], addr[64], via[256];
	const char *from;	/* what the copy is made from (src[/snap]) */
	const char *asked;	/* what --from said */
	int forksnap;		/* snap is the fork's own, removed after */
	int direct;		/* a running instance copied copy-on-write */
	int vm, up, nsnap, pristine, leased, have_cin;
	struct incus_instance sin, cin;
	struct box_info bi;
};

/* The source: its name and snapshot, that both exist, and that the new
 * name is free. */
static int
clone_source(struct run *r, struct clone_st *st, struct box_err *e)
{
	const char *from = st->from, *slash = strchr(from, '/');
	int rc;

	snprintf(st->src, sizeof(st->src), "%.*s", slash ? (int)(slash -
	    from) : (int)strlen(from), from);
	if (slash != NULL)
		snprintf(st->snap, sizeof(st->snap), "%s", slash + 1);
	if (slash != NULL && st->snap[0] == '\0')
		return err_usage(e, "--from %s: no snapshot after the '/'",
		    from);
	if ((rc = life_require_stack(&r->c, st->pool, sizeof(st->pool),
	    e)) < 0)
		return rc;
	if ((rc = box_get(&r->c, st->src, 0, &st->sin, &st->bi, e)) < 0)
		return rc;
	if (st->snap[0] != '\0') {
		struct incus_snapshot sn;

		rc = incus_snapshot_get(&r->c, st->src, st->snap, &sn, e);
		if (rc == -ENOENT) {
			err_clear(e);
			err_set(e, -ENOENT, "box %s has no snapshot '%s'",
			    st->src, st->snap);
			err_fix(e, "box info %s lists its snapshots", st->src);
		}
		if (rc < 0)
			return rc;
	}
	if ((rc = life_exists(&r->c, r->name, e)) != 0) {
		if (rc > 0) {
			rc = err_set(e, -EEXIST, "an instance named %s already "
			    "exists", r->name);
			err_fix(e, "pick another name (box list shows the "
			    "boxes)");
		}
		return rc;
	}
	st->vm = strcmp(st->bi.type, "virtual-machine") == 0;
	/* a VM's identity is regenerated inside: it always comes up */
	st->up = st->bi.running || st->vm;
	return 0;
}

/* A fork of a running box: copied directly (copy-on-write), or through a
 * snapshot of its own taken without stopping it. */
static int
clone_fork_point(struct run *r, struct clone_st *st, struct box_err *e)
{
	long long t;
	int cow = 0, rc;

	if (!r->fork || !st->bi.running) {
		if (r->fork)
			life_say("%s is not running: the fork is a clone",
			    st->src);
		return 0;
	}
	if ((rc = fork_pool(r, &st->sin, r->slow, &cow, e)) < 0)
		return rc;
	if (cow && !st->vm && st->snap[0] == '\0') {
		st->direct = 1;
	} else if (cow) {
		snprintf(st->snap, sizeof(st->snap), "fork-%lld", clock_ms());
		t = clock_ms();
		if ((rc = life_snapshot(&r->c, st->src, st->snap, e)) < 0) {
			err_context(e, "snapshotting %s", st->src);
			return rc;
		}
		st->forksnap = 1;
		life_say("snapshot of running %s in %lld ms (it never "
		    "stopped)", st->src, clock_ms() - t);
		snprintf(st->via, sizeof(st->via), "%s/%s", st->src, st->snap);
		st->from = st->via;
	}
	return 0;
}

/* The copy itself, stamped; the fork's own snapshot removed after. */
static int
clone_copy(struct run *r, struct clone_st *st, struct box_err *e)
{
	static const char *const profiles[] = { CONTRACT_PROFILE, NULL };
	struct incus_instance_new spec;
	struct incus_kvs cfg = { 0 };
	struct mint_kv kv;
	char now[32];
	long long t;
	int rc, i;

	life_say("%s %s into %s", r->fork ? "forking" : "cloning", st->from,
	    r->name);
	text_utc(now, sizeof(now), time(NULL));
	rc = mint_clone_stamps(&kv, now, st->asked);
	if (rc == 0 && r->egress != NULL)
		rc = mint_kv_add(&kv, EGRESS_KEY, r->egress);
	if (rc < 0)
		return err_set(e, -E2BIG, "--egress: too long for a clone's "
		    "stamp (set it after: box egress %s allow ...)", r->name);
	for (i = 0; i < kv.n; i++)
		if (incus_kv_set(&cfg, kv.k[i], kv.v[i]) < 0) {
			incus_kv_free(&cfg);
			return err_set(e, -ENOMEM, "out of memory");
		}
	memset(&spec, 0, sizeof(spec));
	spec.name = r->name;
	spec.target = r->target[0] != '\0' ? r->target : NULL;
	spec.source = INCUS_SRC_COPY;
	spec.copy_from = st->from;
	spec.instance_only = st->direct;
	spec.config = &cfg;
	spec.profiles = profiles;
	stage(r, "copy", "copying");
	t = clock_ms();
	rc = create(r, &spec, e);
	incus_kv_free(&cfg);
	if (st->direct && rc == 0)
		life_say("copied running %s copy-on-write in %lld ms (it never "
		    "stopped)", st->src, clock_ms() - t);
	if (st->forksnap) {
		struct box_err le;

		/* the copy holds its own: the source's moment goes */
		err_clear(&le);
		if (incus_snapshot_delete(&r->c, st->src, st->snap, LIFE_OP_S,
		    &le) < 0)
			life_say("warning: could not remove the fork's snapshot "
			    "%s/%s: %s", st->src, st->snap, le.msg);
	}
	return rc < 0 ? failed(r, rc, e) : 0;
}

/* The copy made the box's own: a machine identity (a container's, before
 * it ever boots, beside the rest), the source's doors left behind, its
 * egress, and its NICs read for the pin while the identity is written. */
static int
clone_restamp(struct run *r, struct clone_st *st, struct box_err *e)
{
	struct life_identity id;
	struct life_edit ed;
	int rc = 0;

	if (!st->vm)
		life_identity_begin(&id, r->name, st->up);
	r->stage = "re-stamp";
	if (st->snap[0] != '\0' || has_doors(&st->sin)) {
		/* a snapshot's doors are its own: read the copy to know */
		memset(&ed, 0, sizeof(ed));
		ed.drop_device = door_source_only;
		ed.drop_cfg = source_key;
		rc = life_edit(&r->c, r->name, &ed, e);
		if (rc == 0 && ed.dropped > 0) {
			progress_clear(&r->p);
			life_say("left behind %d device%s that are the source's "
			    "alone (its exposures, its pinned address); open "
			    "doors with box expose", ed.dropped, ed.dropped ==
			    1 ? "" : "s");
		}
	}
	if (rc == 0)
		rc = egress_clone(r, e);
	if (rc == 0 && !st->direct && !st->forksnap)
		clone_snapshots_count(r, &st->nsnap, &st->pristine);
	if (rc == 0 && st->up) {
		struct box_err le;

		err_clear(&le);
		st->have_cin = incus_instance_get(&r->c, r->name, 0, &st->cin,
		    &le) == 0;
	}
	if (!st->vm) {
		struct box_err le;
		long long left = r->deadline - clock_ms();
		int irc;

		err_clear(&le);
		irc = life_identity_join(&id, left > 0 ? (int)(left < 600000 ?
		    left : 600000) : 1, &le);
		if (rc == 0 && irc < 0) {
			*e = le;
			err_context(e, "giving it a machine identity of its own");
			r->stage = "identity";
			rc = irc;
		}
	}
	return rc < 0 ? failed(r, rc, e) : 0;
}

/* Up when the source was (or a VM), and said. */
static int
clone_finish(struct run *r, struct clone_st *st, struct box_err *e)
{
	int rc;

	if (st->up) {
		rc = life_clone_up(&r->c, r->name, st->vm, st->have_cin ?
		    &st->cin : NULL, r->deadline, &r->p, &r->stage, st->addr,
		    sizeof(st->addr), &st->leased, e);
		if (rc < 0)
			return failed(r, rc, e);
	}
	progress_clear(&r->p);
	if (st->up)
		life_say("%s %s → %s at %s%s — isolation and auth state carry "
		    "over from the source", r->fork ? "forked" : "cloned",
		    st->asked, r->name, st->addr, st->leased ? "" : " (pinned: "
		    "its DHCP lease follows as it boots)");
	else
		life_say("cloned %s → %s, stopped as %s is (box start %s brings "
		    "it up) — isolation and auth state carry over from the "
		    "source", st->asked, r->name, st->src, r->name);
	if (!st->direct && !st->forksnap)
		clone_snapshots_note(st->nsnap, st->pristine, st->snap[0] ?
		    st->snap : NULL);
	mint_ready(r->name, st->bi.template_, r->out->ready,
	    sizeof(r->out->ready));
	return 0;
}

static int
clone(struct run *r, const char *from, struct box_err *e)
{
	struct clone_st *st = calloc(1, sizeof(*st));
	int rc;

	if (st == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	st->from = st->asked = from;
	if ((rc = clone_source(r, st, e)) == 0 &&
	    (rc = clone_fork_point(r, st, e)) == 0 &&
	    (rc = clone_copy(r, st, e)) == 0 &&
	    (rc = clone_restamp(r, st, e)) == 0)
		rc = clone_finish(r, st, e);
	if (st->have_cin)
		incus_instance_free(&st->cin);
	incus_instance_free(&st->sin);
	free(st);
	return rc;
}

int
box_mint(const struct box_mint_req *q, struct box_mint_out *out,
    struct box_err *e)
{
	struct fresh_args a;
	struct run r;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.name = q->name;
	r.egress = q->egress;
	r.fork = q->fork;
	r.slow = q->slow;
	r.out = out;
	r.stage = "checks";
	if ((rc = budget(&r.budget_s, e)) < 0)
		return rc;
	if ((rc = incus_init(&r.c, e)) < 0)
		return rc;
	if ((rc = tier_mint_gate(&r.c, e)) < 0 ||
	    (rc = box_place(&r.c, q->target, r.target, sizeof(r.target),
	    e)) < 0) {
		incus_close(&r.c);
		return rc;
	}
	if (q->name == NULL) {
		if ((rc = input_name_new(&r.c, out->name, sizeof(out->name),
		    e)) < 0) {
			incus_close(&r.c);
			return rc;
		}
		life_say("no name given: this box is %s", out->name);
	} else
		snprintf(out->name, sizeof(out->name), "%s", q->name);
	r.name = out->name;
	life_catch_signals();
	progress_start(&r.p, "starting");
	r.t0 = clock_ms();
	r.deadline = r.t0 + (long long)r.budget_s * 1000;
	if (q->from != NULL) {
		rc = clone(&r, q->from, e);
	} else {
		memset(&a, 0, sizeof(a));
		a.tpl = q->template_ != NULL ? q->template_ : "blank";
		a.cpu = q->cpu;
		a.memory = q->memory;
		a.disk = q->disk;
		a.image = q->image;
		a.egress = q->egress;
		a.idle_stop = q->idle_stop;
		a.mode = q->mode;
		rc = fresh(&r, &a, e);
	}
	progress_clear(&r.p);
	incus_close(&r.c);
	return rc;
}
