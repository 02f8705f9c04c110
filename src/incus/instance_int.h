/*
 * instance_int.h - what instance.c, snapshot.c and files.c share: reading
 * a member of a reply, sending a body built here.  Internal to src/incus/.
 */
#ifndef BOX_INSTANCE_INT_H
#define BOX_INSTANCE_INT_H

#include "incus/api.h"
#include "incus/json.h"
#include "util/err.h"

#define ODD_NAME(e, name) \
	err_set(e, -EINVAL, "odd instance name '%.80s'", name)

/*
 * Member key of obj as a string into buf: absent or null leaves "", a
 * non-string or one that does not fit refuses the reply.
 */
int inst_field(const struct json_doc *d, int obj, const char *key,
    char *buf, size_t cap, struct box_err *e);
/* Member key as a boolean (absent: 0); another type refuses the reply. */
int inst_flag(const struct json_doc *d, int obj, const char *key, int *out,
    struct box_err *e);
/* Send w's body, and wait for an operation when wait_s > 0. */
int inst_send_w(struct incus *c, const char *method, const char *path,
    struct json_w *w, int wait_s, struct box_err *e);
void inst_w_kv(struct json_w *w, const char *k, const char *v);
/* {"<key>": "<value>"} sent to the instance name (rename, restore). */
int inst_send_one(struct incus *c, const char *method, const char *name,
    const char *key, const char *value, int wait_s, struct box_err *e);
/* DELETE path and wait for its operation. */
int inst_delete_path(struct incus *c, const char *path, int wait_s,
    struct box_err *e);

#endif
