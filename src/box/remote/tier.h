/*
 * tier.h - who the caller is to Incus, from the live credentials (never
 * the group database: a session keeps the groups it logged in with).
 *
 *   admin       uid 0, or a member of incus-admin: the daemon's own socket,
 *               every project
 *   restricted  a member of incus only: incus-user's socket
 *               (unix.socket.user) and the user's own project user-<uid>,
 *               the way the incus client picks them
 *   none        neither: nothing to talk to until an admin runs
 *               'box grant <user>'
 *
 * main() calls tier_apply() once, after the verb is known; everything else
 * asks tier_get().
 */
#ifndef BOX_TIER_H
#define BOX_TIER_H

#include "util/err.h"

enum box_tier { TIER_NONE = 0, TIER_RESTRICTED, TIER_ADMIN };

#define TIER_GROUP_ADMIN	"incus-admin"
#define TIER_GROUP_USER		"incus"
#define TIER_USER_SOCKET	"unix.socket.user"
#define TIER_PROJECT_PREFIX	"user-"

/* The tier of this process (computed once). */
int tier_get(void);
/* The tier the daemon gives this run instead (--remote: the socket's). */
void tier_force(int tier);
const char *tier_name(int tier);

/*
 * The tier of a uid with the given groups (pure; the unit tests drive it).
 * admin_gid/user_gid are -1 when the group does not exist.
 */
int tier_of(unsigned uid, const unsigned *gids, int ngids, long admin_gid,
    long user_gid);

/*
 * Detect the tier and hand the Incus client its settings (box/remote/incus_env.h):
 * for a restricted caller incus-user and the caller's project
 * (INCUS_SOCKET and BOX_PROJECT still override).
 */
void tier_apply(void);

/*
 * For verbs only an admin may run: 0 for an admin; otherwise -EPERM
 * naming who can (and, for tier none, box grant).
 */
int tier_require_admin(const char *verb, struct box_err *e);

/* tier_require_admin(), and root itself (users and groups change). */
int tier_require_root(const char *verb, struct box_err *e);

struct incus;
/*
 * Before a restricted caller mints (new, import): the project's box-net
 * must be the contract's by content (box/remote/profile.h), or nothing is
 * presented as a box.  0 for other tiers.
 */
int tier_mint_gate(struct incus *c, struct box_err *e);

/* "user-<uid>" for uid. */
void tier_project(unsigned uid, char *buf, unsigned cap);

#endif
