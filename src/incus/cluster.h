/*
 * cluster.h - an Incus cluster as box sees it: is the daemon a member,
 * which member is it, the members with their status, and which of them
 * are in a cluster group (box's own, "box": the members that hold the
 * host contract).
 *
 * Networks and storage pools are cluster-wide definitions with a part
 * per member: each member's part is created first, "pending", with
 * POST ...?target=<member>, and the definition only then, once, without a
 * target (incus_cluster_pending).  On a daemon that is not clustered all
 * of this is a no-op: GET /1.0/cluster says enabled=false.
 */
#ifndef BOX_CLUSTER_H
#define BOX_CLUSTER_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/json.h"
#include "util/err.h"

#define INCUS_MEMBERS_MAX	64
#define INCUS_MEMBER_NAME	64

struct incus_member {
	char name[INCUS_MEMBER_NAME];
	char status[16];	/* "Online", "Offline", "Evacuated", ... */
	int in_group;		/* in the group asked about */
};

struct incus_cluster {
	int on;			/* the daemon is a cluster member */
	char self[INCUS_MEMBER_NAME];	/* this member's name */
	size_t n;
	struct incus_member m[INCUS_MEMBERS_MAX];
};

/*
 * Read the cluster: k->on 0 (and nothing else) on a standalone daemon;
 * else self and every member, in_group for group (NULL: none).
 */
int incus_cluster_read(struct incus *c, const char *group,
    struct incus_cluster *k, struct box_err *e);

/* This member's name into self (cap bytes): 1 on a cluster, 0 standalone
 * (self ""), -errno. */
int incus_cluster_self(struct incus *c, char *self, size_t cap,
    struct box_err *e);
/* Is an instance at location on this member (self from
 * incus_cluster_self; "" standalone: every instance is)? */
int incus_cluster_local(const char *self, const char *location);

/* The parser: GET /1.0/cluster/members?recursion=1's array at arr into
 * k->m (k->n), in_group for group; -EBADMSG, -E2BIG. */
int incus_members_from_json(struct incus_cluster *k, const struct json_doc *d,
    int arr, const char *group);

/*
 * Does member name's daemon answer?  GET /1.0/cluster/members/<m>/state
 * is forwarded to that member: a daemon that died fails it at once (the
 * database calls it Online until its heartbeats are overdue).
 */
int incus_cluster_member_answers(struct incus *c, const char *name,
    struct box_err *e);

/* The member by name, or NULL. */
const struct incus_member *incus_cluster_member(const struct incus_cluster *k,
    const char *name);

/*
 * Put member into group (join 1; the group is created when missing) or
 * take it out (join 0), then read the cluster back: 0 only when the
 * daemon's own list says member is (or is not) in it.
 */
int incus_cluster_group_set(struct incus *c, const char *group,
    const char *member, int join, struct box_err *e);

/*
 * The pending part of a network (pool 0: kind its type) or a storage
 * pool (pool 1: kind its driver) on every member: POST
 * /1.0/networks|storage-pools?target=<m> with {"name":name, "type" or
 * "driver":kind, "config":{ckey:
 * cval}} (ckey NULL: no key; a member-specific key such as a pool's size
 * goes here, never into the final create).  A part that is already there from
 * an earlier run is no error.  1 when the parts were made, 0 with nothing
 * done when not clustered.
 */
int incus_cluster_pending(struct incus *c, int pool, const char *name,
    const char *kind, const char *ckey, const char *cval,
    struct box_err *e);

#endif
