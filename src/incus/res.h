/*
 * res.h - what the typed resource files (network.c, acl.c, profile.c,
 * storage.c, server.c, project.c, certificate.c, image.c) share: reading a member as an owned string, building
 * an object's path with its name escaped, and sending a body built here.
 * Internal to src/incus/.
 */
#ifndef BOX_RES_H
#define BOX_RES_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/json.h"

#define RES_BODY_MAX	(8u << 20)	/* a request body we build */
#define RES_TIMEOUT_S	120		/* a write the daemon may run long */

/*
 * Member key of obj as an owned string in *out: NULL when absent (or JSON
 * null), 0.  -EBADMSG when it is another type, -ENOMEM.
 */
int res_str(const struct json_doc *d, int obj, const char *key, char **out);

/* Member key as a boolean: absent/null gives 0; -EBADMSG for other types. */
int res_bool(const struct json_doc *d, int obj, const char *key, int *out);

/* prefix + "/" + escaped name (+ suffix) into buf; -ENAMETOOLONG, -EINVAL
 * for an empty name. */
int res_path(char *buf, size_t cap, const char *prefix, const char *name,
    const char *suffix);

/* GET path: 0 with r filled (its metadata an object), -ENOENT when absent
 * (e holds the daemon's words), -EBOX_PROTO when the metadata is no object. */
int res_get(struct incus *c, const char *path, int want_type,
    struct incus_reply *r, struct box_err *e);

/* Send w's body (finished here) and wait for the operation. */
int res_send(struct incus *c, const char *method, const char *path,
    struct json_w *w, struct box_err *e);

/* DELETE path and wait. */
int res_delete(struct incus *c, const char *path, struct box_err *e);

/* A member written only when s is set. */
void res_w_opt(struct json_w *w, const char *key, const char *s);

/*
 * An array of objects into a fresh array of n structs of size each, read by
 * parse (which leaves nothing allocated when it fails) and freed element by
 * element with drop.  At most max elements (-E2BIG); -EBADMSG for a
 * non-array or the first element parse refuses.  *v is NULL when empty.
 */
typedef int (*res_elem_parse)(void *elem, const struct json_doc *d, int obj);
typedef void (*res_elem_free)(void *elem);
int res_array(void **v, size_t *n, size_t size, const struct json_doc *d,
    int arr, size_t max, res_elem_parse parse, res_elem_free drop);
void res_array_free(void **v, size_t *n, size_t size, res_elem_free drop);

/* Free and clear a string. */
void res_free(char **s);

#endif
