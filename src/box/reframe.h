/*
 * reframe.h - an export's tar re-framed for a restricted project.
 *
 * In a restricted project (a granted user's, box grant) Incus refuses an
 * import whose config sets any volatile.* key - seen: volatile.idmap.*
 * and volatile.last_state.idmap (the id map the instance was last started
 * with, which every export of a started container carries), then
 * volatile.uuid - before it creates anything.  Those keys are the
 * daemon's own bookkeeping; without them it makes the box a new instance
 * (a uuid, a MAC, an id map onto the project's ids at first start; a
 * cloud-init instance id of its own).  So a granted user's import sends
 * the plain tar (the daemon reads an uncompressed one as readily as a
 * gzip one), each config document (vet_export_doc_kind) with those lines
 * left out and its header's size and checksum written again.  Every other byte - other
 * members, their headers, the padding, the end blocks - passes through
 * as it came.
 *
 * A line is dropped only when it is, whole, "<indent>volatile.<key>:
 * <scalar>", the scalar on that line alone (plain,
 * or a closed single- or double-quoted string) and the next line no
 * deeper: nothing that could change how the rest of the document reads.
 * A member named through a PAX or GNU long-name header before it, or any
 * member after a PAX global header, is left alone (its name is not the
 * header's).  This is not a defence - the vet judged the file as it
 * came, and the daemon's record is vetted again before the box starts
 * (box/import.c) - only what the daemon needs to take the file at all.
 */
#ifndef BOX_REFRAME_H
#define BOX_REFRAME_H

#include <stddef.h>

#include "box/tar.h"

typedef int (*reframe_out)(void *ctx, const void *p, size_t n);

struct reframe {
	reframe_out out;
	void *ctx;
	int state;
	unsigned char hdr[TAR_BLOCK];
	size_t hn;
	unsigned long long left, pad;	/* data still to pass or gather */
	char *doc;			/* the config document gathered */
	size_t dn, dsize;
	int ext, global;		/* a long name or PAX header came first */
	int rc;				/* sticky */
	unsigned lines, docs;		/* what was left out, where */
};

void reframe_init(struct reframe *r, reframe_out out, void *ctx);
/* The plain tar's next bytes: 0, or < 0 (sticky: the out callback's code,
 * -ENOMEM, -EBOX_PROTO for a size field no reader takes). */
int reframe_feed(struct reframe *r, const void *p, size_t n);
/* The end: 0 when it ended between members, -ENODATA inside one. */
int reframe_end(struct reframe *r);
void reframe_free(struct reframe *r);

/* The lines of doc[0..n) left out in place; the new length.  *dropped
 * counts them.  Pure (the unit tests and the fuzzer drive it). */
size_t reframe_drop_volatile(char *doc, size_t n, unsigned *dropped);

#endif
