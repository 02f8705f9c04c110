/*
 * grant_project.h - a granted user's Incus objects, as the admin sees
 * them: the pre-empted private bridge, the project converged to the
 * contract (no NIC on its default profile, restricted to boxnet,
 * snapshots and backups allowed, disks from pools only, GPUs blocked
 * unless the admin asked, box-net written from the contract table), and
 * all of it read back by content.
 */
#ifndef BOX_GRANT_PROJECT_H
#define BOX_GRANT_PROJECT_H

#include <stddef.h>

#include "host/stack/grant.h"
#include "incus/api.h"
#include "util/err.h"

/* 1 when the network name exists, 0 when it does not, < 0 otherwise. */
int grant_network_exists(struct incus *c, const char *name,
    struct box_err *e);
/* 1 when project exists, 0 when it does not, < 0 otherwise. */
int grant_project_exists(struct incus *c, const char *project,
    struct box_err *e);

/*
 * Create u's private bridge before incus-user does, with
 * ipv4.address=none and ipv6.address=none; an existing one is left as is.
 */
int grant_preempt_bridge(struct incus *c, const struct grant_user *u,
    int *created, struct box_err *e);

/*
 * The project as incus-user would make it (its stock keys), already
 * restricted to boxnet: for when incus-user remembers a project that a
 * purge removed and will not make it again.
 */
int grant_create_project(struct incus *c, const struct grant_user *u,
    int gpu, struct box_err *e);

/*
 * The project key that records `box grant --gpu` (the admin asked for
 * GPUs in boxes): restricted.devices.gpu is held to "allow" with it, to
 * "block" without.
 */
#define GRANT_KEY_GPU	"user.box.grant.gpu"

/*
 * Bring u's project to the contract (GPUs allowed only with gpu); prints
 * one line per object.
 */
int grant_converge(struct incus *c, const struct grant_user *u, int gpu,
    struct box_err *e);

/*
 * Hold project against the contract: the number of problems (each noted
 * in bad; a missing project is one), or < 0 when the daemon could not say.
 */
int grant_project_check(struct incus *c, const char *project, char *bad,
    size_t cap, struct box_err *e);

/* What a project holds itself (its features.* are "true"). */
#define GRANT_OWN_IMAGES	0x1
#define GRANT_OWN_PROFILES	0x2
#define GRANT_OWN_VOLUMES	0x4
#define GRANT_OWN_ALL		0x7

/*
 * 1 and *own when project exists, 0 when it does not.  Anything a project
 * does not hold itself is the default project's, seen under its name:
 * never write or delete it through the project.
 */
int grant_project_features(struct incus *c, const char *project, int *own,
    struct box_err *e);

/* A client for project on admin's socket. */
int grant_project_client(const struct incus *admin, const char *project,
    struct incus *pc, struct box_err *e);

/* The trust entries named incus-user-<uid>: count, fingerprints in fps. */
int grant_trust_fps(struct incus *c, unsigned uid, char fps[][80], int max,
    struct box_err *e);

#endif
