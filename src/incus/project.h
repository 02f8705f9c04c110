/*
 * project.h - Incus projects as structs: one read with its config map,
 * create, whole-object write, delete, and the list.
 *
 * A project's config is where its restrictions and features.* live; the
 * caller reads and changes it through incus_kv_* and never sees the reply
 * it came from.  Names are bounded (INCUS_PROJECT_NAME); a reply whose
 * name does not fit, or whose config holds a non-string, is refused, not
 * truncated: a write built from a half-read project would lose keys.
 */
#ifndef BOX_PROJECT_H
#define BOX_PROJECT_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"
#include "util/err.h"

#define INCUS_PROJECT_NAME	64	/* bytes, with the NUL */
#define INCUS_LIST_MAX		4096	/* objects in one list we accept */

struct incus_project {
	char name[INCUS_PROJECT_NAME];
	char *description;	/* owned; "" when the daemon sent none */
	struct incus_kvs config;
};

struct incus_projects {
	struct incus_project *v;
	size_t n;
};

/* Read project name: 0, -ENOENT when there is none, or -errno. */
int incus_project_get(struct incus *c, const char *name,
    struct incus_project *p, struct box_err *e);
/* Create a project (description may be NULL; config may be NULL). */
int incus_project_create(struct incus *c, const char *name,
    const char *description, const struct incus_kvs *config,
    struct box_err *e);
/*
 * Write p's description and its whole config (PUT): keys p lacks are
 * removed, so read it with incus_project_get() and change that.
 */
int incus_project_put(struct incus *c, const struct incus_project *p,
    struct box_err *e);
/* Delete project name (the daemon refuses one that is not empty). */
int incus_project_delete(struct incus *c, const char *name, int timeout_s,
    struct box_err *e);
/* Every project the caller may see, with its config. */
int incus_project_list(struct incus *c, struct incus_projects *out,
    struct box_err *e);
void incus_project_free(struct incus_project *p);
void incus_projects_free(struct incus_projects *l);

/* The parsers behind the calls (for tests and fuzzing): 0 or -EBADMSG. */
int incus_project_parse(struct incus_project *p, const struct json_doc *d,
    int obj);
int incus_projects_parse(struct incus_projects *l, const struct json_doc *d,
    int arr);

#endif
