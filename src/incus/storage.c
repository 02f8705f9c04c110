/* storage.c - storage pools and their volumes' names (see storage.h). */
#include "incus/storage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/res.h"

#define POOLS "/1.0/storage-pools"

int
incus_driver_cow(const char *driver, const struct incus_kvs *cfg)
{
	const char *thin;

	if (driver == NULL)
		return 0;
	if (strcmp(driver, "btrfs") == 0 || strcmp(driver, "zfs") == 0)
		return 1;
	/* lvm is thin unless told otherwise (lvm.use_thinpool=false) */
	thin = cfg != NULL ? incus_kv_or(cfg, "lvm.use_thinpool", "true") :
	    "true";
	return strcmp(driver, "lvm") == 0 && strcmp(thin, "false") != 0;
}

int
incus_driver_quota(const char *driver)
{
	return driver != NULL && (strcmp(driver, "btrfs") == 0 ||
	    strcmp(driver, "zfs") == 0 || strcmp(driver, "lvm") == 0);
}

void
incus_pool_free(struct incus_pool *p)
{
	res_free(&p->name);
	res_free(&p->driver);
	res_free(&p->description);
	res_free(&p->status);
	incus_kv_free(&p->config);
}

int
incus_pool_from_json(struct incus_pool *p, const struct json_doc *d, int obj)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	if ((rc = res_str(d, obj, "name", &p->name)) < 0 ||
	    (rc = res_str(d, obj, "driver", &p->driver)) < 0 ||
	    (rc = res_str(d, obj, "description", &p->description)) < 0 ||
	    (rc = res_str(d, obj, "status", &p->status)) < 0 ||
	    (rc = incus_kv_from_json(&p->config, d,
	    json_get(d, obj, "config"))) < 0)
		incus_pool_free(p);
	return rc;
}

int
incus_pool_get(struct incus *c, const char *name, struct incus_pool *p,
    struct box_err *e)
{
	struct incus_reply r;
	char path[600];
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = res_path(path, sizeof(path), POOLS, name, NULL)) < 0)
		return err_set(e, rc, "odd pool name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) < 0)
		return rc;
	rc = incus_pool_from_json(p, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's description of pool %s is not one box "
		    "understands", name);
	return 0;
}

int
incus_pool_driver(struct incus *c, const char *name, char *buf, size_t cap,
    struct box_err *e)
{
	struct incus_pool p;
	int rc = incus_pool_get(c, name, &p, e);

	if (rc < 0)
		return rc;
	if (p.driver == NULL)
		rc = err_set(e, -EBOX_PROTO, "pool %s has no driver", name);
	else
		snprintf(buf, cap, "%s", p.driver);
	incus_pool_free(&p);
	return rc;
}

int
incus_pool_create(struct incus *c, const struct incus_pool *p,
    struct box_err *e)
{
	struct json_w w;

	if (p->name == NULL || *p->name == '\0' || p->driver == NULL)
		return err_set(e, -EINVAL, "a pool needs a name and a driver");
	json_w_init(&w, RES_BODY_MAX);
	json_w_obj(&w);
	res_w_opt(&w, "name", p->name);
	res_w_opt(&w, "driver", p->driver);
	res_w_opt(&w, "description", p->description);
	json_w_key(&w, "config");
	incus_kv_to_json(&w, &p->config);
	json_w_end(&w, '}');
	return res_send(c, "POST", POOLS, &w, e);
}

int
incus_pool_delete(struct incus *c, const char *name, struct box_err *e)
{
	char path[600];
	int rc;

	if ((rc = res_path(path, sizeof(path), POOLS, name, NULL)) < 0)
		return err_set(e, rc, "odd pool name '%.64s'", name);
	return res_delete(c, path, e);
}

/* --- names from URL lists --------------------------------------------------- */

/* The URL string at token i with prefix removed, and any query dropped. */
static int
url_tail(const struct json_doc *d, int i, const char *prefix, char *buf,
    size_t cap, const char **tail, size_t *n)
{
	size_t pl = strlen(prefix);

	if (json_type(d, i) != JSON_STRING || json_str(d, i, buf, cap) < 0 ||
	    strncmp(buf, prefix, pl) != 0)
		return -EBADMSG;
	*tail = buf + pl;
	*n = strcspn(*tail, "?");
	return *n > 0 ? 0 : -EBADMSG;
}

void
incus_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
incus_names_from_json(char ***names, size_t *n, const struct json_doc *d,
    int arr, const char *prefix)
{
	char buf[1024];
	const char *t;
	size_t len;
	int i, cnt, rc = 0;

	*names = NULL;
	*n = 0;
	if (json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((cnt = json_count(d, arr)) > INCUS_VOLUMES_MAX)
		return -E2BIG;
	if (cnt == 0)
		return 0;
	if ((*names = calloc((size_t)cnt, sizeof(**names))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i)) {
		if ((rc = url_tail(d, i, prefix, buf, sizeof(buf), &t,
		    &len)) < 0)
			break;
		if (((*names)[(*n)++] = url_segment(t, len)) == NULL)
			rc = -EBADMSG;
	}
	if (rc < 0) {
		incus_names_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return rc;
}

int
incus_pool_names(struct incus *c, char ***names, size_t *n, struct box_err *e)
{
	struct incus_reply r;
	int rc;

	*names = NULL;
	*n = 0;
	if ((rc = res_get(c, POOLS, JSON_ARRAY, &r, e)) < 0)
		return rc;
	rc = incus_names_from_json(names, n, &r.doc, r.metadata, POOLS "/");
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "daemon's list of pools is not one box understands");
	return 0;
}

void
incus_volume_refs_free(struct incus_volume_refs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].type);
		free(l->v[i].name);
		free(l->v[i].snapshot);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * "<type>/<name>" or "<type>/<name>/snapshots/<snap>" into x, each segment
 * decoded on its own.  Anything else is -EBADMSG, x left for the caller's
 * free.
 */
