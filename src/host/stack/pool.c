/*
 * pool.c - the storage pool boxes live on (see pool.h).
 *
 * Measured on this machine kind, same daemon and image: a launch from an
 * image already on the pool 6217 ms on dir, 384 ms on a btrfs loop pool;
 * a copy 1923 vs 98 ms; a snapshot 5665 vs 93 ms (issue 24).  A dir pool
 * copies every byte; btrfs, zfs and thin LVM share them.
 */
#include "host/stack/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "host/stack/contract.h"
#include "host/stack/stack.h"
#include "host/stack/sysd.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "incus/storage.h"
#include "util/text.h"

#define GIB (1024ull * 1024 * 1024)

int
pool_cow(const char *driver, const struct incus_kvs *cfg)
{
	return incus_driver_cow(driver, cfg);
}

/* The pool, or 0 when absent (e cleared); 1 with driver and cow filled. */
static int
look(struct incus *c, const char *name, char *drv, size_t cap, int *cow,
    struct box_err *e)
{
	struct incus_pool p;
	int rc = incus_pool_get(c, name, &p, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	if (rc < 0)
		return rc;
	snprintf(drv, cap, "%s", p.driver ? p.driver : "");
	*cow = pool_cow(p.driver, &p.config);
	incus_pool_free(&p);
	return 1;
}

/* The first existing pool that satisfies want (own pool first). */
static int
find_pool(struct incus *c, int want_cow, const char *want_driver,
    struct pool_choice *ch, struct box_err *e)
{
	char **names = NULL, drv[32];
	size_t n = 0, i;
	int rc, cow, pass;

	if ((rc = incus_pool_names(c, &names, &n, e)) < 0)
		return rc;
	rc = 0;
	for (pass = 0; pass < 2 && rc == 0; pass++)
		for (i = 0; i < n && rc == 0; i++) {
			int own = strcmp(names[i], CONTRACT_OWN_POOL) == 0;

			if (pass == 0 ? !own : own)
				continue;
			if (strlen(names[i]) >= sizeof(ch->name))
				continue;
			rc = look(c, names[i], drv, sizeof(drv), &cow, e);
			if (rc <= 0)
				continue;
			rc = 0;
			if ((want_cow && !cow) || (want_driver != NULL &&
			    strcmp(drv, want_driver) != 0))
				continue;
			snprintf(ch->name, sizeof(ch->name), "%s", names[i]);
			snprintf(ch->driver, sizeof(ch->driver), "%s", drv);
			rc = 1;
		}
	incus_names_free(names, n);
	return rc;
}

/* The directory the daemon keeps its loop files under. */
static const char *
incus_dir(void)
{
	const char *d = getenv("INCUS_DIR");

	return d != NULL && d[0] == '/' ? d : "/var/lib/incus";
}

/* Size of box's own pool: a quarter of free disk, floor and ceiling. */
static int
size_from_disk(struct pool_choice *ch, struct box_err *e)
{
	struct statvfs v;
	unsigned long long fr, q;

	if (statvfs(incus_dir(), &v) < 0)
		return err_set(e, -errno, "statvfs %s: %s", incus_dir(),
		    strerror(errno));
	fr = (unsigned long long)v.f_bavail * v.f_frsize / GIB;
	q = fr / 4;
	if (fr < POOL_FLOOR_GIB + 1) {
		err_set(e, -ENOSPC, "%llu GiB free under %s: too little for "
		    "box's own pool (at least %d GiB)", fr, incus_dir(),
		    POOL_FLOOR_GIB);
		err_fix(e, "free some disk, or name a size: box setup-host "
		    "--pool btrfs:<N>GiB");
		return -ENOSPC;
	}
	ch->size_gib = (unsigned)(q < POOL_FLOOR_GIB ? POOL_FLOOR_GIB :
	    q > POOL_CEIL_GIB ? POOL_CEIL_GIB : q);
	snprintf(ch->size_why, sizeof(ch->size_why), "a quarter of the %llu "
	    "GiB free under %s, at least %d and at most %d GiB", fr,
	    incus_dir(), POOL_FLOOR_GIB, POOL_CEIL_GIB);
	return 0;
}

/* "20GiB", "20G", "20": whole GiB. */
static int
size_parse(const char *s, struct pool_choice *ch, struct box_err *e)
{
	char num[16];
	size_t k = strspn(s, "0123456789");
	long n;

	if (k == 0 || k >= sizeof(num) || (strcmp(s + k, "") != 0 &&
	    strcmp(s + k, "G") != 0 && strcmp(s + k, "GiB") != 0))
		return err_usage(e, "--pool btrfs:%.32s: the size is whole "
		    "GiB, like btrfs:20GiB", s);
	memcpy(num, s, k);
	num[k] = '\0';
	if (text_uint(num, POOL_MIN_GIB, 1 << 20, &n) < 0)
		return err_usage(e, "--pool btrfs:%.32s: at least %d GiB", s,
		    POOL_MIN_GIB);
	ch->size_gib = (unsigned)n;
	snprintf(ch->size_why, sizeof(ch->size_why), "as asked");
	return 0;
}

/* A yes on the terminal (Enter is yes: the question offers the better). */
static int
ask_own(const struct pool_choice *ch)
{
	char line[16];
	size_t k;

	fprintf(stderr, "box: storage  no copy-on-write pool here: boxes on "
	    "'%s' (%s) are full copies at every new, clone and snapshot.\n"
	    "box: create box's own btrfs pool '%s' (%u GiB sparse loop file "
	    "under %s/disks)? [Y/n] ", ch->current[0] ? ch->current : "?",
	    ch->driver[0] ? ch->driver : "?", CONTRACT_OWN_POOL, ch->size_gib,
	    incus_dir());
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	k = strspn(line, " \t");
	return line[k] == '\n' || line[k] == '\0' || line[k] == 'y' ||
	    line[k] == 'Y';
}

static int
own_pool(struct incus *c, struct pool_choice *ch, const char *size,
    struct box_err *e)
{
	char drv[32];
	int cow, rc;

