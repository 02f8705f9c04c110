/*
 * life.h - acting on boxes: state changes, snapshots, consent, the waits
 * that tell a box is up, the identity a copy must not share, and editing
 * an instance as a whole.  Shared by the lifecycle verbs (new, snapshot,
 * restore, rename, down, start, rm, export, import, expose).
 *
 * Narration (what is happening, progress, notes) goes to stderr from here;
 * results and failures travel back as values, as everywhere.
 */
#ifndef BOX_LIFE_H
#define BOX_LIFE_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"
#include "util/progress.h"

#define LIFE_PROFILE	"box-net"	/* the one profile a box runs on */
#define LIFE_ACL	"box-isolate"	/* the box network's ACL */
#define LIFE_OP_S	600		/* bound on one daemon operation */

/* Narration: "box: ..." on stderr. */
void life_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Ctrl-C and SIGTERM during a long verb set a flag instead of killing box,
 * so a half-made box can be cleaned up; a second one kills as usual.  The
 * flag is process-global (a signal handler cannot be handed a context).
 */
void life_catch_signals(void);
int life_interrupted(void);

/*
 * The consent rule of util/prompt.h (consent_or_force(), consent_ask()),
 * kept under these names for the verbs outside box/ and cmd/'s lifecycle
 * files: --force proceeds, a terminal is asked, no terminal is a usage
 * error (exit 2), no or end of input is "aborted" (exit 1).  BOX_YES is
 * deliberately not read: a blanket yes must not reach deletion.
 */
int life_consent(const char *question, int force, struct box_err *e);
int life_ask(const char *question, struct box_err *e);

/* 1 when an instance (box or not) of that name exists, 0 when not. */
int life_exists(struct incus *c, const char *name, struct box_err *e);

/*
 * The host stack a box needs: the box-net profile.  pool receives the
 * storage pool of its root disk ("default" when it names none).
 */
int life_require_stack(struct incus *c, char *pool, size_t cap,
    struct box_err *e);

/* The storage driver of pool ("dir", "btrfs", ...). */
int life_pool_driver(struct incus *c, const char *pool, char *drv, size_t cap,
    struct box_err *e);

/* PUT .../state {"action": action, "force": .., "timeout": ..}; waits. */
int life_state(struct incus *c, const char *name, const char *action,
    int force, int timeout_s, struct box_err *e);

/* Stop gracefully for up to grace_s seconds, then force.  *forced says. */
int life_stop(struct incus *c, const char *name, int grace_s, int *forced,
    struct box_err *e);

/* How long a box is given to shut down before it is stopped forcibly. */
#define LIFE_GRACE_S	30

/*
 * Be down (down, restart): a stopped box is left as it is (said); force
 * stops at once; else the guest gets grace_s seconds to shut down and is
 * then stopped the hard way (said).  Narrates "stopped <name>".
 */
int life_down(struct incus *c, const char *name, const char *status,
    int force, int grace_s, struct box_err *e);

/* Be up (start, restart): a running box is left as it is (said). */
int life_up(struct incus *c, const char *name, int running,
    struct box_err *e);

/* Force-stop when running, then delete. */
int life_delete(struct incus *c, const char *name, struct box_err *e);

/* POST .../snapshots {"name": label}; waits. */
int life_snapshot(struct incus *c, const char *name, const char *label,
    struct box_err *e);

/*
 * An automatic snapshot (pristine, bootstrapped): skipped, loudly, when
 * BOX_SNAPSHOT_<LABEL>=0 or the pool has no copy-on-write (dir); a failure
 * is a warning, never fatal.  1 when taken, 0 when not.
 */
int life_mark(struct incus *c, const char *name, const char *label,
    const char *pool, const char *meaning);

/*
 * Wait for an operation until deadline (clock_ms() clock), showing
 * its progress text on p (may be NULL).  The final operation object is at
 * r->metadata on success; -ETIMEDOUT when the deadline passed first,
 * -EINTR when interrupted.
 */
int life_wait_op(struct incus *c, const char *op, long long deadline,
    struct progress *p, struct incus_reply *r, struct box_err *e);

/*
 * Run `sh -c script` as root in the box, stdout (at most cap - 1 bytes,
 * NUL-terminated) into out, within timeout_ms.  *code is its exit status.
 */
