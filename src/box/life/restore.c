/*
 * restore.c - a rollback that keeps the box's shape (see restore.h).
 */
#include "box/life/restore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/door.h"
#include "box/egress/egress_sync.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/secret/secret.h"
#include "box/life/vet.h"
#include "incus/instance.h"

/* kvs as the vet's pairs, for vet_pin_ok: 1 ok, 0 not, -ENOMEM */
static int
pin_ok(const char *name, const struct incus_kvs *kv)
{
	struct vet_kv *p = calloc(kv->n + 1, sizeof(*p));
	struct vet_dev d;
	size_t i;
	int ok;

	if (p == NULL)
		return -ENOMEM;
	for (i = 0; i < kv->n; i++) {
		p[i].k = kv->v[i].key;
		p[i].v = kv->v[i].value;
	}
	d.name = name;
	d.kv = p;
	d.n = (int)kv->n;
	ok = vet_pin_ok(&d);
	free(p);
	return ok;
}

static int
same_kvs(const struct incus_kvs *a, const struct incus_kvs *b)
{
	size_t i;

	if (a == NULL || b == NULL || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const char *v = incus_kv_get(b, a->v[i].key);

		if (v == NULL || strcmp(v, a->v[i].value) != 0)
			return 0;
	}
	return 1;
}

/*
 * The devices the snapshot brought that the box may not have: removed
 * from after.  Returns how many, or -ENOMEM.
 */
static int
reshape(struct incus_instance *after, const struct incus_devices *before)
{
	size_t i = 0;
	int n = 0, ok;

	while (i < after->devices.n) {
		const struct incus_device *d = &after->devices.v[i];
		const char *type = incus_kv_or(&d->kv, "type", "");
		int drop = 0;

		if (strncmp(d->name, DOOR_PREFIX, strlen(DOOR_PREFIX)) == 0) {
			drop = !same_kvs(&d->kv, incus_dev_get(before,
			    d->name));
			if (drop)
				life_say("closed door %s: the snapshot held it, "
				    "the box did not (open it again with box "
				    "expose)", d->name);
		} else if (strcmp(type, "nic") == 0) {
			if ((ok = pin_ok(d->name, &d->kv)) < 0)
				return ok;
			drop = !ok;
			if (drop)
				life_say("removed the snapshot's NIC %s: it is "
				    "not box-net's NIC with its filters (the "
				    "profile's takes over)", d->name);
		}
		if (!drop) {
			i++;
			continue;
		}
		if (incus_dev_del(&after->devices, d->name) < 0)
			return -ENOMEM;
		n++;
	}
	return n;
}

/*
 * The grant list is the host's word on the box now, not part of its
 * past: a snapshot's (taken before a revoke, or copied from a clone's
 * source) does not come back.  1 when after was changed, 0, -ENOMEM.
 */
static int
keep_grants(struct incus_instance *after, const char *now)
{
	const char *was = incus_kv_get(&after->config, SECRET_GRANT_KEY);

	if (now == NULL && (was == NULL || *was == '\0'))
		return 0;
	if (now != NULL && was != NULL && strcmp(now, was) == 0)
		return 0;
	if (now == NULL)
		return incus_kv_del(&after->config, SECRET_GRANT_KEY) < 0 ?
		    -ENOMEM : 1;
	return incus_kv_set(&after->config, SECRET_GRANT_KEY, now) < 0 ?
	    -ENOMEM : 1;
}

int
box_restore(struct incus *c, const char *box, const char *snap,
    struct box_err *e)
{
	struct incus_instance in, after;
	struct incus_devices doors = { 0 };
	char grants[SECRET_GRANTMAX * (SECRET_NAMEMAX + 1) + 1] = "";
	const char *g;
	int rc, running, forced, n, kept = 0;
	size_t i;

	memset(&after, 0, sizeof(after));
	if ((rc = incus_instance_get(c, box, 0, &in, e)) < 0)
		return rc;
	running = strcmp(in.status, "Running") == 0;
	for (i = 0; rc == 0 && i < in.devices.n; i++)
		if (strncmp(in.devices.v[i].name, DOOR_PREFIX,
		    strlen(DOOR_PREFIX)) == 0 && incus_dev_set(&doors,
		    in.devices.v[i].name, &in.devices.v[i].kv) < 0)
			rc = err_set(e, -ENOMEM, "out of memory");
	if ((g = incus_kv_get(&in.config, SECRET_GRANT_KEY)) != NULL)
		snprintf(grants, sizeof(grants), "%s", g);
	incus_instance_free(&in);
	if (rc < 0)
		goto out;
	/* stopped first: it must not run with the snapshot's shape */
	if (running && (rc = life_stop(c, box, LIFE_GRACE_S, &forced, e)) < 0)
		goto out;
	if ((rc = incus_snapshot_restore(c, box, snap, LIFE_OP_S, e)) < 0)
		goto out;
	life_say("restored %s to %s", box, snap);
	if ((rc = incus_instance_get(c, box, 0, &after, e)) < 0)
		goto out;
	if ((n = reshape(&after, &doors)) < 0 ||
	    (kept = keep_grants(&after, grants[0] != '\0' ? grants :
	    NULL)) < 0) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (n + kept > 0 &&
	    (rc = incus_instance_put(c, &after, LIFE_OP_S, e)) < 0) {
		err_context(e, "re-asserting %s's shape after the restore "
		    "(it stays stopped)", box);
		goto out;
	}
	/* the snapshot's config is back, its egress policy with it */
	if ((rc = egress_sync_box(c, box, e)) < 0)
		goto out;
	if (running && (rc = life_state(c, box, "start", 0, 0, e)) < 0)
		err_context(e, "starting %s again after the restore", box);
out:
	incus_instance_free(&after);
	incus_dev_free(&doors);
	return rc;
}