	rc = look(c, CONTRACT_OWN_POOL, drv, sizeof(drv), &cow, e);
	if (rc < 0)
		return rc;
	snprintf(ch->name, sizeof(ch->name), "%s", CONTRACT_OWN_POOL);
	if (rc > 0) {
		if (strcmp(drv, "btrfs") != 0) {
			err_set(e, -EEXIST, "a pool named '%s' exists with "
			    "driver %s, not btrfs", CONTRACT_OWN_POOL, drv);
			err_fix(e, "use it as it is: box setup-host --pool %s",
			    CONTRACT_OWN_POOL);
			return -EEXIST;
		}
		snprintf(ch->driver, sizeof(ch->driver), "btrfs");
		snprintf(ch->why, sizeof(ch->why), "box's own btrfs pool, "
		    "already there");
		return 0;
	}
	ch->create = 1;
	ch->driver[0] = '\0';
	rc = size != NULL ? size_parse(size, ch, e) : size_from_disk(ch, e);
	if (rc == 0)
		snprintf(ch->why, sizeof(ch->why), "box's own btrfs pool, "
		    "made now");
	return rc;
}

int
pool_decide(struct incus *c, const char *asked, int may_ask,
    struct pool_choice *ch, struct box_err *e)
{
	char drv[32];
	int rc, cow = 0, any;

	memset(ch, 0, sizeof(*ch));
	/* the pool in use: the profile's, else Incus's "default" */
	if ((rc = stack_profile_pool(c, ch->current, sizeof(ch->current),
	    e)) < 0)
		return rc;
	if (rc == 0)
		snprintf(ch->current, sizeof(ch->current), "%s", CONTRACT_POOL);
	any = ch->current[0] != '\0' && (rc = look(c, ch->current, drv,
	    sizeof(drv), &cow, e)) > 0;
	if (rc < 0)
		return rc;
	if (!any)
		ch->current[0] = '\0';
	snprintf(ch->fallback, sizeof(ch->fallback), "%s", ch->current);