int life_sh(struct incus *c, const char *name, const char *script,
    char *out, size_t cap, int timeout_ms, int *code, struct box_err *e);

/* Until a command runs in the box (the guest agent answers), or deadline. */
int life_wait_agent(struct incus *c, const char *name, long long deadline,
    struct progress *p, struct box_err *e);

/*
 * Until the box holds an IPv4 address on its box bridge, or deadline; the
 * address into addr.
 */
int life_wait_address(struct incus *c, const char *name, long long deadline,
    struct progress *p, char *addr, size_t cap, struct box_err *e);

/* The name of another running instance holding addr into who, or "". */
int life_address_holder(struct incus *c, const char *self, const char *addr,
    char *who, size_t cap, struct box_err *e);

/*
 * A fresh machine identity for a copied box (clone, import), so it cannot
 * present its source's DHCP client id and take its lease.  A stopped
 * container gets a new /etc/machine-id through the file API before it
 * ever boots (no restart needed); a running instance (VMs: the file API
 * needs the agent) regenerates it inside and is restarted.
 */
int life_new_machine_id_offline(struct incus *c, const char *name,
    struct box_err *e);
int life_new_machine_id_online(struct incus *c, const char *name,
    long long deadline, struct progress *p, struct box_err *e);

/*
 * Bring up a fresh copy (clone, import) of a box: a machine identity of its
 * own, started, answering, holding an address on its bridge that no other
 * instance holds.  *stage names the step that failed.
 */
int life_copy_up(struct incus *c, const char *name, int vm,
    long long deadline, struct progress *p, const char **stage, char *addr,
    size_t cap, struct box_err *e);

/* life_copy_up() after the identity: a container's is already arranged
 * (box/import_id.h), a VM's is still regenerated inside. */
int life_up_fresh(struct incus *c, const char *name, int vm,
    long long deadline, struct progress *p, const char **stage, char *addr,
    size_t cap, struct box_err *e);

/* 32 random hex digits and a newline: a machine id. */
int life_machine_id(char id[34], struct box_err *e);

/*
 * Rewrite an instance whole (GET, change, PUT, wait): the only way to drop
 * a device.  Everything not mentioned is sent back as it was, volatile
 * keys included (the daemon refuses a PUT without its idmap keys).
 */
struct life_edit {
	/* config key, value, ...; NULL ends; a value "" removes the key */
	const char *const *set;
	int (*drop_cfg)(const char *key);	/* or NULL */
	int (*drop_dev)(const char *name, const struct json_doc *d, int dev);
	const char *drop_dev_name;	/* one device to drop, or NULL */
	const char *add_dev;		/* device name, or NULL */
	const char *add_dev_json;	/* its object */
	const char *const *profiles;	/* replace the list, or NULL */
	int dropped;			/* out: devices dropped */
};

int life_edit(struct incus *c, const char *name, struct life_edit *ed,
    struct box_err *e);

/* Build the PUT body for an edit of instance inst (exposed for tests). */
int life_edit_body(const struct json_doc *d, int inst, struct life_edit *ed,
    char **body, struct box_err *e);

/*
 * Write data[0..n) into box name at path through the files API, as root:
 * type "file" or "symlink", mode "0700" and the like; replaces what is
 * there.
 */
int life_push(struct incus *c, const char *name, const char *path,
    const char *type, const char *mode, const void *data, size_t n,
    struct box_err *e);
/* Remove path from box name, if it is there (failures ignored). */
void life_remove_file(struct incus *c, const char *name, const char *path);
/* This very binary into box name at path (root, 0700): the in-box runs. */
int life_push_self(struct incus *c, const char *name, const char *path,
    struct box_err *e);
/*
 * The file at path in box name, whole, into b (at most b->cap - 1 bytes,
 * NUL-terminated; longer: b->truncated and an error): the in-box runs'
 * reports.
 */
struct exec_buf;
int life_pull_file(struct incus *c, const char *name, const char *path,
    struct exec_buf *b, struct box_err *e);
/* The raw value of token v into w (null when there is none). */
void life_copy_raw(struct json_w *w, const struct json_doc *d, int v);

#endif