static int
volume_ref(struct incus_volume_ref *x, const char *t, size_t len)
{
	static const char snaps[] = "/snapshots/";
	const char *end = t + len, *a, *b;

	if ((a = memchr(t, '/', len)) == NULL)
		return -EBADMSG;
	if ((x->type = url_segment(t, (size_t)(a - t))) == NULL)
		return -EBADMSG;
	a++;
	if ((b = memchr(a, '/', (size_t)(end - a))) == NULL)
		b = end;
	if ((x->name = url_segment(a, (size_t)(b - a))) == NULL)
		return -EBADMSG;
	if (b == end)
		return 0;
	if ((size_t)(end - b) <= sizeof(snaps) - 1 ||
	    memcmp(b, snaps, sizeof(snaps) - 1) != 0)
		return -EBADMSG;
	b += sizeof(snaps) - 1;
	x->snapshot = url_segment(b, (size_t)(end - b));
	return x->snapshot != NULL ? 0 : -EBADMSG;
}

int
incus_volume_refs_from_json(struct incus_volume_refs *l,
    const struct json_doc *d, int arr, const char *prefix)
{
	char buf[1024];
	const char *t;
	size_t len;
	int i, cnt, rc = 0;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) == JSON_NULL)
		return 0;
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((cnt = json_count(d, arr)) > INCUS_VOLUMES_MAX)
		return -E2BIG;
	if (cnt == 0)
		return 0;
	if ((l->v = calloc((size_t)cnt, sizeof(*l->v))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0 && rc == 0; i = json_next(d, i)) {
		if ((rc = url_tail(d, i, prefix, buf, sizeof(buf), &t,
		    &len)) < 0)
			break;
		rc = volume_ref(&l->v[l->n++], t, len);
	}
	if (rc < 0)
		incus_volume_refs_free(l);
	return rc;
}

int
incus_pool_volumes(struct incus *c, const char *pool, const char *type,
    struct incus_volume_refs *l, struct box_err *e)
{
	struct incus_reply r;
	char path[800], prefix[700];
	int rc;

	memset(l, 0, sizeof(*l));
	if (type != NULL && (strlen(type) > 64 || strchr(type, '/') ||
	    strchr(type, '?')))
		return err_set(e, -EINVAL, "odd volume type '%.64s'", type);
	if ((rc = res_path(prefix, sizeof(prefix), POOLS, pool,
	    "/volumes")) < 0)
		return err_set(e, rc, "odd pool name '%.64s'", pool);
	snprintf(path, sizeof(path), "%s%s%.64s", prefix, type ? "/" : "",
	    type ? type : "");
	if ((rc = res_get(c, path, JSON_ARRAY, &r, e)) < 0)
		return rc;
	strcat(prefix, "/");
	rc = incus_volume_refs_from_json(l, &r.doc, r.metadata, prefix);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -ENOMEM ? rc : -EBOX_PROTO, "the "
		    "volumes of pool %s are not a list box understands", pool);
	return 0;
}

int
incus_volume_delete(struct incus *c, const char *pool, const char *name,
    int timeout_s, struct box_err *e)
{
	return incus_pool_volume_delete(c, pool, "custom", name, timeout_s, e);
}

int
incus_pool_volume_delete(struct incus *c, const char *pool, const char *type,
    const char *name, int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char path[1100], p[400], n[600];
	int rc;

	if (pool[0] == '\0' || name[0] == '\0' ||
	    (strcmp(type, "custom") != 0 && strcmp(type, "image") != 0) ||
	    url_escape(pool, p, sizeof(p)) < 0 ||
	    url_escape(name, n, sizeof(n)) < 0)
		return err_set(e, -EINVAL, "odd volume '%.64s' in pool "
		    "'%.64s'", name, pool);
	snprintf(path, sizeof(path), "/1.0/storage-pools/%s/volumes/%s/%s",
	    p, type, n);
	rc = incus_do(c, "DELETE", path, NULL, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}

int
incus_pool_space(struct incus *c, const char *name, long long *avail,
    struct box_err *e)
{
	struct incus_reply r;
	long long total, used;
	char path[600];
	int rc, sp;

	*avail = -1;
	if ((rc = res_path(path, sizeof(path), POOLS, name, "/resources")) < 0)
		return err_set(e, rc, "odd pool name '%.64s'", name);
	if ((rc = res_get(c, path, JSON_OBJECT, &r, e)) < 0)
		return rc;
	sp = json_get(&r.doc, r.metadata, "space");
	if (sp < 0 || json_int(&r.doc, json_get(&r.doc, sp, "total"),
	    &total) < 0 || json_int(&r.doc, json_get(&r.doc, sp, "used"),
	    &used) < 0 || total <= 0 || used < 0)
		rc = err_set(e, -EBOX_PROTO, "the daemon gave no space for "
		    "pool %s", name);
	else
		*avail = used >= total ? 0 : total - used;
	incus_reply_free(&r);
	return rc;
}
