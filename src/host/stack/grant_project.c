/*
 * grant_project.c - the Incus side of the restricted tier: the pre-empted
 * private bridge, the user's project converged to the contract, and the
 * same facts read back (for grant's own verification and for doctor).
 */
#include "host/stack/grant_project.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/remote/profile.h"
#include "host/stack/contract.h"
#include "host/stack/stack.h"
#include "incus/certificate.h"
#include "incus/cluster.h"
#include "incus/network.h"
#include "incus/profile.h"
#include "incus/project.h"

/* What box sets on the project over incus-user's stock config. */
static const struct { const char *key, *value; } project_keys[] = {
	{ "restricted", "true" },
	{ "restricted.networks.access", CONTRACT_BRIDGE },
	{ "restricted.snapshots", "allow" },
	{ "restricted.backups", "allow" },
	/* incus-user's "allow" with its .paths = the user's home: a host
	 * directory in a box.  A box is one root disk: pool volumes only. */
	{ "restricted.devices.disk", "managed" },
};
#define NPROJECT_KEYS (sizeof(project_keys) / sizeof(project_keys[0]))

/* incus-user's: a box is one NIC and one root disk, never a host path. */
static const char *const project_gone[] = {
	"restricted.devices.disk.paths",
};
#define NPROJECT_GONE (sizeof(project_gone) / sizeof(project_gone[0]))

/* On an Incus cluster the tier's boxes land only on the members of group
 * box (restricted.cluster.groups; targeting one member stays blocked). */
#define GROUPS_KEY	"restricted.cluster.groups"

static int
on_cluster(struct incus *c)
{
	struct box_err e;
	char self[64];

	err_clear(&e);
	return incus_cluster_self(c, self, sizeof(self), &e) > 0;
}

/* The GPU rule the project must hold: what the grant recorded. */
static const char *
gpu_rule(const struct incus_kvs *config)
{
	return strcmp(incus_kv_or(config, GRANT_KEY_GPU, ""), "true") == 0 ?
	    "allow" : "block";
}

