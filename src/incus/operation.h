/*
 * operation.h - the daemon's background operations, read by their handle
 * (struct incus_op, or the URL an async reply named): wait a slice, and
 * the progress text the daemon reports while it runs.
 */
#ifndef BOX_OPERATION_H
#define BOX_OPERATION_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

/*
 * Wait for op up to slice_s seconds: 0 when it finished well, -ETIMEDOUT
 * while it still runs, else its failure in the daemon's words.
 */
int incus_op_wait(struct incus *c, const char *op, int slice_s,
    struct box_err *e);

/* The operation's own "*_progress" text into buf ("" when none). */
void incus_op_progress(struct incus *c, const char *op, char *buf,
    size_t cap);

/* Parse side of incus_op_progress() (exposed for tests). */
void incus_op_progress_from(const struct json_doc *d, int op, char *buf,
    size_t cap);

/*
 * The instances an exec or console session is open on, as the daemon
 * tracks them (its running websocket operations): at most max names into
 * v, their count in *n.  0 or -errno.
 */
int incus_sessions_open(struct incus *c, char (*v)[64], int max, int *n,
    struct box_err *e);
/* Its parse side, over the reply's metadata (exposed for tests). */
int incus_sessions_from_json(const struct json_doc *d, int md,
    char (*v)[64], int max, int *n);

#endif
