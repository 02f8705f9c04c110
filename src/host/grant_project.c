/*
 * grant_project.c - the Incus side of the restricted tier: the pre-empted
 * private bridge, the user's project converged to the contract, and the
 * same facts read back (for grant's own verification and for doctor).
 */
#include "host/grant_project.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/contract.h"
#include "host/stack.h"
#include "incus/certificate.h"
#include "incus/json.h"
#include "incus/project.h"

#define BODY_MAX (64u << 10)

/* What box sets on the project over incus-user's stock config. */
static const struct { const char *key, *value; } project_keys[] = {
	{ "restricted", "true" },
	{ "restricted.networks.access", CONTRACT_BRIDGE },
	{ "restricted.snapshots", "allow" },
	{ "restricted.backups", "allow" },
};
#define NPROJECT_KEYS (sizeof(project_keys) / sizeof(project_keys[0]))

int
grant_object_exists(struct incus *c, const char *path, struct box_err *e)
{
	struct incus_reply r;
	int rc = incus_get_opt(c, path, &r, e);

	if (rc > 0)
		incus_reply_free(&r);
	return rc;
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
	char path[64], desc[160];
	struct json_w w;
	int rc;

	*created = 0;
	snprintf(path, sizeof(path), "/1.0/networks/%s", u->bridge);
	rc = grant_object_exists(c, path, e);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	snprintf(desc, sizeof(desc), "box: incus-user's bridge for %s, made "
	    "first without addresses (its own would probe for a subnet); "
	    "the project may use only " CONTRACT_BRIDGE, u->project);
	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	json_w_key(&w, "name");
	json_w_str(&w, u->bridge);
	json_w_key(&w, "type");
	json_w_str(&w, "bridge");
	json_w_key(&w, "description");
	json_w_str(&w, desc);
	json_w_key(&w, "config");
	json_w_obj(&w);
	json_w_key(&w, "ipv4.address");
	json_w_str(&w, "none");
	json_w_key(&w, "ipv6.address");
	json_w_str(&w, "none");
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	rc = incus_send_json(c, "POST", "/1.0/networks", &w, 120, e);
	if (rc == 0)
		*created = 1;
	return rc;
}

int
grant_create_project(struct incus *c, const struct grant_user *u,
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
		{ "restricted.devices.disk", "allow" },
		{ "restricted.devices.gpu", "allow" },
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
		rc = incus_kv_set(&cfg, "restricted.devices.disk.paths",
		    u->home);
	if (rc == 0)
		rc = incus_kv_set(&cfg, "restricted.idmap.uid", uid);
	if (rc == 0)
		rc = incus_kv_set(&cfg, "restricted.idmap.gid", gid);
	for (i = 0; i < NPROJECT_KEYS && rc == 0; i++)
		rc = incus_kv_set(&cfg, project_keys[i].key,
		    project_keys[i].value);
	if (rc == 0)
		rc = incus_project_create(c, u->project, desc, &cfg, e);
	else
		rc = err_set(e, rc, "building the project %s", u->project);
	incus_kv_free(&cfg);
	return rc;
}

static int
is_nic(const struct json_doc *d, int dev)
{
	return json_streq(d, json_get(d, dev, "type"), "nic");
}

/* The project's default profile without any NIC (incus-user's eth0). */
static int
default_drop_nics(struct incus *pc, int *changed, struct box_err *e)
{
	struct incus_reply r;
	struct json_w w;
	int rc, dev, k, nics = 0;

	*changed = 0;
	rc = incus_call(pc, "GET", "/1.0/profiles/default", NULL, &r, e);
	if (rc < 0)
		return rc;
	dev = json_get(&r.doc, r.metadata, "devices");
	for (k = json_child(&r.doc, dev); k >= 0;
	    k = json_next(&r.doc, json_next(&r.doc, k)))
		nics += is_nic(&r.doc, json_next(&r.doc, k));
	if (nics == 0) {
		incus_reply_free(&r);
		return 0;
	}
	json_w_init(&w, BODY_MAX);
	json_w_obj(&w);
	json_w_key(&w, "description");
	json_w_raw(&w, "\"Default Incus profile (no NIC: boxes use box-net)\"",
	    strlen("\"Default Incus profile (no NIC: boxes use box-net)\""));
	json_w_key(&w, "config");
	{
		size_t n;
		const char *raw = json_raw(&r.doc, json_get(&r.doc,
		    r.metadata, "config"), &n);

		if (raw != NULL)
			json_w_raw(&w, raw, n);
		else
			json_w_raw(&w, "{}", 2);
	}
	json_w_key(&w, "devices");
	json_w_obj(&w);
	for (k = json_child(&r.doc, dev); k >= 0;
	    k = json_next(&r.doc, json_next(&r.doc, k))) {
		int v = json_next(&r.doc, k);
		char name[128];
		size_t n;
		const char *raw;

		if (is_nic(&r.doc, v) ||
		    json_str(&r.doc, k, name, sizeof(name)) < 0)
			continue;
		raw = json_raw(&r.doc, v, &n);
		json_w_key(&w, name);
		json_w_raw(&w, raw, n);
	}
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	incus_reply_free(&r);
	rc = incus_send_json(pc, "PUT", "/1.0/profiles/default", &w, 120, e);
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
project_config(struct incus *c, const struct grant_user *u, struct box_err *e)
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
grant_converge(struct incus *c, const struct grant_user *u, struct box_err *e)
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
		printf("  profile: %s's default profile has no NIC now "
		    "(incus-user put one on %s)\n", u->project, u->bridge);
	rc = project_config(c, u, e);
	if (rc < 0) {
		err_context(e, "restricting %s to " CONTRACT_BRIDGE,
		    u->project);
		err_fix(e, "an instance of %s on another network blocks it: "
		    "move or delete it, then box grant %s again", u->project,
		    u->name);
		goto out;
	}
	printf("  network: %s restricted to " CONTRACT_BRIDGE " (the private "
	    "%s has no address and is unreachable from it); snapshots "
	    "and backups allowed\n", u->project, u->bridge);
	rc = stack_ensure_profile(&pc, &changed, e);
	if (rc < 0) {
		err_context(e, "writing box-net in %s", u->project);
		goto out;
	}
	printf("  profile: box-net in %s %s (the contract's NIC and root "
	    "disk)\n", u->project, changed ? "written" : "already right");
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
	struct incus_reply r;
	struct incus pc;
	char line[160];
	int rc, dev, k, problems = 0, exists, ok;

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
	incus_project_free(&p);
	rc = grant_project_client(c, project, &pc, e);
	if (rc < 0)
		return rc;
	rc = incus_call(&pc, "GET", "/1.0/profiles/default", NULL, &r, e);
	if (rc == 0) {
		dev = json_get(&r.doc, r.metadata, "devices");
		for (k = json_child(&r.doc, dev); k >= 0;
		    k = json_next(&r.doc, json_next(&r.doc, k)))
			if (is_nic(&r.doc, json_next(&r.doc, k))) {
				note(bad, cap, "the default profile has a NIC");
				problems++;
				break;
			}
		incus_reply_free(&r);
		rc = stack_profile_check(&pc, &exists, &ok, e);
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
