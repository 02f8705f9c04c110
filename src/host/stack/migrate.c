/*
 * migrate.c - what a legacy box is, and re-homing one (see migrate.h);
 * the in-box probe is migrate_probe.c, retiring migrate_retire.c.
 */
#include "host/stack/migrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box/bridge.h"
#include "box/life/life.h"
#include "box/edit.h"
#include "box/narrate.h"
#include "host/stack/contract.h"
#include "host/stack/shape.h"
#include "incus/instance.h"
#include "model/ip4text.h"
#include "util/clock.h"
#include "util/text.h"

/* --- reading the daemon's record (pure) ----------------------------------- */

int
migrate_kind_of(const struct incus_instance *in)
{
	const char *now = incus_kv_get(&in->config, "user.box");
	const char *old = incus_kv_get(&in->config, CONTRACT_LEGACY_TAG);
	int n = now != NULL && strcmp(now, "1") == 0;

	if (old != NULL && strcmp(old, "1") == 0)
		return n ? MIG_HALFWAY : MIG_LEGACY;
	return n ? MIG_DONE : MIG_NOT_BOX;
}

static int
on_legacy_bridge(const struct incus_kvs *dev)
{
	return strcmp(incus_kv_or(dev, "type", ""), "nic") == 0 &&
	    (strcmp(incus_kv_or(dev, "network", ""),
	    CONTRACT_LEGACY_BRIDGE) == 0 ||
	    strcmp(incus_kv_or(dev, "parent", ""),
	    CONTRACT_LEGACY_BRIDGE) == 0);
}

int
migrate_uses_legacy_of(const struct incus_instance *in)
{
	size_t k;

	for (k = 0; k < in->nprofiles; k++)
		if (strcmp(in->profiles[k], CONTRACT_LEGACY_PROFILE) == 0)
			return 1;
	for (k = 0; k < in->expanded_devices.n; k++)
		if (on_legacy_bridge(&in->expanded_devices.v[k].kv))
			return 1;
	return 0;
}

/* A NIC or a proxy: the old bridge's, box drops them. */
static int
droppable(const struct incus_kvs *dev)
{
	const char *t = incus_kv_or(dev, "type", "");

	return strcmp(t, "nic") == 0 || strcmp(t, "proxy") == 0;
}