	if (asked != NULL && strcmp(asked, "dir") == 0) {
		if (any && strcmp(drv, "dir") == 0) {
			snprintf(ch->name, sizeof(ch->name), "%s", ch->current);
			snprintf(ch->driver, sizeof(ch->driver), "dir");
		} else if ((rc = find_pool(c, 0, "dir", ch, e)) < 0) {
			return rc;
		} else if (rc == 0) {
			err_set(e, -ENOENT, "--pool dir: the daemon has no dir "
			    "pool");
			err_fix(e, "name one that exists: box setup-host --pool "
			    "<name>");
			return -ENOENT;
		}
		snprintf(ch->why, sizeof(ch->why), "asked for (--pool dir)");
		return 0;
	}
	if (asked != NULL && (strcmp(asked, "btrfs") == 0 ||
	    strncmp(asked, "btrfs:", 6) == 0))
		return own_pool(c, ch, asked[5] == ':' ? asked + 6 : NULL, e);
	if (asked != NULL) {
		if (strlen(asked) >= sizeof(ch->name) || strspn(asked,
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789-_.") != strlen(asked) || asked[0] == '.')
			return err_usage(e, "--pool %.64s: dir, btrfs[:SIZE] "
			    "or an existing pool's name", asked);
		rc = look(c, asked, drv, sizeof(drv), &cow, e);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			err_set(e, -ENOENT, "--pool %s: no such pool", asked);
			err_fix(e, "incus storage list shows them; --pool "
			    "btrfs makes box's own");
			return -ENOENT;
		}
		snprintf(ch->name, sizeof(ch->name), "%s", asked);
		snprintf(ch->driver, sizeof(ch->driver), "%s", drv);
		snprintf(ch->why, sizeof(ch->why), "asked for (--pool %s)",
		    asked);
		return 0;
	}
	/* nothing asked */
	if (any && cow) {
		snprintf(ch->name, sizeof(ch->name), "%s", ch->current);
		snprintf(ch->driver, sizeof(ch->driver), "%s", drv);
		snprintf(ch->why, sizeof(ch->why), "in use, copy-on-write");
		return 0;
	}
	if ((rc = find_pool(c, 1, NULL, ch, e)) != 0) {
		if (rc > 0)
			snprintf(ch->why, sizeof(ch->why), "an existing "
			    "copy-on-write pool, used as it is");
		return rc < 0 ? rc : 0;
	}
	if (!any) {
		/* no pool at all (else "default" would be in use) */
		if ((rc = find_pool(c, 0, NULL, ch, e)) != 0) {
			if (rc > 0)
				snprintf(ch->why, sizeof(ch->why), "the only "
				    "kind of pool here");
			return rc < 0 ? rc : 0;
		}
		snprintf(ch->name, sizeof(ch->name), "%s", CONTRACT_POOL);
		ch->create_default = 1;
		snprintf(ch->why, sizeof(ch->why), "the daemon had no pool");
		return 0;
	}
	snprintf(ch->name, sizeof(ch->name), "%s", ch->current);
	snprintf(ch->driver, sizeof(ch->driver), "%s", drv);
	snprintf(ch->why, sizeof(ch->why), "in use");
	if (may_ask) {
		struct pool_choice own = *ch;
		struct box_err le;

		err_clear(&le);
		if (own_pool(c, &own, NULL, &le) == 0 && ask_own(&own))
			*ch = own;
	}
	return 0;
}

/* Is the btrfs tool on PATH (the daemon needs btrfs-progs for the pool)? */
static int
btrfs_tools(void)
{
	const char *path = getenv("PATH");
	char dir[512], f[600];
	size_t k;

	while (path != NULL && *path != '\0') {
		k = strcspn(path, ":");
		if (k > 0 && k < sizeof(dir)) {
			memcpy(dir, path, k);
			dir[k] = '\0';
			snprintf(f, sizeof(f), "%s/btrfs", dir);
			if (access(f, X_OK) == 0)
				return 1;
		}
		path += k + (path[k] == ':');
	}
	return 0;
}

static int
install_btrfs_progs(struct box_err *e)
{
	char *update[] = { "apt-get", "update", NULL };
	char *install[] = { "apt-get", "install", "-y",
	    "--no-install-recommends", "btrfs-progs", NULL };
	struct box_err first;

	fprintf(stderr, "box: storage  btrfs-progs is missing: installing it "
	    "(apt-get install btrfs-progs)...\n");
	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
	err_clear(&first);
	if (sysd_run(install, &first) == 0)
		return 0;
	if (sysd_run(update, e) < 0 || sysd_run(install, e) < 0)
		return -EHOSTUNREACH;
	return 0;
}

static int
create(struct incus *c, const char *name, const char *driver,
    unsigned size_gib, struct box_err *e)
{
	struct incus_pool p = {
		.name = (char *)name,
		.driver = (char *)driver,
		.description = "box: storage for boxes",
	};
	char size[32];
	int rc;

	snprintf(size, sizeof(size), "%uGiB", size_gib);
	/* on a cluster the size is each member's (its pending part) */
	if ((rc = incus_cluster_pending(c, 1, name, driver, size_gib > 0 ? "size" : NULL, size, e)) < 0)
		return rc;
	if (rc == 1)
		size_gib = 0;
	if (size_gib > 0 && incus_kv_set(&p.config, "size", size) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_pool_create(c, &p, e);
	incus_kv_free(&p.config);
	return rc;
}

int
pool_ensure(struct incus *c, struct pool_choice *ch, int *created,
    char *warn, size_t cap, struct box_err *e)
{
	struct box_err le;
	int rc, cow;

	*created = 0;
	warn[0] = '\0';
	if (ch->create_default) {
		/* btrfs gives copy-on-write snapshots and clones; dir copies */
		err_clear(&le);
		if (create(c, ch->name, "btrfs", 0, &le) < 0 &&
		    (rc = create(c, ch->name, "dir", 0, e)) < 0)
			return rc;
		*created = 1;
	} else if (ch->create) {
		err_clear(&le);
		if (!btrfs_tools() && install_btrfs_progs(&le) < 0) {
			snprintf(warn, cap, "no package source answered (%s): "
			    "box's own btrfs pool needs btrfs-progs, so boxes "
			    "stay on pool '%s'.  Install btrfs-progs (apt-get "
			    "install btrfs-progs, or its .deb by hand), then "
			    "run box setup-host --pool btrfs", le.msg,
			    ch->fallback[0] ? ch->fallback : CONTRACT_POOL);
			snprintf(ch->name, sizeof(ch->name), "%s",
			    ch->fallback[0] ? ch->fallback : CONTRACT_POOL);
			ch->create = 0;
		} else {
			if ((rc = create(c, ch->name, "btrfs", ch->size_gib,
			    e)) < 0) {
				err_context(e, "creating box's own btrfs pool "
				    "'%s' (%u GiB)", ch->name, ch->size_gib);
				return rc;
			}
			*created = 1;
		}
	}
	rc = look(c, ch->name, ch->driver, sizeof(ch->driver), &cow, e);
	if (rc == 0)
		rc = err_set(e, -ENOENT, "pool %s is not there", ch->name);
	return rc < 0 ? rc : 0;
}

int
pool_pin_boxes(struct incus *c, const char *from, int *n, struct box_err *e)
{
	struct incus_instance_list l;
	struct incus_devices d = { 0 };
	struct incus_kvs root = { 0 };
	size_t i, k;
	int rc;

	*n = 0;
	if ((rc = incus_instance_list(c, NULL, 0, &l, e)) < 0)
		return rc;
	if (incus_kv_set(&root, "type", "disk") < 0 ||
	    incus_kv_set(&root, "path", "/") < 0 ||
	    incus_kv_set(&root, "pool", from) < 0 ||
	    incus_dev_set(&d, "root", &root) < 0)
		rc = err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < l.n && rc == 0; i++) {
		const struct incus_instance *in = &l.v[i];
		int on = 0;

		for (k = 0; k < in->nprofiles; k++)
			on |= strcmp(in->profiles[k], CONTRACT_PROFILE) == 0;
		if (!on || incus_dev_get(&in->devices, "root") != NULL)
			continue;
		rc = incus_instance_patch(c, in->name, NULL, &d,
		    in->description, 120, e);
		if (rc < 0)
			err_context(e, "keeping box %s on pool %s", in->name,
			    from);
		else
			(*n)++;
	}
	incus_kv_free(&root);
	incus_dev_free(&d);
	incus_instance_list_free(&l);
	return rc;
}

int
pool_remove_own(struct incus *c, int *removed, char *loop, size_t cap,
    struct box_err *e)
{
	struct incus_pool p;
	struct incus_volume_refs v;
	size_t i;
	int rc;

