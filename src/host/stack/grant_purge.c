/*
 * grant_purge.c - everything the restricted tier made for one user,
 * deleted in dependency order and then looked for again.
 */
#include "host/stack/grant_purge.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/life/life.h"
#include "host/stack/grant_cut.h"
#include "host/stack/grant_project.h"
#include "incus/image.h"
#include "incus/instance.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/project.h"
#include "incus/storage.h"
#include "util/text.h"

#define PURGE_WAIT_S 120

/*
 * One purge's tally: what could not be deleted is named in left (with the
 * daemon's words) and the purge goes on with the rest, so one object a
 * user made undeletable does not keep everything after it alive.
 */
struct purge {
	struct incus *pc;
	char left[1024];
	int failed;
};

/* A name from the daemon as a terminal may show it (text_shown). */
static const char *
shown(const char *s, char *buf, size_t cap)
{
	text_shown(s, strlen(s), buf, cap);
	return buf;
}

/* Record a survivor: said now on stderr, named again in the verdict. */
static void
lost(struct purge *p, const char *kind, const char *name,
    const struct box_err *le)
{
	char n[256], why[sizeof(le->msg)];
	size_t k = strlen(p->left);

	shown(name, n, sizeof(n));
	fprintf(stderr, "  could NOT delete %s %s: %s\n", kind, n,
	    shown(le->msg, why, sizeof(why)));
	if (k + 4 < sizeof(p->left))
		snprintf(p->left + k, sizeof(p->left) - k, "%s%s %s", k ?
		    ", " : "", kind, n);
	p->failed++;
}

/*
 * security.protection.delete set to false on the instance itself: a key
 * the user may set on an instance or on one of the project's profiles
 * makes the daemon refuse the delete, and the instance's own value wins
 * over its profiles'.
 */
static int
unprotect(struct incus *pc, const struct incus_instance *in,
    struct box_err *e)
{
	struct incus_kvs kv = { 0 };
	int rc;

