/*
 * acl.h - Incus network ACLs as structs: the ingress and egress rules as
 * arrays of rule structs.  A rule member the daemon left out is NULL (not
 * ""): the doctor tells "no protocol" from "protocol ''".
 */
#ifndef BOX_ACL_H
#define BOX_ACL_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"

#define INCUS_ACL_RULES_MAX 4096	/* rules in one direction */

struct incus_acl_rule {
	char *action;		/* "allow", "drop", "reject", ... */
	char *source;
	char *destination;
	char *protocol;
	char *source_port;
	char *destination_port;
	char *icmp_type;
	char *icmp_code;
	char *description;
	char *state;		/* "enabled", "disabled", "logged" */
};

struct incus_acl_rules {
	struct incus_acl_rule *v;
	size_t n, cap;
};

struct incus_acl {
	char *name;
	char *description;
	struct incus_acl_rules ingress, egress;
	struct incus_kvs config;
};

/* 0 with a filled (free with incus_acl_free()), -ENOENT, or -errno. */
int incus_acl_get(struct incus *c, const char *name, struct incus_acl *a,
    struct box_err *e);
/* POST: name, description (when set), both rule lists and config. */
int incus_acl_create(struct incus *c, const struct incus_acl *a,
    struct box_err *e);
/* PUT: replaces description, rules and config with a's. */
int incus_acl_put(struct incus *c, const char *name,
    const struct incus_acl *a, struct box_err *e);
int incus_acl_delete(struct incus *c, const char *name, struct box_err *e);
void incus_acl_free(struct incus_acl *a);

/* Append a copy of r (its NULL members stay absent): 0, -ENOMEM, -E2BIG. */
int incus_acl_rule_add(struct incus_acl_rules *l,
    const struct incus_acl_rule *r);
/* Remove rule i (the order of the rest kept). */
void incus_acl_rule_del(struct incus_acl_rules *l, size_t i);
void incus_acl_rules_free(struct incus_acl_rules *l);

/* The parser (obj: the reply's metadata); -EBADMSG for a foreign shape. */
int incus_acl_from_json(struct incus_acl *a, const struct json_doc *d,
    int obj);

#endif
