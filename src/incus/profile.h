/*
 * profile.h - Incus profiles as structs: config and devices as kv maps.
 * An absent profile is -ENOENT from incus_profile_get().
 */
#ifndef BOX_PROFILE_H
#define BOX_PROFILE_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"

struct incus_profile {
	char *name;
	char *description;
	struct incus_kvs config;
	struct incus_devices devices;
};

/* 0 with p filled (free with incus_profile_free()), -ENOENT, or -errno. */
int incus_profile_get(struct incus *c, const char *name,
    struct incus_profile *p, struct box_err *e);

/* POST: p's name, description (when set), config and devices. */
int incus_profile_create(struct incus *c, const struct incus_profile *p,
    struct box_err *e);

/* PUT: replaces description, config and devices with p's. */
int incus_profile_put(struct incus *c, const char *name,
    const struct incus_profile *p, struct box_err *e);

int incus_profile_delete(struct incus *c, const char *name,
    struct box_err *e);

void incus_profile_free(struct incus_profile *p);

/* --- the list of names --- */

struct incus_profile_names {
	char **v;		/* owned */
	size_t n;
};

/* The names of the caller's project's profiles. */
int incus_profile_names(struct incus *c,
    struct incus_profile_names *out, struct box_err *e);
void incus_profile_names_free(struct incus_profile_names *l);

/*
 * The parser (tests, fuzzing): the list of URLs ("/1.0/profiles/<name>",
 * "?project=" allowed), each name unescaped.  -EBADMSG for anything else.
 */
int incus_profile_names_parse(struct incus_profile_names *l,
    const struct json_doc *d, int arr);

/* The parser (obj: the reply's metadata); -EBADMSG for a foreign shape. */
int incus_profile_from_json(struct incus_profile *p, const struct json_doc *d,
    int obj);

#endif
