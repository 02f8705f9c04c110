/*
 * kv.c - owned string maps and device maps read from and written to the
 * daemon's JSON.  See kv.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "incus/kv.h"

static struct incus_kv *
kv_find(const struct incus_kvs *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->v[i].key, key) == 0)
			return &m->v[i];
	return NULL;
}

const char *
incus_kv_get(const struct incus_kvs *m, const char *key)
{
	const struct incus_kv *kv = kv_find(m, key);

	return kv ? kv->value : NULL;
}

const char *
incus_kv_or(const struct incus_kvs *m, const char *key, const char *def)
{
	const char *v = incus_kv_get(m, key);

	return v ? v : def;
}

/* Take ownership of key and value (both freed on failure). */
static int
kv_put_owned(struct incus_kvs *m, char *key, char *value)
{
	struct incus_kv *kv = kv_find(m, key), *nv;

	if (kv) {
		free(key);
		free(kv->value);
		kv->value = value;
		return 0;
	}
	if (m->n >= INCUS_KV_MAX) {
		free(key);
		free(value);
		return -E2BIG;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;

		if ((nv = realloc(m->v, cap * sizeof(*nv))) == NULL) {
			free(key);
			free(value);
			return -ENOMEM;
		}
		m->v = nv;
		m->cap = cap;
	}
	m->v[m->n].key = key;
	m->v[m->n].value = value;
	m->n++;
	return 0;
}

int
incus_kv_set(struct incus_kvs *m, const char *key, const char *value)
{
	char *k = strdup(key), *v = strdup(value);

	if (k == NULL || v == NULL) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	return kv_put_owned(m, k, v);
}

int
incus_kv_del(struct incus_kvs *m, const char *key)
{
	struct incus_kv *kv = kv_find(m, key);
	size_t i;

	if (kv == NULL)
		return 0;
	i = (size_t)(kv - m->v);
	free(kv->key);
	free(kv->value);
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(m->v[0]));
	m->n--;
	return 1;
}

int
incus_kv_copy(struct incus_kvs *dst, const struct incus_kvs *src)
{
	size_t i;
	int rc;

	for (i = 0; i < src->n; i++)
		if ((rc = incus_kv_set(dst, src->v[i].key, src->v[i].value)) < 0)
			return rc;
	return 0;
}

void
incus_kv_free(struct incus_kvs *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].value);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

int
incus_kv_from_json(struct incus_kvs *m, const struct json_doc *d, int obj)
{
	int k, rc;

	incus_kv_free(m);
	/* null: an instance on a cluster member that is down */
	if (obj == JSON_NONE || json_type(d, obj) == JSON_NULL)
		return 0;
	if (json_type(d, obj) != JSON_OBJECT)
		return -EBADMSG;
	for (k = json_child(d, obj); k >= 0; k = json_next(d, json_next(d, k))) {
		int v = json_next(d, k);
		char *key, *val;

		if (v < 0 || json_type(d, v) != JSON_STRING)
			goto bad;
		if ((key = json_strdup(d, k)) == NULL)
			goto nomem;
		if (kv_find(m, key)) {
			free(key);
			goto bad;
		}
		if ((val = json_strdup(d, v)) == NULL) {
			free(key);
			goto nomem;
		}
		if ((rc = kv_put_owned(m, key, val)) < 0) {
			incus_kv_free(m);
			return rc;
		}
	}
	return 0;
bad:
	incus_kv_free(m);
	return -EBADMSG;
nomem:
	incus_kv_free(m);
	return -ENOMEM;
}

void
incus_kv_to_json(struct json_w *w, const struct incus_kvs *m)
{
	size_t i;

	json_w_obj(w);
	for (i = 0; i < m->n; i++) {
		json_w_key(w, m->v[i].key);
		json_w_str(w, m->v[i].value);
	}
	json_w_end(w, '}');
}

