/*
 * instance.h - Incus instances as owned structs: read one or the list
 * (with or without their state), and act on them (create, edit, state
 * changes, snapshots, files, metadata templates).
 *
 * Callers never see a reply or a path: they name an instance and get a
 * struct incus_instance, whose maps are struct incus_kvs / incus_devices
 * (incus/kv.h).  An absent instance is -ENOENT from _get (never a half-filled
 * struct); the daemon's own error text is in e for everything else.
 *
 * Parsing is bounded: a field longer than its buffer, a value of the wrong
 * type, or more NICs/addresses/profiles than the limits below refuses the
 * whole reply (-EBADMSG / -E2BIG) rather than keeping a truncated name.
 */
#ifndef BOX_INSTANCE_H
#define BOX_INSTANCE_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/json.h"
#include "incus/kv.h"
#include "util/err.h"

#define INCUS_INST_NAME_MAX	64	/* with the NUL */
#define INCUS_INST_NICS_MAX	64
#define INCUS_INST_ADDRS_MAX	64
#define INCUS_INST_PROFILES_MAX	64
#define INCUS_INST_LIST_MAX	100000

/* _get / _list flags. */
#define INCUS_INST_STATE	0x1	/* with its state (get: recursion=1,
					 * list: recursion=2) */
#define INCUS_INST_RAW		0x2	/* keep the daemon's bytes (--json) */
#define INCUS_INST_ALL		0x4	/* list: every project (all-projects=true,
					 * each one's project set; a caller the
					 * daemon does not let see them: -EACCES) */

struct incus_addr {
	char family[8];		/* "inet", "inet6" */
	char address[64];
	char netmask[8];
	char scope[16];		/* "global", "link", "local" */
};

struct incus_nic_state {
	char name[16];		/* inside: "eth0", "lo" */
	char host_name[16];	/* the host side ("veth1234"), or "" */
	struct incus_addr *addr;
	size_t naddr;
};

struct incus_inst_state {
	char status[32];
	int status_code;	/* the daemon's code (103 Running, ...), 0 unsaid */
	long long pid;		/* 0 when stopped or unsaid */
	struct incus_nic_state *nic;
	size_t nnic;
	int has_disk;		/* the root disk's use was reported */
	long long disk_used;	/* bytes the root disk holds */
	long long disk_total;	/* its limit in bytes; 0: none reported */
	int has_cpu;		/* cpu.usage was reported */
	long long cpu_ns;	/* CPU time the instance's cgroup used, ns */
};

struct incus_instance {
	char name[INCUS_INST_NAME_MAX];
	char status[32];	/* "Running", "Stopped", ... */
	int status_code;	/* 102 Stopped, 103 Running, 110 Frozen, 112
				   Error, 113 Ready (a guest can set it), ...;
				   0 when the daemon did not say */
	char type[32];		/* "container" / "virtual-machine" */
	char project[64];
	char architecture[32];
	char created_at[64];
	char last_used_at[64];
	char location[64];	/* the cluster member; "none" standalone */
	char *description;	/* never NULL after a successful read */
	int ephemeral, stateful;
	char **profiles;
	size_t nprofiles;
	struct incus_kvs config, expanded_config;
	struct incus_devices devices, expanded_devices;
	int has_state;		/* the reply carried "state" */
	struct incus_inst_state state;
	int nsnapshots;		/* entries of "snapshots" (recursion >= 1) */
	char *raw;		/* INCUS_INST_RAW: the daemon's object */
	size_t raw_len;
};

struct incus_instance_list {
	struct incus_instance *v;
	size_t n;
};

/* Read one.  -ENOENT when there is no such instance. */
int incus_instance_get(struct incus *c, const char *name, unsigned flags,
    struct incus_instance *inst, struct box_err *e);

/*
 * Read them all.  filter is the value of the daemon's filter parameter,
 * already URL-encoded ("config.user.box+eq+1"), or NULL for every one.
 */
int incus_instance_list(struct incus *c, const char *filter, unsigned flags,
    struct incus_instance_list *list, struct box_err *e);

/* GET .../state: status, pid, NICs. */
int incus_instance_state(struct incus *c, const char *name,
    struct incus_inst_state *st, struct box_err *e);

