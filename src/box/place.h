/*
 * place.h - where a new box lands on an Incus cluster: only on a member
 * in box's cluster group (CONTRACT_GROUP: it holds the host contract), by
 * default any of them (target=@box, Incus picks), or one asked for by
 * name (--target), refused unless it is in the group and online.
 */
#ifndef BOX_PLACE_H
#define BOX_PLACE_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

/*
 * The create's target into target ("" on a standalone daemon, and for a
 * client the daemon does not show its cluster: its project's
 * restricted.cluster.groups places it).  asked: --target, or NULL.
 */
int box_place(struct incus *c, const char *asked, char *target, size_t cap,
    struct box_err *e);

/*
 * A lookup of box name failed with e: on a cluster where the instance is
 * on a member that is not online, e is replaced by a sentence naming that
 * member.  Nothing changes otherwise.
 */
void box_place_why(struct incus *c, const char *name, struct box_err *e);

/*
 * The instances on members that are down (their config, so their tag,
 * cannot be read while the member is down): each one's name, type,
 * member and how it is ("Offline", "not answering"), by cb; how many,
 * or -errno.
 */
typedef void (*box_down_cb)(void *ctx, const char *name, const char *type,
    const char *member, const char *status);
int box_place_down(struct incus *c, box_down_cb cb, void *ctx,
    struct box_err *e);

#endif