static struct incus_device *
dev_find(const struct incus_devices *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->v[i].name, name) == 0)
			return &d->v[i];
	return NULL;
}

const struct incus_kvs *
incus_dev_get(const struct incus_devices *d, const char *name)
{
	const struct incus_device *dev = dev_find(d, name);

	return dev ? &dev->kv : NULL;
}

const char *
incus_dev_key(const struct incus_devices *d, const char *name,
    const char *key)
{
	const struct incus_kvs *kv = incus_dev_get(d, name);

	return kv ? incus_kv_get(kv, key) : NULL;
}

/* A new empty device slot named name (owned), or NULL. */
static struct incus_device *
dev_add(struct incus_devices *d, char *name, int *rc)
{
	struct incus_device *nv;

	*rc = -E2BIG;
	if (d->n >= INCUS_DEV_MAX)
		return NULL;
	*rc = -ENOMEM;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;

		if ((nv = realloc(d->v, cap * sizeof(*nv))) == NULL)
			return NULL;
		d->v = nv;
		d->cap = cap;
	}
	nv = &d->v[d->n++];
	memset(nv, 0, sizeof(*nv));
	nv->name = name;
	*rc = 0;
	return nv;
}

int
incus_dev_set(struct incus_devices *d, const char *name,
    const struct incus_kvs *kv)
{
	struct incus_device *dev = dev_find(d, name);
	char *n;
	int rc;

	if (dev) {
		incus_kv_free(&dev->kv);
		return incus_kv_copy(&dev->kv, kv);
	}
	if ((n = strdup(name)) == NULL)
		return -ENOMEM;
	if ((dev = dev_add(d, n, &rc)) == NULL) {
		free(n);
		return rc;
	}
	return incus_kv_copy(&dev->kv, kv);
}

int
incus_dev_del(struct incus_devices *d, const char *name)
{
	struct incus_device *dev = dev_find(d, name);
	size_t i;

	if (dev == NULL)
		return 0;
	i = (size_t)(dev - d->v);
	free(dev->name);
	incus_kv_free(&dev->kv);
	memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof(d->v[0]));
	d->n--;
	return 1;
}

int
incus_dev_copy(struct incus_devices *dst, const struct incus_devices *src)
{
	size_t i;
	int rc;

	for (i = 0; i < src->n; i++)
		if ((rc = incus_dev_set(dst, src->v[i].name, &src->v[i].kv)) < 0)
			return rc;
	return 0;
}

void
incus_dev_free(struct incus_devices *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].name);
		incus_kv_free(&d->v[i].kv);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

int
incus_dev_from_json(struct incus_devices *d, const struct json_doc *doc,
    int obj)
{
	int k, rc = 0;

	incus_dev_free(d);
	if (obj == JSON_NONE || json_type(doc, obj) == JSON_NULL)
		return 0;
	if (json_type(doc, obj) != JSON_OBJECT)
		return -EBADMSG;
	for (k = json_child(doc, obj); k >= 0;
	    k = json_next(doc, json_next(doc, k))) {
		struct incus_device *dev;
		char *name;

		if ((name = json_strdup(doc, k)) == NULL) {
			rc = -ENOMEM;
			break;
		}
		if (dev_find(d, name)) {
			free(name);
			rc = -EBADMSG;
			break;
		}
		if ((dev = dev_add(d, name, &rc)) == NULL) {
			free(name);
			break;
		}
		if ((rc = incus_kv_from_json(&dev->kv, doc,
		    json_next(doc, k))) < 0)
			break;
	}
	if (rc < 0)
		incus_dev_free(d);
	return rc;
}

void
incus_dev_to_json(struct json_w *w, const struct incus_devices *d)
{
	size_t i;

	json_w_obj(w);
	for (i = 0; i < d->n; i++) {
		json_w_key(w, d->v[i].name);
		incus_kv_to_json(w, &d->v[i].kv);
	}
	json_w_end(w, '}');
}
