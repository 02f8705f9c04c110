/*
 * life.h - acting on boxes: state changes, snapshots, consent, files in a
 * box.  Shared by the lifecycle verbs (new, snapshot, restore, rename,
 * down, start, rm, export, import, expose).  Its other concerns live
 * beside it, and each caller includes the ones it uses: narration and the
 * signal flag (box/narrate.h), editing an instance whole (box/edit.h, which
 * also holds LIFE_OP_S), the waits that tell a box is up (waits.h), the
 * machine identity of a copy (identity.h), bringing a copy up (up.h); the
 * REST calls themselves are incus/instance.h's.
 *
 * Narration (what is happening, progress, notes) goes to stderr from here;
 * results and failures travel back as values, as everywhere.
 */
#ifndef BOX_LIFE_H
#define BOX_LIFE_H

#include <stddef.h>

#include "incus/api.h"
#include "model/names.h"
#include "util/err.h"
#include "util/progress.h"

#include "box/edit.h"		/* LIFE_OP_S */

/*
 * The consent rule of util/prompt.h (consent_or_force(), consent_ask()),
 * kept under these names for the verbs outside box/ and cmd/'s lifecycle
 * files: --force proceeds, a terminal is asked, no terminal is a usage
 * error (exit 2), no or end of input is "aborted" (exit 1).  BOX_YES is
 * deliberately not read: a blanket yes must not reach deletion.
 */
int life_consent(const char *question, int force, struct box_err *e);

/* 1 when an instance (box or not) of that name exists, 0 when not. */
int life_exists(struct incus *c, const char *name, struct box_err *e);

/*
 * rename: the stopped box from becomes to (its snapshots follow); Incus
 * renames only a stopped instance, so one that is not is refused first,
 * with the fix.  Said ("renamed a to b"); then its egress sets, named
 * after it, are synced (egress_sync_box).
 */
int life_rename(struct incus *c, const char *from, const char *to,
    struct box_err *e);

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
/*
 * The same when the caller has just listed the instance and knows whether
 * it runs (teardown-host, grant --purge): the one stop-then-delete.
 */
int life_stop_delete(struct incus *c, const char *name, int running,
    struct box_err *e);

/* POST .../snapshots {"name": label}; waits. */
int life_snapshot(struct incus *c, const char *name, const char *label,
    struct box_err *e);

/*
 * An automatic snapshot (pristine, bootstrapped): skipped, loudly, when
 * BOX_SNAPSHOT_<LABEL>=0 or the pool has no copy-on-write (dir); a failure
 * is a warning, never fatal.  drv is the pool's driver when the caller has
 * read it already ("" or NULL: read here).  1 when taken, 0 when not.
 */
int life_mark(struct incus *c, const char *name, const char *label,
    const char *pool, const char *drv, const char *meaning);

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

/*
 * The one in-box runner, for a VM alone (it shares no kernel with the
 * host; a container is probed by this host in its network namespace,
 * net/netns.h, with nothing put into it).  This binary is pushed to
 * /tmp/.box-<what>.<pid>.<random> (two runs at once, from two hosts or
 * two terminals, never share a name), run there as root as
 * `<path> args...` with env and LIFE_REPORT_ENV=<path>.report, and the
 * report the run wrote (life_report_write) is read back through the files
 * API, not from the exec's stdout (an empty or cut capture could not be
 * told from a broken report); both files are then removed.  0 with st
 * the run's exit and rep the report, or < 0 (e says which step failed).
 * Whatever comes back is the guest's word.
 */
#define LIFE_REPORT_ENV		"BOX_INBOX_REPORT"
struct exec_status;
struct life_inside {
	const char *what;		/* a short word: "doctor", "verify" */
	const char *const *args;	/* after the path, NULL-terminated */
	const char *const *env;		/* NULL-terminated, at most 8 */
	int timeout_ms;
};
int life_run_inside(struct incus *c, const char *name,
    const struct life_inside *in, struct exec_buf *rep,
    struct exec_status *st, struct box_err *e);
/*
 * Inside, run by life_run_inside: data[0..n) written whole to the file
 * LIFE_REPORT_ENV names (a temporary file beside it, then one rename:
 * the host reads all of it or nothing); to stdout when it is unset.
 */
int life_report_write(const char *data, size_t n, struct box_err *e);

#endif