	if (incus_kv_set(&kv, "security.protection.delete", "false") < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_instance_patch(pc, in->name, &kv, NULL, in->description,
	    PURGE_WAIT_S, e);
	incus_kv_free(&kv);
	return rc;
}

/* Every instance of the project, unprotected, stopped (forced), deleted. */
static int
purge_instances(struct purge *p)
{
	struct incus_instance_list l;
	struct box_err le;
	int n = 0;
	size_t i;

	err_clear(&le);
	if (incus_instance_list(p->pc, NULL, 0, &l, &le) < 0) {
		lost(p, "the instances of", "the project", &le);
		return 0;
	}
	for (i = 0; i < l.n; i++) {
		err_clear(&le);
		if (unprotect(p->pc, &l.v[i], &le) < 0 ||
		    life_stop_delete(p->pc, l.v[i].name, strcmp(l.v[i].status,
		    "Stopped") != 0, &le) < 0)
			lost(p, "the instance", l.v[i].name, &le);
		else
			n++;
	}
	incus_instance_list_free(&l);
	return n;
}

/* fn on each of the project's profiles: the sum of what it returns. */
static int
each_profile(struct purge *p, int (*fn)(struct purge *, const char *))
{
	struct incus_profile_names l;
	struct box_err le;
	int n = 0;
	size_t i;

	err_clear(&le);
	if (incus_profile_names(p->pc, &l, &le) < 0) {
		lost(p, "the profiles of", "the project", &le);
		return 0;
	}
	for (i = 0; i < l.n; i++)
		n += fn(p, l.v[i]);
	incus_profile_names_free(&l);
	return n;
}

/* A profile of the project's own but its default (which cannot go). */
static int
drop_profile(struct purge *p, const char *name)
{
	struct box_err le;

	if (strcmp(name, "default") == 0)
		return 0;
	err_clear(&le);
	if (incus_profile_delete(p->pc, name, &le) == 0)
		return 1;
	lost(p, "the profile", name, &le);
	return 0;
}

/* The disk devices with a source off one profile; how many went. */
static int
detach_one(struct incus *pc, const char *name, struct box_err *e)
{
	struct incus_profile pr;
	int rc, changed = 0;
	size_t k;

	if ((rc = incus_profile_get(pc, name, &pr, e)) < 0)
		return rc;
	for (k = pr.devices.n; k-- > 0 && rc == 0;) {
		const struct incus_kvs *kv = &pr.devices.v[k].kv;

		if (strcmp(incus_kv_or(kv, "type", ""), "disk") != 0 ||
		    incus_kv_get(kv, "source") == NULL)
			continue;
		rc = incus_dev_del(&pr.devices, pr.devices.v[k].name);
		changed++;
	}
	if (rc < 0)
		rc = err_set(e, rc, "changing a profile's devices");
	else if (changed)
		rc = incus_profile_put(pc, name, &pr, e);
	incus_profile_free(&pr);
	return rc < 0 ? rc : changed;
}

/*
 * Every disk device that names a source (a custom volume, a host path) off
 * a profile: a volume still attached to one is "in use" and its delete
 * fails, and the default profile cannot be deleted.  The instances are
 * gone already.
 */
static int
detach_profile(struct purge *p, const char *name)
{
	struct box_err le;
	int rc;

	err_clear(&le);
	if ((rc = detach_one(p->pc, name, &le)) >= 0)
		return rc;
	lost(p, "the disk devices of the profile", name, &le);
	return 0;
}

/* The project's own images (only called when it has its own store). */
static int
purge_images(struct purge *p)
{
	struct incus_images l;
	struct box_err le;
	int n = 0;
	size_t i;

	err_clear(&le);
	if (incus_image_list(p->pc, &l, &le) < 0) {
		lost(p, "the images of", "the project", &le);
		return 0;
	}
	for (i = 0; i < l.n; i++) {
		char fp[16];

		err_clear(&le);
		snprintf(fp, sizeof(fp), "%.12s", l.v[i].fingerprint);
		if (incus_image_delete(p->pc, l.v[i].fingerprint,
		    PURGE_WAIT_S, &le) < 0)
			lost(p, "the image", fp, &le);
		else
			n++;
	}
	incus_images_free(&l);
	return n;
}

/* One pool's custom volumes (a volume's snapshots go with it). */
static int
purge_pool_volumes(struct purge *p, const char *pool)
{
	struct incus_volume_refs v;
	struct box_err le;
	char what[300];
	int n = 0;
	size_t k;

	err_clear(&le);
	if (incus_pool_volumes(p->pc, pool, "custom", &v, &le) < 0) {
		lost(p, "the custom volumes of the pool", pool, &le);
		return 0;
	}
	for (k = 0; k < v.n; k++) {
		if (v.v[k].snapshot != NULL)
			continue;
		err_clear(&le);
		if (incus_volume_delete(p->pc, pool, v.v[k].name,
		    PURGE_WAIT_S, &le) == 0) {
			n++;
			continue;
		}
		snprintf(what, sizeof(what), "%s/%s", pool, v.v[k].name);
		lost(p, "the volume", what, &le);
	}
	incus_volume_refs_free(&v);
	return n;
}

/* Custom volumes of the project, in every pool. */
static int
purge_volumes(struct purge *p)
{
	struct box_err le;
	char **pools = NULL;
	size_t npools = 0, i;
	int n = 0;

	err_clear(&le);
	if (incus_pool_names(p->pc, &pools, &npools, &le) < 0) {
		lost(p, "the storage pools of", "the project", &le);
		return 0;
	}
	for (i = 0; i < npools; i++)
		n += purge_pool_volumes(p, pools[i]);
	incus_names_free(pools, npools);
	return n;
}

/*
 * Only what the project holds itself: without its own features.images
 * (profiles, volumes) the daemon serves the DEFAULT project's under this
 * project's name.
 */
static void
purge_project(struct purge *p, int own, const char *project)
{
	int n;

	n = purge_instances(p);
	fprintf(stderr, "  deleted %d box(es) of %s\n", n, project);
	if (own & GRANT_OWN_IMAGES)
		fprintf(stderr, "  deleted %d image(s)\n", purge_images(p));
	if (own & GRANT_OWN_PROFILES) {
		fprintf(stderr, "  deleted %d profile(s)\n",
		    each_profile(p, drop_profile));
		if ((n = each_profile(p, detach_profile)) > 0)
			fprintf(stderr, "  detached %d disk device(s) from "
			    "the default profile\n", n);
	}
	if ((own & GRANT_OWN_VOLUMES) && (n = purge_volumes(p)) > 0)
		fprintf(stderr, "  deleted %d custom volume(s)\n", n);
}

int
grant_purge(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	struct purge p;
	struct incus pc;
	struct box_err le;
	int rc, exists, own = 0;

	memset(&p, 0, sizeof(p));
	exists = grant_project_features(c, u->project, &own, e);
	if (exists < 0)
		return exists;
	if (exists) {
		rc = grant_project_client(c, u->project, &pc, e);
		if (rc < 0)
			return rc;
		p.pc = &pc;
		purge_project(&p, own, u->project);
		incus_close(&pc);
		err_clear(&le);
		if (incus_project_delete(c, u->project, PURGE_WAIT_S, &le) < 0)
			lost(&p, "the project", u->project, &le);
		else
			fprintf(stderr, "  deleted the project %s\n",
			    u->project);
	}
	err_clear(&le);
	rc = incus_network_delete(c, u->bridge, &le);
	if (rc < 0 && rc != -ENOENT)
		lost(&p, "the bridge", u->bridge, &le);
	else if (rc == 0)
		fprintf(stderr, "  deleted the bridge %s\n", u->bridge);
	if (p.failed)
		return err_set(e, -EBUSY, "purge INCOMPLETE — %d object(s) "
		    "not deleted: %s", p.failed, p.left);
	return 0;
}

/* Append "what" to the survivor list. */
static void
survivor(char *buf, size_t cap, const char *what)
{
	size_t n = strlen(buf);

	if (n + 3 < cap)
		snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", what);
}

int
grant_absent(struct incus *c, const struct grant_user *u, char *left,
    size_t cap, struct box_err *e)
{
	char fps[2][80], what[256];
	struct stat st;
	int rc;

	left[0] = '\0';
	if ((rc = grant_project_exists(c, u->project, e)) < 0)
		return rc;
	if (rc) {
		snprintf(what, sizeof(what), "project %s", u->project);
		survivor(left, cap, what);
	}
	if ((rc = grant_network_exists(c, u->bridge, e)) < 0)
		return rc;
	if (rc) {
		snprintf(what, sizeof(what), "bridge %s", u->bridge);
		survivor(left, cap, what);
	}
	if ((rc = grant_trust_fps(c, u->uid, fps, 2, e)) < 0)
		return rc;
	if (rc) {
		snprintf(what, sizeof(what), "trust entry incus-user-%u",
		    u->uid);
		survivor(left, cap, what);
	}
	if (lstat(u->state_dir, &st) == 0 && grant_cut_present(u) != 1) {
		snprintf(what, sizeof(what), "state directory %s (not box's "
		    "revoke tombstone)", u->state_dir);
		survivor(left, cap, what);
	}
	if (grant_in_group(u, "incus"))
		survivor(left, cap, "membership of 'incus'");
	return left[0] != '\0';
}

int
grant_end_sessions(const struct grant_user *u, char *left, size_t cap)
{
	pid_t pids[GRANT_MAX_PROCS];
	int n, i, round;

	left[0] = '\0';
	for (round = 0; round < 3; round++) {
		n = grant_procs(u->uid, pids, GRANT_MAX_PROCS);
		if (n == 0)
			return 0;
		for (i = 0; i < n && i < GRANT_MAX_PROCS; i++)
			kill(pids[i], round == 0 ? SIGTERM : SIGKILL);
		/* The kernel reaps asynchronously: give it a moment. */
		for (i = 0; i < 20 && grant_procs(u->uid, pids, 1) > 0; i++)
			poll(NULL, 0, 100);
	}
	n = grant_procs(u->uid, pids, GRANT_MAX_PROCS);
	grant_procs_text(pids, n < GRANT_MAX_PROCS ? n : GRANT_MAX_PROCS,
	    left, cap);
	return n;
}
