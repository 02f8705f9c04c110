/*
 * network.h - Incus networks as structs: read one, create, replace, merge
 * config into, delete, and its DHCP leases.
 *
 * Callers never see the reply: a network's config is a kv map
 * (incus_kv_get(&n.config, "ipv4.address")).  An absent network is
 * -ENOENT from incus_network_get(), never a half-filled struct.
 */
#ifndef BOX_NETWORK_H
#define BOX_NETWORK_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"

#define INCUS_LEASES_MAX 4096	/* leases on one bridge we read */

struct incus_network {
	char *name;
	char *type;		/* "bridge", "physical", ... */
	char *description;
	char *status;		/* "Created", ... (read only) */
	int managed;		/* Incus made it (read only) */
	struct incus_kvs config;
};

struct incus_lease {
	char *hostname;
	char *address;
	char *hwaddr;
	char *type;		/* "static", "dynamic" */
};

struct incus_leases {
	struct incus_lease *v;
	size_t n;
};

/*
 * The network name: 0 with n filled (free with incus_network_free()),
 * -ENOENT when there is none (e holds the daemon's words), -EBOX_PROTO for
 * a reply we do not understand, or another call failure.
 */
int incus_network_get(struct incus *c, const char *name,
    struct incus_network *n, struct box_err *e);

/* POST: n's name, type, description (when set) and config. */
int incus_network_create(struct incus *c, const struct incus_network *n,
    struct box_err *e);

/* PATCH: config keys merged in; keys not named stay as they are. */
int incus_network_patch(struct incus *c, const char *name,
    const struct incus_kvs *config, struct box_err *e);

int incus_network_delete(struct incus *c, const char *name,
    struct box_err *e);

/* The bridge's DHCP leases: 0 with l filled, or -errno. */
int incus_network_leases(struct incus *c, const char *name,
    struct incus_leases *l, struct box_err *e);

void incus_network_free(struct incus_network *n);
void incus_leases_free(struct incus_leases *l);

/*
 * The parsers, for tests and fuzzers: obj is the reply's metadata.
 * -EBADMSG for a shape the API does not have (a non-string name, a config
 * value that is not a string, ...); on failure nothing is left to free.
 */
int incus_network_from_json(struct incus_network *n, const struct json_doc *d,
    int obj);
int incus_leases_from_json(struct incus_leases *l, const struct json_doc *d,
    int arr);

#endif
