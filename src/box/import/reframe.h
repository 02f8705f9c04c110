/*
 * reframe.h - a container export re-framed as a private image, for a
 * restricted project.
 *
 * Incus refuses every backup restore in a restricted project that does
 * not allow low-level container options (a granted user's, box grant):
 * since "incusd/instances_post: Add extra validation during backup
 * import" (upstream 4330648a95, stable-6.0 15a5344774, in Debian's
 * 6.0.4-2+deb13u7) the restore re-runs project.AllowInstanceCreation on
 * the instance it has just created, config as rendered, and
 * checkRestrictionsOnVolatileConfig (internal/server/project/
 * permissions.go) forbids every volatile.* key outside a short safe list
 * - among them volatile.uuid, uuid.generation, idmap.base, idmap.next
 * and cloud-init.instance-id, which instance.CreateInternal and the lxc
 * driver set on every new instance.  So no upload, however clean, can
 * pass (the key named is whichever the map yields first).  Creating an
 * instance from an image is the path a restricted project allows.
 *
 * So a granted user's import sends the export's root filesystem as a
 * unified image tarball, every header written here: first a
 * metadata.yaml box writes (the architecture, the date, the importing
 * process's mark when the caller set one, no templates),
 * then each member at or under backup/container/rootfs/ renamed to
 * rootfs/..., its data as it came; everything else (index.yaml,
 * backup.yaml, the container's metadata.yaml and templates, snapshots)
 * is left out.  A member's name and link target are read as the vet
 * reads them (a GNU long name or link, a PAX path or linkpath, else the
 * ustar prefix and name) and written in a POSIX ustar header, with a PAX
 * header before it when a name or target does not fit or a PAX header
 * came with it (its other records - xattrs, times, a size - carried as
 * they came).  A hard link's target is renamed the same way; a symbolic
 * link's is the box's own.  A PAX global header is refused.
 *
 * This is not a defence: the vet judges the export beside the upload and
 * withholds the last bytes when it refuses (box/import/vet_bg.h), and the
 * instance made from the image is vetted as the daemon holds it before
 * it ever starts (box/import/import.c).  backup/container/backup.yaml is kept
 * (ct, ctn) for the instance's own config.
 */
#ifndef BOX_REFRAME_H
#define BOX_REFRAME_H

#include <stddef.h>

#include "box/import/tar.h"

typedef int (*reframe_out)(void *ctx, const void *p, size_t n);

struct reframe {
	reframe_out out;
	void *ctx;
	const char *arch;		/* metadata.yaml's architecture */
	long long when;			/* and its creation_date */
	const char *mark;		/* its box.import property, or NULL
					 * (box/import/import_mark.h) */
	int state, began;
	unsigned char hdr[TAR_BLOCK];
	size_t hn;
	unsigned long long left;	/* bytes to pass, skip or gather */
	int kind;			/* what is being gathered */
	char *buf;			/* it */
	size_t bn, bcap;
	char *pax, *lname, *llink;	/* the extended headers so far */
	size_t paxn;
	char *ct;			/* backup/container/backup.yaml */
	size_t ctn;
	int rc;				/* sticky */
	unsigned members;		/* rootfs members written */
	unsigned snaps;			/* snapshots left out */
	/* each member as the re-framer reads it (name and link before the
	 * rename): for the differential fuzzer, fuzz_tar_diff; or NULL */
	void (*seen)(void *ctx, const char *name, char type, long long size,
	    const char *link);
	void *seen_ctx;
};

void reframe_init(struct reframe *r, reframe_out out, void *ctx,
    const char *arch, long long when);
/* The plain tar's next bytes: 0, or < 0 (sticky: the out callback's code,
 * -ENOMEM, -EBOX_PROTO for a header it will not rewrite). */
int reframe_feed(struct reframe *r, const void *p, size_t n);
/* The end blocks out: 0 when the input ended between members, -ENODATA
 * inside one. */
int reframe_end(struct reframe *r);
void reframe_free(struct reframe *r);

#endif