int
migrate_foreign_devices_of(const struct incus_instance *in, char *buf,
    size_t cap)
{
	char name[64];
	size_t k, len;
	int n = 0;

	buf[0] = '\0';
	for (k = 0; k < in->devices.n; k++) {
		const struct incus_device *dev = &in->devices.v[k];

		if (droppable(&dev->kv) ||
		    (strcmp(incus_kv_or(&dev->kv, "type", ""), "disk") == 0 &&
		    strcmp(incus_kv_or(&dev->kv, "path", ""), "/") == 0))
			continue;
		if (strlen(dev->name) >= sizeof(name))
			snprintf(name, sizeof(name), "(a long name)");
		else
			snprintf(name, sizeof(name), "%s", dev->name);
		text_shown_in(name, sizeof(name));
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
add_missing(struct mint_kv *kv, const struct incus_kvs *cfg, const char *k,
    const char *v)
{
	if (incus_kv_get(cfg, k) != NULL)
		return 0;
	return mint_kv_add(kv, k, v);
}

int
migrate_stamps_of(const struct incus_instance *in, const char *now,
    struct mint_kv *kv)
{
	const struct incus_kvs *cfg = &in->config;
	const char *fp = incus_kv_get(cfg, "volatile.base_image");
	int vm = strcmp(in->type, "virtual-machine") == 0;

	mint_kv_init(kv);
	if (mint_kv_add(kv, "user.box", "1") < 0 ||
	    add_missing(kv, cfg, "user.box.template", MIGRATE_TEMPLATE) < 0 ||
	    add_missing(kv, cfg, "user.box.user", MIGRATE_USER) < 0 ||
	    add_missing(kv, cfg, "user.box.schema", MINT_SCHEMA) < 0 ||
	    add_missing(kv, cfg, "user.box.mode", vm ? "vm" :
	    "container") < 0 ||
	    add_missing(kv, cfg, "user.box.origin", "migrate") < 0 ||
	    add_missing(kv, cfg, "user.box.migrated", now) < 0 ||
	    add_missing(kv, cfg, "user.box.migrated.by", BOX_VERSION) < 0)
		return -E2BIG;
	/* A fingerprint longer than one is no fingerprint: not stamped. */
	if (fp != NULL && strlen(fp) < 80 &&
	    add_missing(kv, cfg, "user.box.image.fingerprint", fp) < 0)
		return -E2BIG;
	return 0;
}

int
migrate_carry_of(const struct incus_instance *in, struct mint_kv *kv)
{
	static const char *const keys[] = { "limits.cpu", "limits.memory",
	    NULL };
	const struct incus_kvs *cfg = &in->config, *ex = &in->expanded_config;
	const char *v;
	int i;

	mint_kv_init(kv);
	for (i = 0; keys[i] != NULL; i++)
		if (incus_kv_get(cfg, keys[i]) == NULL &&
		    (v = incus_kv_get(ex, keys[i])) != NULL && v[0] != '\0' &&
		    strlen(v) < 160 && mint_kv_add(kv, keys[i], v) < 0)
			return -E2BIG;
	if (strcmp(in->type, "container") == 0 &&
	    incus_kv_get(cfg, "security.nesting") == NULL &&
	    strcmp(incus_kv_or(ex, "security.nesting", ""), "true") == 0 &&
	    mint_kv_add(kv, "security.nesting", "true") < 0)
		return -E2BIG;
	return 0;
}

int
migrate_drop_device(const char *name, const struct incus_kvs *dev)
{
	(void)name;
	return dev != NULL && droppable(dev);
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

int
migrate_rollback_of(const struct incus_instance *cur,
    const struct incus_instance *orig, const struct mint_kv *kv,
    struct incus_instance *out)
{
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", cur->name);
	snprintf(out->architecture, sizeof(out->architecture), "%s",
	    cur->architecture);
	out->ephemeral = cur->ephemeral;
	out->stateful = cur->stateful;
	if ((out->description = strdup(cur->description != NULL ?
	    cur->description : "")) == NULL)
		rc = -ENOMEM;
	/* The current config (fresh volatile keys, both tags) less the
	 * carried keys; the original's devices and profiles. */
	for (i = 0; rc == 0 && i < cur->config.n; i++)
		if (!carried(kv, cur->config.v[i].key))
			rc = incus_kv_set(&out->config, cur->config.v[i].key,
			    cur->config.v[i].value);
	if (rc == 0)
		rc = incus_dev_copy(&out->devices, &orig->devices);
	if (rc == 0 && orig->nprofiles > 0 &&
	    (out->profiles = calloc(orig->nprofiles, sizeof(char *))) == NULL)
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < orig->nprofiles; i++) {
		if ((out->profiles[i] = strdup(orig->profiles[i])) == NULL)
			rc = -ENOMEM;
		else
			out->nprofiles++;
	}
	if (rc < 0)
		incus_instance_free(out);
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

/* The shape doctor demands, judged on the daemon's record as moved. */
static int
check_shape(struct incus *c, const char *name, struct box_err *e)
{
	struct shape_report *s = calloc(1, sizeof(*s));
	struct incus_instance in;
	int rc, n;

	if (s == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	if ((rc = incus_instance_get(c, name, 0, &in, e)) == 0) {
		n = shape_check(&in, s);
		if (n > 0)
			rc = err_set(e, -EPERM, "on %s, %s does not have box's "
			    "shape: %s%s", CONTRACT_PROFILE, name, s->what[0],
			    n > 1 ? " (and more: box doctor)" : "");
		incus_instance_free(&in);
	}
	free(s);
	return rc;
}

/* Put the box back: its old profiles and devices, both tags; restarted. */
static int
rollback(struct incus *c, const char *name, const struct incus_instance *orig,
    const struct mint_kv *carry, int was_running, struct box_err *e)
{
	struct incus_instance cur, back;
	int rc;

	err_clear(e);
	life_state(c, name, "stop", 1, 0, e);	/* stopped already is fine */
	err_clear(e);
	if ((rc = incus_instance_get(c, name, 0, &cur, e)) < 0)
		return rc;
	rc = migrate_rollback_of(&cur, orig, carry, &back);
	incus_instance_free(&cur);
	if (rc < 0)
		return err_set(e, rc, "building the rollback failed");
	rc = incus_instance_put(c, &back, LIFE_OP_S, e);
	incus_instance_free(&back);
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

int
migrate_require_stack(struct incus *c, uint32_t *net, struct box_err *e)
{
	char pool[64];
	uint32_t n = 0;
	int rc;

	if ((rc = life_require_stack(c, pool, sizeof(pool), e)) < 0)
		return rc;
	rc = bridge_net(c, &n, e);
	if (rc < 0)
		return rc;
	if (rc == 0 || n == 0) {
		err_set(e, -ENOENT, "no %s bridge with an IPv4 address: the "
		    "host stack a box runs on is missing", CONTRACT_BRIDGE);
		err_fix(e, "build it: box setup-host");
		return -ENOENT;
	}
	if (net != NULL)
		*net = n;
	return 0;
}

/* Everything up to (not including) the first change. */
static int
preflight(struct incus *c, const char *name, struct incus_instance *in,
    uint32_t *net, struct migrate_result *res, struct box_err *e)
{
	char foreign[200];
	int rc, kind;

	if (!box_name_ok(name))
		return refuse(res, e, err_usage(e, "not a box name: %.64s",
		    name));
	if ((rc = migrate_require_stack(c, net, e)) < 0)
		return refuse(res, e, rc);
	rc = incus_instance_get(c, name, 0, in, e);
	if (rc == -ENOENT) {
		err_set(e, -ENOENT, "no such box: %s", name);
		return refuse(res, e, rc);
	}
	if (rc < 0)
		return refuse(res, e, rc);
	kind = migrate_kind_of(in);
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
	if (migrate_foreign_devices_of(in, foreign, sizeof(foreign)) > 0) {
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
		ed.drop_device = migrate_drop_device;
	}
	return life_edit(c, name, &ed, e);
}

/* The steps after the stamp; *stage names the one that failed. */
static int
rehome(struct incus *c, const char *name, uint32_t net,
    const struct incus_instance *orig, struct mint_kv *carry, int running,
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
	if ((rc = migrate_carry_of(orig, carry)) < 0)
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
	return migrate_verify_inside(c, name, net, deadline, p, e);
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

	ip4_fmt(migrate_probe_lease(p, net), res->addr, sizeof(res->addr));
	ip4_fmt(p->name_a, a, sizeof(a));
	if (p->name == 1)
		snprintf(dns, sizeof(dns), "%s resolves to %s", migrate_probe_name(), a);
	else
		snprintf(dns, sizeof(dns), "%s does not resolve (%s: the "
		    "host's upstream resolvers; see box doctor)", migrate_probe_name(),
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
	struct incus_instance in;	/* the record as it was */
	struct mint_kv stamps, carry;
	struct box_err rb;
	char now[32];
	uint32_t net = 0;
	int rc, running, forced = 0;

	memset(res, 0, sizeof(*res));
	memset(&p, 0, sizeof(p));
	memset(&in, 0, sizeof(in));	/* freed on every path */
	mint_kv_init(&carry);
	res->stage = "checks";
	rc = preflight(c, name, &in, &net, res, e);
	if (rc != 0) {
		incus_instance_free(&in);
		if (rc > 0)
			printf("box: %s is already on the hardened stack "
			    "(user.box=1, no legacy tag): nothing to do\n",
			    name);
		return rc > 0 ? 0 : rc;
	}
	running = strcmp(in.status, "Stopped") != 0;
	text_utc(now, sizeof(now), time(NULL));
	res->stage = "stamp";
	if (migrate_stamps_of(&in, now, &stamps) < 0)
		rc = err_set(e, -E2BIG, "stamps too long");
	else
		rc = edit(c, name, mint_kv_list(&stamps), 0, e);
	if (rc < 0) {
		incus_instance_free(&in);
		res->outcome = MIG_R_REFUSED;
		err_context(e, "stamping %s (nothing else was changed)", name);
		return rc;
	}
	rc = rehome(c, name, net, &in, &carry, running, res, &p, e);
	if (rc == 0)
		rc = untag(c, name, &p, res, e);
	if (rc == 0) {
		incus_instance_free(&in);
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
		incus_instance_free(&in);
		res->outcome = MIG_R_STRANDED;
		err_context(e, "%s is verified on %s but still carries both "
		    "tags", name, CONTRACT_PROFILE);
		err_fix(e, "box migrate-host --box %s (it resumes)", name);
		return rc;
	}
	life_say("%s failed at '%s': putting it back where it was", name,
	    res->stage);
	err_clear(&rb);
	if (rollback(c, name, &in, &carry, running, &rb) == 0) {
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
	incus_instance_free(&in);
	return rc;
}

/* --- listing ------------------------------------------------------------ */

static int
cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int
migrate_legacy_names(struct incus *c, const char *prefix,
    char (*names)[BOX_NAME_MAX], int max, int *n, int *more,
    struct box_err *e)
{
	struct incus_instance_list l;
	size_t pl = prefix != NULL ? strlen(prefix) : 0, i;
	int rc, k;

	*n = *more = 0;
	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		const char *name = l.v[i].name;

		k = migrate_kind_of(&l.v[i]);
		if (k != MIG_LEGACY && k != MIG_HALFWAY)
			continue;
		if (name[0] == '\0' || strlen(name) >= BOX_NAME_MAX ||
		    strncmp(name, prefix != NULL ? prefix : "", pl) != 0)
			continue;
		if (*n == max) {
			(*more)++;
			continue;
		}
		snprintf(names[*n], BOX_NAME_MAX, "%s", name);
		(*n)++;
	}
	incus_instance_list_free(&l);
	qsort(names, (size_t)*n, BOX_NAME_MAX, cmp_name);
	return 0;
}
