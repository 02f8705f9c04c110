/*
 * storage.h - Incus storage pools and the names of their volumes.
 * An absent pool is -ENOENT from incus_pool_get().
 */
#ifndef BOX_STORAGE_H
#define BOX_STORAGE_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"

#define INCUS_VOLUMES_MAX 65536	/* volume names in one pool we read */

struct incus_pool {
	char *name;
	char *driver;		/* "btrfs", "dir", "zfs", ... */
	char *description;
	char *status;		/* read only */
	struct incus_kvs config;
};

/*
 * A volume named by its URL: /1.0/storage-pools/<p>/volumes/<type>/<name>,
 * or one of its snapshots: .../<type>/<name>/snapshots/<snapshot>.
 */
struct incus_volume_ref {
	char *type;		/* "container", "virtual-machine", "custom", ... */
	char *name;		/* decoded, one segment */
	char *snapshot;		/* NULL, or the snapshot's name of name */
};

struct incus_volume_refs {
	struct incus_volume_ref *v;
	size_t n;
};

/*
 * What a driver gives a box: copy-on-write snapshots and copies (btrfs,
 * zfs, thin lvm; cfg may be NULL), and a container's root disk size
 * enforced (btrfs qgroups, zfs quotas, lvm volumes).  dir gives neither.
 */
int incus_driver_cow(const char *driver, const struct incus_kvs *cfg);
int incus_driver_quota(const char *driver);

int incus_pool_get(struct incus *c, const char *name, struct incus_pool *p,
    struct box_err *e);
/* POST: name, driver, description (when set), config. */
int incus_pool_create(struct incus *c, const struct incus_pool *p,
    struct box_err *e);
/* The pool's driver into buf: 0, -ENOENT, -EBOX_PROTO when it names none. */
int incus_pool_driver(struct incus *c, const char *name, char *buf,
    size_t cap, struct box_err *e);
/* The names of every pool (decoded from their URLs). */
/* The pool's free bytes (GET .../resources: space.total - space.used):
 * 0 with *avail, or < 0 (*avail -1). */
int incus_pool_space(struct incus *c, const char *name, long long *avail,
    struct box_err *e);
int incus_pool_names(struct incus *c, char ***names, size_t *n,
    struct box_err *e);
void incus_names_free(char **names, size_t n);
/* The volumes of pool (type NULL: every type), names only. */
int incus_pool_volumes(struct incus *c, const char *pool, const char *type,
    struct incus_volume_refs *l, struct box_err *e);
/* DELETE the custom volume name of pool and wait: 0, -ENOENT, -errno. */
int incus_volume_delete(struct incus *c, const char *pool, const char *name,
    int timeout_s, struct box_err *e);
/* DELETE a volume of type "custom" or "image" of pool, and wait. */
int incus_pool_volume_delete(struct incus *c, const char *pool,
    const char *type, const char *name, int timeout_s, struct box_err *e);
/* DELETE the pool (empty of volumes): 0, -ENOENT, -errno. */
int incus_pool_delete(struct incus *c, const char *name, struct box_err *e);
void incus_pool_free(struct incus_pool *p);
void incus_volume_refs_free(struct incus_volume_refs *l);

/* Parsers (tests, fuzzers).  prefix: the URL part before "<type>/<name>". */
int incus_pool_from_json(struct incus_pool *p, const struct json_doc *d,
    int obj);
int incus_volume_refs_from_json(struct incus_volume_refs *l,
    const struct json_doc *d, int arr, const char *prefix);
/* A list of URLs under prefix into decoded last segments. */
int incus_names_from_json(char ***names, size_t *n, const struct json_doc *d,
    int arr, const char *prefix);

#endif
