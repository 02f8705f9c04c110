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

/* Every instance of the project, stopped (forced) when it runs, deleted. */
static int
purge_instances(struct incus *pc, int *count, struct box_err *e)
{
	struct incus_instance_list l;
	int rc;
	size_t i;

	*count = 0;
	rc = incus_instance_list(pc, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n && rc == 0; i++) {
		rc = life_stop_delete(pc, l.v[i].name, strcmp(l.v[i].status,
		    "Stopped") != 0, e);
		if (rc == 0)
			(*count)++;
		else
			err_context(e, "deleting the instance %s", l.v[i].name);
	}
	incus_instance_list_free(&l);
	return rc;
}

/* The project's own profiles but its default (which cannot go). */
static int
purge_profiles(struct incus *pc, int *count, struct box_err *e)
{
	struct incus_profile_names l;
	int rc;
	size_t i;

	*count = 0;
	rc = incus_profile_names(pc, &l, e);
	for (i = 0; rc == 0 && i < l.n; i++) {
		if (strcmp(l.v[i], "default") == 0)
			continue;
		rc = incus_profile_delete(pc, l.v[i], e);
		if (rc == 0)
			(*count)++;
		else
			err_context(e, "deleting the profile %s", l.v[i]);
	}
	incus_profile_names_free(&l);
	return rc;
}

/* A name from the daemon as a terminal may show it (text_shown). */
static const char *
shown(const char *s, char *buf, size_t cap)
{
	text_shown(s, strlen(s), buf, cap);
	return buf;
}

/*
 * Every disk device that names a source (a custom volume, a host path) off
 * the project's profiles: a volume still attached to one is "in use" and
 * its delete fails, and the default profile cannot be deleted.  The
 * instances are gone already.
 */
static int
purge_detach(struct incus *pc, int *count, struct box_err *e)
{
	struct incus_profile_names l;
	int rc;
	size_t i, k;

	*count = 0;
	rc = incus_profile_names(pc, &l, e);
	for (i = 0; rc == 0 && i < l.n; i++) {
		struct incus_profile p;
		int changed = 0;

		rc = incus_profile_get(pc, l.v[i], &p, e);
		if (rc < 0)
			break;
		for (k = p.devices.n; k-- > 0 && rc == 0;) {
			const struct incus_kvs *kv = &p.devices.v[k].kv;

			if (strcmp(incus_kv_or(kv, "type", ""), "disk") != 0 ||
			    incus_kv_get(kv, "source") == NULL)
				continue;
			rc = incus_dev_del(&p.devices, p.devices.v[k].name);
			changed++;
		}
		if (rc < 0)
			rc = err_set(e, rc, "changing a profile's devices");
		else if (changed)
			rc = incus_profile_put(pc, l.v[i], &p, e);
		if (rc < 0) {
			char n[256];

			err_context(e, "detaching volumes from the profile %s",
			    shown(l.v[i], n, sizeof(n)));
		} else {
			*count += changed;
		}
		incus_profile_free(&p);
	}
	incus_profile_names_free(&l);
	return rc;
}

/* The project's own images (only called when it has its own store). */
static int
purge_images(struct incus *pc, int *count, struct box_err *e)
{
	struct incus_images l;
	int rc;
	size_t i;

	*count = 0;
	rc = incus_image_list(pc, &l, e);
	for (i = 0; rc == 0 && i < l.n; i++) {
		rc = incus_image_delete(pc, l.v[i].fingerprint, PURGE_WAIT_S,
		    e);
		if (rc == 0)
			(*count)++;
		else
			err_context(e, "deleting the image %.12s",
			    l.v[i].fingerprint);
	}
	incus_images_free(&l);
	return rc;
}

/* Custom volumes of the project, in every pool. */
static int
purge_volumes(struct incus *pc, int *count, struct box_err *e)
{
	struct incus_volume_refs v;
	char **pools = NULL;
	size_t npools = 0, i, k;
	int rc;

	*count = 0;
	rc = incus_pool_names(pc, &pools, &npools, e);
	for (i = 0; rc == 0 && i < npools; i++) {
		rc = incus_pool_volumes(pc, pools[i], "custom", &v, e);
		for (k = 0; rc == 0 && k < v.n; k++) {
			/* A volume's snapshots go with it. */
			if (v.v[k].snapshot != NULL)
				continue;
			rc = incus_volume_delete(pc, pools[i], v.v[k].name,
			    PURGE_WAIT_S, e);
			if (rc == 0)
				(*count)++;
			else {
				char n[256];

				err_context(e, "deleting the volume %s/%s",
				    pools[i], shown(v.v[k].name, n, sizeof(n)));
			}
		}
		incus_volume_refs_free(&v);
	}
	incus_names_free(pools, npools);
	return rc;
}

int
grant_purge(struct incus *c, const struct grant_user *u, struct box_err *e)
{
	struct incus pc;
	int rc, n, exists, own = 0;

	exists = grant_project_features(c, u->project, &own, e);
	if (exists < 0)
		return exists;
	if (exists) {
		rc = grant_project_client(c, u->project, &pc, e);
		if (rc < 0)
			return rc;
		rc = purge_instances(&pc, &n, e);
		if (rc == 0)
			fprintf(stderr, "  deleted %d box(es) of %s\n", n,
			    u->project);
		/*
		 * Only what the project holds itself: without its own
		 * features.images (profiles, volumes) the daemon serves the
		 * DEFAULT project's under this project's name.
		 */
		if (rc == 0 && (own & GRANT_OWN_IMAGES) &&
		    (rc = purge_images(&pc, &n, e)) == 0)
			fprintf(stderr, "  deleted %d image(s)\n", n);
		if (rc == 0 && (own & GRANT_OWN_PROFILES) &&
		    (rc = purge_profiles(&pc, &n, e)) == 0)
			fprintf(stderr, "  deleted %d profile(s)\n", n);
		if (rc == 0 && (own & GRANT_OWN_PROFILES) &&
		    (rc = purge_detach(&pc, &n, e)) == 0 && n)
			fprintf(stderr, "  detached %d disk device(s) from the "
			    "default profile\n", n);
		if (rc == 0 && (own & GRANT_OWN_VOLUMES) &&
		    (rc = purge_volumes(&pc, &n, e)) == 0 && n)
			fprintf(stderr, "  deleted %d custom volume(s)\n", n);
		incus_close(&pc);
		if (rc < 0)
			return rc;
		rc = incus_project_delete(c, u->project, PURGE_WAIT_S, e);
		if (rc < 0) {
			err_context(e, "deleting the project %s", u->project);
			return rc;
		}
		fprintf(stderr, "  deleted the project %s\n", u->project);
	}
	rc = incus_network_delete(c, u->bridge, e);
	if (rc == -ENOENT)
		err_clear(e);
	else if (rc < 0)
		return rc;
	else
		fprintf(stderr, "  deleted the bridge %s\n", u->bridge);
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