void incus_instance_free(struct incus_instance *inst);
void incus_instance_list_free(struct incus_instance_list *list);
void incus_state_free(struct incus_inst_state *st);

/* The parsers behind the reads (exposed for tests and the fuzzer). */
int incus_instance_from_json(const struct json_doc *d, int obj,
    unsigned flags, struct incus_instance *inst, struct box_err *e);
int incus_instance_list_from_json(const struct json_doc *d, int arr,
    unsigned flags, struct incus_instance_list *list, struct box_err *e);
int incus_state_from_json(const struct json_doc *d, int obj,
    struct incus_inst_state *st, struct box_err *e);

/* "/1.0/instances/<name><suffix>", the name escaped: 0 or -ENAMETOOLONG. */
int incus_inst_path(char *buf, size_t cap, const char *name,
    const char *suffix);

/* A NIC of the state by its inside name, or NULL. */
const struct incus_nic_state *incus_state_nic(const struct incus_inst_state *st,
    const char *name);

/* --- writing ------------------------------------------------------------- */

/* An operation under way (opaque to callers; incus/operation.h waits). */
struct incus_op {
	char url[128];
};

/* What a new instance is made of, and from what. */
struct incus_instance_new {
	const char *name;
	const char *type;		/* "container" / "virtual-machine" */
	const char *description;	/* or NULL */
	const char *const *profiles;	/* NULL-terminated, or NULL */
	const struct incus_kvs *config;		/* or NULL */
	const struct incus_devices *devices;	/* or NULL */
	int start;			/* start once made (0: do not) */
	/* source: INCUS_SRC_IMAGE (alias; server/protocol for a remote one,
	 * pulled) or INCUS_SRC_COPY (copy_from "box" or "box/snap") */
	int source;
	const char *alias, *server, *protocol;
	const char *fingerprint;	/* a local image by its fingerprint
					 * (alias then unused), or NULL */
	const char *copy_from;
	int instance_only;
	const char *target;	/* cluster member or "@group", or NULL */
};

enum { INCUS_SRC_NONE = 0, INCUS_SRC_IMAGE, INCUS_SRC_COPY };

/*
 * The type ("container" / "virtual-machine") of the local image an
 * instance would be made from, by its alias, and (fp not NULL) the
 * fingerprint the alias names: -ENOENT when there is none.
 */
int incus_instance_image_type(struct incus *c, const char *alias,
    char *type, size_t cap, char *fp, size_t fcap, struct box_err *e);

/* The POST body for spec (exposed for tests): 0 with *body malloc'd. */
int incus_instance_new_body(const struct incus_instance_new *spec,
    char **body, struct box_err *e);
/* POST the create and return its operation (not waited for). */
int incus_instance_create_begin(struct incus *c,
    const struct incus_instance_new *spec, struct incus_op *op,
    struct box_err *e);

/*
 * The PUT body of inst (exposed for tests): architecture, description,
 * ephemeral, stateful, config, devices and profiles, everything else
 * left out.  Config goes back whole, volatile keys included: the daemon
 * refuses a PUT without its idmap keys.
 */
int incus_instance_put_body(const struct incus_instance *inst, char **body,
    struct box_err *e);
/* PUT inst whole under its name and wait up to wait_s seconds. */
int incus_instance_put(struct incus *c, const struct incus_instance *inst,
    int wait_s, struct box_err *e);

/*
 * PATCH config keys and devices in (the rest stay; either may be NULL).
 * description, when not NULL, is sent too: a PATCH without one clears the
 * instance's.
 */
int incus_instance_patch(struct incus *c, const char *name,
    const struct incus_kvs *config, const struct incus_devices *devices,
    const char *description, int wait_s, struct box_err *e);

int incus_instance_delete(struct incus *c, const char *name, int wait_s,
    struct box_err *e);
int incus_instance_rename(struct incus *c, const char *name,
    const char *to, int wait_s, struct box_err *e);
/*
 * Move a stopped instance's root disk (and its snapshots) to another pool
 * of the same daemon: POST {"name", "migration": true, "pool"}.  Its
 * config (volatile MAC, stamps) stays; the daemon gives it a root disk
 * of its own on pool.
 */