int
grant_network_exists(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_network n;
	int rc = incus_network_get(c, name, &n, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	if (rc == 0)
		incus_network_free(&n);
	return rc < 0 ? rc : 1;
}

int
grant_project_exists(struct incus *c, const char *project,
    struct box_err *e)
{
	struct incus_project p;
	int rc = incus_project_get(c, project, &p, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	incus_project_free(&p);
	return rc < 0 ? rc : 1;
}

int
grant_project_features(struct incus *c, const char *project, int *own,
    struct box_err *e)
{
	static const struct { const char *key; int bit; } f[] = {
		{ "features.images", GRANT_OWN_IMAGES },
		{ "features.profiles", GRANT_OWN_PROFILES },
		{ "features.storage.volumes", GRANT_OWN_VOLUMES },
	};
	struct incus_project p;
	int rc;
	size_t i;

	*own = 0;
	rc = incus_project_get(c, project, &p, e);
	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	if (rc < 0)
		return rc;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcmp(incus_kv_or(&p.config, f[i].key, ""), "true") == 0)
			*own |= f[i].bit;
	incus_project_free(&p);
	return 1;
}

int
grant_preempt_bridge(struct incus *c, const struct grant_user *u,
    int *created, struct box_err *e)
{
	char name[sizeof(u->bridge)], type[] = "bridge", desc[160];
	struct incus_network n = { 0 };
	int rc;

	*created = 0;
	rc = grant_network_exists(c, u->bridge, e);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	snprintf(name, sizeof(name), "%s", u->bridge);
	snprintf(desc, sizeof(desc), "box: incus-user's bridge for %s, made "
	    "first without addresses (its own would probe for a subnet); "
	    "the project may use only " CONTRACT_BRIDGE, u->project);
	n.name = name;
	n.type = type;
	n.description = desc;
	rc = incus_kv_set(&n.config, "ipv4.address", "none");
	if (rc == 0)
		rc = incus_kv_set(&n.config, "ipv6.address", "none");
	if (rc == 0)
		rc = incus_network_create(c, &n, e);
	else
		rc = err_set(e, rc, "building the bridge %s", u->bridge);
	incus_kv_free(&n.config);
	if (rc == 0)
		*created = 1;
	return rc;
}

int
grant_create_project(struct incus *c, const struct grant_user *u, int gpu,
    struct box_err *e)
{
	/* incus-user's own keys (cmd/incus-user/server.go), then box's. */
	static const struct { const char *key, *value; } stock[] = {
		{ "features.images", "true" },
		{ "features.networks", "false" },
		{ "features.networks.zones", "true" },
		{ "features.profiles", "true" },
		{ "features.storage.volumes", "true" },
		{ "features.storage.buckets", "true" },
		{ "restricted.containers.nesting", "allow" },
	};
	struct incus_kvs cfg = { 0 };
	char desc[160], uid[16], gid[16];
	int rc = 0;
	size_t i;

	snprintf(uid, sizeof(uid), "%u", u->uid);
	snprintf(gid, sizeof(gid), "%u", u->gid);
	snprintf(desc, sizeof(desc), "User restricted project for \"%s\" "
	    "(%u), made by box grant", u->name, u->uid);
	for (i = 0; i < sizeof(stock) / sizeof(stock[0]) && rc == 0; i++)
		rc = incus_kv_set(&cfg, stock[i].key, stock[i].value);
	if (rc == 0)
		rc = incus_kv_set(&cfg, "restricted.devices.gpu", gpu ? "allow" :
		    "block");
	if (rc == 0 && gpu)
		rc = incus_kv_set(&cfg, GRANT_KEY_GPU, "true");
	if (rc == 0)
		rc = incus_kv_set(&cfg, "restricted.idmap.uid", uid);
	if (rc == 0)
		rc = incus_kv_set(&cfg, "restricted.idmap.gid", gid);
	for (i = 0; i < NPROJECT_KEYS && rc == 0; i++)
		rc = incus_kv_set(&cfg, project_keys[i].key,
		    project_keys[i].value);
	if (rc == 0 && on_cluster(c))
		rc = incus_kv_set(&cfg, GROUPS_KEY, CONTRACT_GROUP);
	if (rc == 0)
		rc = incus_project_create(c, u->project, desc, &cfg, e);
	else
		rc = err_set(e, rc, "building the project %s", u->project);
	incus_kv_free(&cfg);
	return rc;
}

/* Any NIC among the devices? */
static int
has_nic(const struct incus_devices *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strcmp(incus_kv_or(&d->v[i].kv, "type", ""), "nic") == 0)
			return 1;
	return 0;
}

/* The project's default profile without any NIC (incus-user's eth0). */
static int
default_drop_nics(struct incus *pc, int *changed, struct box_err *e)
{
	static const char desc[] = "Default Incus profile (no NIC: boxes use "
	    "box-net)";
	struct incus_profile p;
	int rc = 0;
	size_t i;

	*changed = 0;
	rc = incus_profile_get(pc, "default", &p, e);
	if (rc < 0)
		return rc;
	if (!has_nic(&p.devices)) {
		incus_profile_free(&p);
		return 0;
	}
	for (i = p.devices.n; i-- > 0 && rc >= 0;)
		if (strcmp(incus_kv_or(&p.devices.v[i].kv, "type", ""),
		    "nic") == 0)
			rc = incus_dev_del(&p.devices, p.devices.v[i].name);
	free(p.description);
	p.description = strdup(desc);
	if (p.description == NULL || rc < 0)
		rc = err_set(e, -ENOMEM, "changing the default profile");
	else
		rc = incus_profile_put(pc, "default", &p, e);
	incus_profile_free(&p);
	if (rc == 0)
		*changed = 1;
	return rc;
}

