/*
 * import_mark.h - a granted user's import images, marked and swept.
 *
 * A granted user's import uploads the export as a private image and
 * deletes it once the box is made from it (box/import/import.c).  An import
 * killed in between (SIGKILL, a lost session) would leave that image in
 * the user's project for good.  So each carries a mark among its
 * properties, in the metadata.yaml box writes (box/import/reframe.h), so the
 * image has it from the moment it exists: the importing process as
 *   "<boot id> <pid namespace> <pid> <start time>"
 * (/proc/sys/kernel/random/boot_id, the inode of /proc/self/ns/pid, and
 * /proc/<pid>/stat's starttime, which a reused pid does not share).
 *
 * The next import, and box prune, delete every marked image of the
 * caller's project whose process is gone: on this boot and in this pid
 * namespace, no process of that pid with that start time; from anywhere
 * else (another host, an earlier boot, a container), an image older than
 * any import keeps one (IMPORT_MARK_AGE_S).  An image without a mark, or
 * whose mark does not read as one, is the user's own and never touched.
 */
#ifndef BOX_IMPORT_MARK_H
#define BOX_IMPORT_MARK_H

#include <stddef.h>

#include "box/life/life.h"
#include "incus/api.h"

#define IMPORT_MARK_PROP	"box.import"	/* the image property */
#define IMPORT_MARK_MAX		128
#define IMPORT_RESTORE_S	(6 * LIFE_OP_S)	/* unpacking a big disk */
/* the longest an import holds its image: the create it waits for */
#define IMPORT_MARK_AGE_S	(2 * IMPORT_RESTORE_S)

/* This process's mark into buf: 0, or -errno (no /proc). */
int import_mark_own(char *buf, size_t cap);
/* 1 when the process that wrote mark is gone (created and now in
 * seconds, for one from elsewhere), 0 when it may live or mark is none. */
int import_mark_stale(const char *mark, long long created, long long now);
/* Delete the caller's project's stale import images, each said: how
 * many (a failure to list or delete is left for the next sweep). */
int import_sweep(struct incus *c);

#endif