/* A stopped instance to another cluster member (POST ...?target=m,
 * {"migration":true}); waits. */
int incus_instance_move_member(struct incus *c, const char *name,
    const char *member, int wait_s, struct box_err *e);
int incus_instance_move_pool(struct incus *c, const char *name,
    const char *pool, int wait_s, struct box_err *e);

/*
 * PUT .../state: action "start", "stop", "restart", "freeze"; force, and
 * timeout_s > 0 the daemon's own grace for a clean stop.
 */
int incus_instance_state_begin(struct incus *c, const char *name,
    const char *action, int force, int timeout_s, struct incus_op *op,
    struct box_err *e);
int incus_instance_set_state(struct incus *c, const char *name,
    const char *action, int force, int timeout_s, int wait_s,
    struct box_err *e);

/* --- snapshots ----------------------------------------------------------- */

struct incus_snapshot {
	char name[256];
	char created_at[64];
	int stateful;
	long long size;		/* bytes, as the pool counts them; -1 unknown */
};

struct incus_snapshot_list {
	struct incus_snapshot *v;
	size_t n;
};

#define INCUS_SNAPSHOTS_MAX	4096

/* 0 when it exists, -ENOENT when not. */
int incus_snapshot_get(struct incus *c, const char *name, const char *snap,
    struct incus_snapshot *s, struct box_err *e);
/* Names and times (recursion=1) of an instance's snapshots. */
int incus_snapshot_list(struct incus *c, const char *name,
    struct incus_snapshot_list *l, struct box_err *e);
void incus_snapshot_list_free(struct incus_snapshot_list *l);
/*
 * The same list as the daemon's bytes (a JSON array), for a reader that
 * must judge the daemon's own record (the import vet): *raw malloc'd.
 */
int incus_snapshot_list_raw(struct incus *c, const char *name, char **raw,
    size_t *n, struct box_err *e);
int incus_snapshot_list_from_json(const struct json_doc *d, int arr,
    struct incus_snapshot_list *l, struct box_err *e);
int incus_snapshot_create(struct incus *c, const char *name,
    const char *snap, int stateful, int wait_s, struct box_err *e);
int incus_snapshot_delete(struct incus *c, const char *name,
    const char *snap, int wait_s, struct box_err *e);
/* Roll the instance back to snap (PUT {"restore": snap}). */
int incus_snapshot_restore(struct incus *c, const char *name,
    const char *snap, int wait_s, struct box_err *e);

/* --- files and metadata templates --------------------------------------- */

/*
 * Write data[0..n) at path as uid/gid 0: type "file" or "symlink", mode
 * "0700" and the like; replaces what is there.
 */
int incus_file_push(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const void *data, size_t n,
    struct box_err *e);
/* The file at path, handed to sink as it arrives. */
int incus_file_pull(struct incus *c, const char *name, const char *path,
    int (*sink)(void *ctx, const void *p, size_t n), void *ctx,
    struct box_err *e);
int incus_file_delete(struct incus *c, const char *name, const char *path,
    struct box_err *e);
/*
 * The console log, handed to sink as it arrives: on a container, what the
 * console printed since the last read (a read empties the daemon's
 * buffer).
 */
int incus_console_log(struct incus *c, const char *name,
    int (*sink)(void *ctx, const void *p, size_t n), void *ctx,
    struct box_err *e);

/* Upload a template file (path under the instance's templates/). */
int incus_template_push(struct incus *c, const char *name, const char *tpl,
    const void *data, size_t n, struct box_err *e);
/*
 * Merge one template entry into the instance's metadata: target file,
 * the trigger it fires on, the template's name.
 */
int incus_template_arm(struct incus *c, const char *name, const char *target,
    const char *trigger, const char *tpl, int wait_s, struct box_err *e);
/*
 * The string properties.<key> of the instance's metadata (GET .../metadata)
 * into buf ("" when it has none): 0, or the daemon's refusal.
 */
int incus_metadata_property(struct incus *c, const char *name,
    const char *key, char *buf, size_t cap, struct box_err *e);
/* Does the instance's template list name tpl?  1, 0, or < 0. */
int incus_template_listed(struct incus *c, const char *name, const char *tpl,
    struct box_err *e);

#endif
