/*
 * server.h - the daemon itself (GET /1.0): its API extensions, how it
 * trusts us, and the environment fields callers read.
 */
#ifndef BOX_SERVER_H
#define BOX_SERVER_H

#include <stddef.h>

#include "incus/api.h"

#define INCUS_EXT_MAX 4096	/* API extensions we read */

struct incus_server {
	char *api_version;
	char *auth;			/* "trusted", "untrusted" */
	char **extensions;
	size_t nextensions;
	/* environment.* */
	char *server_name;
	char *server_version;
	char *kernel_version;
	char *driver;			/* "lxc | qemu", "lxc", ... */
	char *storage;
	char *firewall;			/* "nftables", "xtables" */
	char **instance_types;		/* NULL on daemons that predate it */
	size_t ninstance_types;
	int has_instance_types;		/* the member was there */
};

/* 0 with s filled (free with incus_server_free()), or -errno. */
int incus_server_get(struct incus *c, struct incus_server *s,
    struct box_err *e);
/*
 * Does the daemon answer at all?  0 when GET /1.0 got a reply in the API's
 * envelope, whatever it describes; else the call's failure.
 */
int incus_server_ping(struct incus *c, struct box_err *e);
/* Does it list instance type t ("virtual-machine")? */
int incus_server_runs(const struct incus_server *s, const char *t);
void incus_server_free(struct incus_server *s);

/* The parser (obj: the reply's metadata); -EBADMSG for a foreign shape. */
int incus_server_from_json(struct incus_server *s, const struct json_doc *d,
    int obj);

#endif
