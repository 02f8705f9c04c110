/*
 * storage_host.h - deleting a custom volume, which src/host/ (grant's
 * purge) needs and storage.h (the network helper's) does not offer yet.
 * A name of its own so the storage layer can grow its own; fold it in then.
 */
#ifndef BOX_STORAGE_HOST_H
#define BOX_STORAGE_HOST_H

#include "incus/api.h"
#include "util/err.h"

/* DELETE the custom volume name of pool and wait: 0, -ENOENT, -errno. */
int incus_volume_host_delete(struct incus *c, const char *pool,
    const char *name, int timeout_s, struct box_err *e);

#endif