/*
 * The project's config with box's keys set.  A PUT of the whole config
 * (read, changed, written back under its ETag): a PATCH of projects in
 * Incus 6.0 replaces the config, which would drop incus-user's features.*
 * keys and move the project's profiles into the default project.
 */
static int
project_config(struct incus *c, const struct grant_user *u, int gpu,
    struct box_err *e)
{
	struct incus_project p;
	int rc;
	size_t i;

	rc = incus_project_get(c, u->project, &p, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < NPROJECT_KEYS && rc == 0; i++)
		rc = incus_kv_set(&p.config, project_keys[i].key,
		    project_keys[i].value);
	for (i = 0; i < NPROJECT_GONE; i++)
		(void)incus_kv_del(&p.config, project_gone[i]);
	if (gpu)
		rc = rc < 0 ? rc : incus_kv_set(&p.config, GRANT_KEY_GPU, "true");
	else
		(void)incus_kv_del(&p.config, GRANT_KEY_GPU);
	if (rc == 0)
		rc = incus_kv_set(&p.config, "restricted.devices.gpu",
		    gpu ? "allow" : "block");
	if (rc == 0 && on_cluster(c))
		rc = incus_kv_set(&p.config, GROUPS_KEY, CONTRACT_GROUP);
	if (rc == 0)
		rc = incus_project_put(c, &p, e);
	else
		rc = err_set(e, rc, "changing the project %s", u->project);
	incus_project_free(&p);
	return rc;
}

int
grant_project_client(const struct incus *admin, const char *project,
    struct incus *pc, struct box_err *e)
{
	int rc = incus_init(pc, e);

	if (rc < 0)
		return rc;
	snprintf(pc->socket_path, sizeof(pc->socket_path), "%s",
	    admin->socket_path);
	snprintf(pc->project, sizeof(pc->project), "%s", project);
	return 0;
}

int
grant_converge(struct incus *c, const struct grant_user *u, int gpu,
    struct box_err *e)
{
	struct incus pc;
	int rc, changed, own;

	rc = grant_project_features(c, u->project, &own, e);
	if (rc < 0)
		return rc;
	if (rc == 0 || (own & GRANT_OWN_PROFILES) == 0)
		return err_set(e, -EPROTO, "%s %s", u->project, rc == 0 ?
		    "does not exist" : "has no profiles of its own "
		    "(features.profiles is not true): its profiles would be "
		    "the default project's, so box changes none of them");
	rc = grant_project_client(c, u->project, &pc, e);
	if (rc < 0)
		return rc;
	rc = default_drop_nics(&pc, &changed, e);
	if (rc < 0) {
		err_context(e, "taking the NIC off %s's default profile",
		    u->project);
		goto out;
	}
	if (changed)
		fprintf(stderr, "  profile: %s's default profile has no NIC "
		    "now (incus-user put one on %s)\n", u->project, u->bridge);
	rc = project_config(c, u, gpu, e);
	if (rc < 0) {
		err_context(e, "restricting %s to " CONTRACT_BRIDGE,
		    u->project);
		err_fix(e, "an instance of %s on another network blocks it: "
		    "move or delete it, then box grant %s again", u->project,
		    u->name);
		goto out;
	}
	fprintf(stderr, "  network: %s restricted to " CONTRACT_BRIDGE
	    " (the private %s has no address and is unreachable from it); "
	    "snapshots and backups allowed\n", u->project, u->bridge);
	fprintf(stderr, "  devices: %s: disks from pools only (no host "
	    "path, incus-user allowed %s), GPUs %s\n", u->project, u->home,
	    gpu ? "ALLOWED (--gpu: a box may hold the host's GPU)" :
	    "blocked (box grant --gpu allows them)");
	rc = stack_ensure_profile(&pc, &changed, e);
	if (rc < 0) {
		err_context(e, "writing box-net in %s", u->project);
		goto out;
	}
	fprintf(stderr, "  profile: box-net in %s %s (the contract's NIC and "
	    "root disk)\n", u->project, changed ? "written" : "already right");
out:
	incus_close(&pc);
	return rc;
}

