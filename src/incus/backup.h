/*
 * backup.h - instance backups: create, list, delete, and the two streamed
 * transfers (export download, import upload) over incus/stream.c.
 *
 * Creating and importing start operations; the caller waits on the
 * operation it is handed (with its own progress), so nothing here prints.
 */
#ifndef BOX_INCUS_BACKUP_H
#define BOX_INCUS_BACKUP_H

#include <stddef.h>
#include <time.h>

#include "incus/api.h"
#include "incus/json.h"
#include "incus/kv.h"
#include "incus/stream.h"
#include "util/err.h"

#define INCUS_BACKUP_NAME	64
#define INCUS_OP_LEN		128	/* "/1.0/operations/<uuid>" */

struct incus_backup_spec {
	const char *name;
	time_t expires;		/* when the daemon may drop it */
	int instance_only;	/* no snapshots */
	int optimized_storage;
	const char *compression;	/* "gzip", "none", ... */
};

struct incus_backup {
	char name[INCUS_BACKUP_NAME];
	char created_at[40];
	char expires_at[40];
	int instance_only;
};

struct incus_backup_list {
	int n;
	struct incus_backup *b;	/* heap; incus_backup_list_free() */
};

/* Start a backup of instance; op gets the operation to wait on. */
int incus_backup_create(struct incus *c, const char *instance,
    const struct incus_backup_spec *s, char *op, size_t opcap,
    struct box_err *e);

/* The instance's backups (-ENOENT: no such instance). */
int incus_backup_list(struct incus *c, const char *instance,
    struct incus_backup_list *out, struct box_err *e);

/* Delete one and wait for it (at most timeout_s). */
int incus_backup_delete(struct incus *c, const char *instance,
    const char *name, int timeout_s, struct box_err *e);

/* Download its tarball into sink; *total is the announced length or -1. */
int incus_backup_export(struct incus *c, const char *instance,
    const char *name, stream_sink sink, void *ctx, long long *total,
    struct box_err *e);

/*
 * Upload a tarball of length bytes from source as a new instance name in
 * pool; op gets the restore operation to wait on.
 */
int incus_backup_import(struct incus *c, const char *name, const char *pool,
    long long length, stream_source source, void *ctx, char *op,
    size_t opcap, struct box_err *e);

/* A pushed upload (stream_push_*, begun by incus_image_push_begin) ended:
 * the last chunk sent, op gets the operation to wait on (or
 * stream_push_abort instead). */
int incus_backup_import_end(struct stream_push *k, char *op, size_t opcap,
    struct box_err *e);

/* --- the daemon's record of an imported instance ------------------------- */

/*
 * What an import's vet judges (box/import/vet_export.h vet_daemon_index): the
 * instance as the daemon re-homed it from the export's backup.yaml, and
 * each snapshot record it made from the same file (a restore brings a
 * snapshot's config back).  Read as the daemon sent it, so a file box's
 * own reader saw differently cannot get past the vet.
 */
struct incus_held {
	char *name;			/* a snapshot's name; NULL: the instance */
	struct incus_kvs config;
	struct incus_devices devices;
	char **profiles;
	size_t nprofiles;
	int stateful;			/* 0, 1, or -1: not a boolean */
};

struct incus_backup_index {
	struct incus_held inst;
	struct incus_held *snap;	/* heap, nsnap of them */
	size_t nsnap;
};

/* The instance and its snapshots.  -ENOENT when there is no instance. */
int incus_backup_index_get(struct incus *c, const char *name,
    struct incus_backup_index *ix, struct box_err *e);

/*
 * The parser behind it (tests, the fuzzer): inst the instance object,
 * snaps the snapshot list (recursion=1, an array).  Strict where the vet
 * needs it: a member that appears twice, a config or device value that is
 * not a string or holds a NUL, devices not an object, profiles not an
 * array of strings, a snapshot without a name - -EBOX_PROTO, nothing
 * kept.  A null or absent config is empty.
 */
int incus_backup_index_from_json(const char *inst, size_t n,
    const char *snaps, size_t sn, struct incus_backup_index *ix,
    struct box_err *e);
/* The same over replies already parsed (box/import/vet_export.c's old entry). */
int incus_backup_index_from_doc(const struct json_doc *d, int inst,
    const struct json_doc *sd, int snaps, struct incus_backup_index *ix);
void incus_backup_index_free(struct incus_backup_index *ix);

#endif
