/*
 * kv.h - the daemon's string maps (config, a device's keys) as owned
 * key/value arrays, and devices as named maps.
 *
 * The typed resource layer hands these to callers instead of JSON tokens:
 * a caller asks incus_kv_get(&net.config, "ipv4.address") and never sees the
 * reply it came from.  Every Incus config value is a JSON string; a member
 * of any other type is refused when read (a daemon that sends one is not one
 * we understand), as is a key that appears twice.  Sizes are bounded so a
 * hostile reply cannot make us allocate without limit.
 */
#ifndef BOX_KV_H
#define BOX_KV_H

#include <stddef.h>

#include "incus/json.h"

#define INCUS_KV_MAX	4096	/* members in one map */
#define INCUS_DEV_MAX	256	/* devices on one object */

struct incus_kv {
	char *key;
	char *value;
};

struct incus_kvs {
	struct incus_kv *v;
	size_t n, cap;
};

struct incus_device {
	char *name;
	struct incus_kvs kv;
};

struct incus_devices {
	struct incus_device *v;
	size_t n, cap;
};

/* The value of key, or NULL when the map has none. */
const char *incus_kv_get(const struct incus_kvs *m, const char *key);
/* Like incus_kv_get() but def for a missing key. */
const char *incus_kv_or(const struct incus_kvs *m, const char *key,
    const char *def);
/* Replace or add: 0, -ENOMEM, -E2BIG (map full). */
int incus_kv_set(struct incus_kvs *m, const char *key, const char *value);
/* Remove key if present (order of the rest kept): 1 removed, 0 absent. */
int incus_kv_del(struct incus_kvs *m, const char *key);
int incus_kv_copy(struct incus_kvs *dst, const struct incus_kvs *src);
void incus_kv_free(struct incus_kvs *m);

/*
 * Read a JSON object of strings into m (emptied first).  JSON_NONE (the key
 * was absent) gives an empty map.  -EBADMSG for a non-object, a non-string
 * value or a duplicated key; -E2BIG beyond INCUS_KV_MAX.
 */
int incus_kv_from_json(struct incus_kvs *m, const struct json_doc *d,
    int obj);
/* Write m as one JSON object value. */
void incus_kv_to_json(struct json_w *w, const struct incus_kvs *m);

/* A device's keys by its name, or NULL. */
const struct incus_kvs *incus_dev_get(const struct incus_devices *d,
    const char *name);
/* The value of key in device name, or NULL. */
const char *incus_dev_key(const struct incus_devices *d, const char *name,
    const char *key);
/* Replace or add a device with a copy of kv. */
int incus_dev_set(struct incus_devices *d, const char *name,
    const struct incus_kvs *kv);
int incus_dev_del(struct incus_devices *d, const char *name);
int incus_dev_copy(struct incus_devices *dst, const struct incus_devices *src);
void incus_dev_free(struct incus_devices *d);
/* The devices object {"name": {...}, ...}; rules as incus_kv_from_json(). */
int incus_dev_from_json(struct incus_devices *d, const struct json_doc *doc,
    int obj);
void incus_dev_to_json(struct json_w *w, const struct incus_devices *d);

#endif