/* Append "what; " to buf. */
static void
note(char *buf, size_t cap, const char *what)
{
	size_t n = strlen(buf);

	if (n + 3 < cap)
		snprintf(buf + n, cap - n, "%s%s", n ? "; " : "", what);
}

int
grant_project_check(struct incus *c, const char *project, char *bad,
    size_t cap, struct box_err *e)
{
	struct incus_project p;
	struct incus_profile prof;
	struct incus pc;
	char line[160];
	int rc, problems = 0, exists, ok;

	bad[0] = '\0';
	rc = incus_project_get(c, project, &p, e);
	if (rc == -ENOENT) {
		err_clear(e);
		note(bad, cap, "the project is missing");
		return 1;
	}
	if (rc < 0)
		return rc;
	if (strcmp(incus_kv_or(&p.config, "features.profiles", ""),
	    "true") != 0) {
		incus_project_free(&p);
		note(bad, cap, "features.profiles is not true (its profiles "
		    "are the default project's)");
		return 1;
	}
	for (size_t i = 0; i < NPROJECT_KEYS; i++)
		if (strcmp(incus_kv_or(&p.config, project_keys[i].key, ""),
		    project_keys[i].value) != 0) {
			snprintf(line, sizeof(line), "%s is not '%s'",
			    project_keys[i].key, project_keys[i].value);
			note(bad, cap, line);
			problems++;
		}
	for (size_t i = 0; i < NPROJECT_GONE; i++)
		if (incus_kv_get(&p.config, project_gone[i]) != NULL) {
			snprintf(line, sizeof(line), "%s is set (a host path "
			    "in a box)", project_gone[i]);
			note(bad, cap, line);
			problems++;
		}
	if (on_cluster(c) && strcmp(incus_kv_or(&p.config, GROUPS_KEY, ""),
	    CONTRACT_GROUP) != 0) {
		note(bad, cap, GROUPS_KEY " is not '" CONTRACT_GROUP "' (the "
		    "tier's boxes could land on a member without the "
		    "contract)");
		problems++;
	}
	if (strcmp(incus_kv_or(&p.config, "restricted.devices.gpu", "block"),
	    gpu_rule(&p.config)) != 0) {
		snprintf(line, sizeof(line), "restricted.devices.gpu is not "
		    "'%s'%s", gpu_rule(&p.config), strcmp(gpu_rule(&p.config),
		    "block") == 0 ? " (granted without --gpu)" : "");
		note(bad, cap, line);
		problems++;
	}
	incus_project_free(&p);
	rc = grant_project_client(c, project, &pc, e);
	if (rc < 0)
		return rc;
	rc = incus_profile_get(&pc, "default", &prof, e);
	if (rc == 0) {
		if (has_nic(&prof.devices)) {
			note(bad, cap, "the default profile has a NIC");
			problems++;
		}
		incus_profile_free(&prof);
		rc = profile_check(&pc, &exists, &ok, e);
	}
	incus_close(&pc);
	if (rc < 0)
		return rc;
	if (!exists || !ok) {
		note(bad, cap, exists ? "box-net is not the contract's (by "
		    "content)" : "box-net is missing");
		problems++;
	}
	return problems;
}

int
grant_trust_fps(struct incus *c, unsigned uid, char fps[][80], int max,
    struct box_err *e)
{
	struct incus_certificates l;
	char want[32];
	int rc, n = 0;
	size_t i;

	snprintf(want, sizeof(want), "incus-user-%u", uid);
	rc = incus_certificate_list(c, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		if (strcmp(l.v[i].name, want) != 0)
			continue;
		if (n < max)
			snprintf(fps[n], sizeof(fps[0]), "%s",
			    l.v[i].fingerprint);
		n++;
	}
	incus_certificates_free(&l);
	return n;
}
