/*
 * instance_host.h - the instance actions src/host/ needs that instance.h
 * (the instance helper's) does not offer yet: a forced stop and a delete,
 * each waited on, and the list across every project.  Kept apart, with names of their own, so that the
 * instance layer can grow its own without a clash; fold these into it
 * when it has them.
 */
#ifndef BOX_INSTANCE_HOST_H
#define BOX_INSTANCE_HOST_H

#include "incus/api.h"
#include "incus/instance.h"
#include "util/err.h"

/* PUT state {"action":"stop","force":force}; a stopped one fails. */
int incus_instance_host_stop(struct incus *c, const char *name, int force,
    int timeout_s, struct box_err *e);
/* DELETE the instance (stopped) and wait: 0, -ENOENT, or -errno. */
int incus_instance_host_delete(struct incus *c, const char *name,
    int timeout_s, struct box_err *e);

/* PATCH the instance's config with the keys of cfg (the rest kept). */
int incus_instance_host_patch_config(struct incus *c, const char *name,
    const struct incus_kvs *cfg, struct box_err *e);

/*
 * The body of a whole-instance PUT from in: architecture (when known),
 * description, ephemeral, stateful, config, devices, profiles; never its
 * name or anything read-only.  0 with *body (caller frees), or -errno.
 */
int incus_instance_host_put_body(const struct incus_instance *in,
    char **body);
/* PUT that body to in->name and wait. */
int incus_instance_host_put(struct incus *c, const struct incus_instance *in,
    int timeout_s, struct box_err *e);

/*
 * incus_instance_list() over every project (all-projects=true; each
 * instance's project is set).  A caller the daemon does not let see every
 * project gets -EACCES.
 */
int incus_instance_host_list_all(struct incus *c, const char *filter,
    unsigned flags, struct incus_instance_list *list, struct box_err *e);

#endif
