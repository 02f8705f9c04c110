/*
 * export.h - the pipeline behind `box export`: a stopped box's disk (and
 * its snapshots) as an Incus backup tarball written whole to a file, with
 * <file>.sha256 beside it; progress on stderr, a half-written file never
 * left behind.
 */
#ifndef BOX_EXPORT_H
#define BOX_EXPORT_H

#include "util/err.h"

/* What was asked (the file name already chosen and checked). */
struct box_export_req {
	const char *box;
	const char *file;
	const char *stamp;	/* UTC, compact: names the daemon's backup */
	int instance_only;	/* leave the snapshots out */
	int force;		/* replace an existing file */
};

/* The verb's result. */
struct box_export_out {
	long long bytes;	/* the file's size */
	char sha256[65];	/* its digest, hex */
};

int box_export(const struct box_export_req *q, struct box_export_out *out,
    struct box_err *e);

#endif