	*removed = 0;
	loop[0] = '\0';
	rc = incus_pool_get(c, CONTRACT_OWN_POOL, &p, e);
	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	if (rc < 0)
		return rc;
	snprintf(loop, cap, "%s", incus_kv_or(&p.config, "source", ""));
	if (loop[0] != '/' || strstr(loop, ".img") == NULL)
		loop[0] = '\0';		/* a device or a directory: not ours */
	incus_pool_free(&p);
	/* the daemon's cached images on it go first (it refuses otherwise) */
	if ((rc = incus_pool_volumes(c, CONTRACT_OWN_POOL, "image", &v,
	    e)) < 0)
		return rc;
	for (i = 0; i < v.n && rc == 0; i++)
		if (v.v[i].snapshot == NULL)
			rc = incus_pool_volume_delete(c, CONTRACT_OWN_POOL,
			    "image", v.v[i].name, 120, e);
	incus_volume_refs_free(&v);
	if (rc == 0)
		rc = incus_pool_delete(c, CONTRACT_OWN_POOL, e);
	if (rc < 0) {
		err_context(e, "removing box's own pool '%s'",
		    CONTRACT_OWN_POOL);
		return rc;
	}
	*removed = 1;
	return 0;
}

int
pool_own_left(struct incus *c, const char *loop)
{
	struct incus_pool p;
	struct box_err le;
	int rc;

	err_clear(&le);
	rc = incus_pool_get(c, CONTRACT_OWN_POOL, &p, &le);
	incus_pool_free(&p);
	if (rc != -ENOENT)
		return 1;
	return loop != NULL && loop[0] != '\0' && access(loop, F_OK) == 0;
}
