/*
 * vet_bg.h - the export's vet (vet_export.h) run beside the upload.
 *
 * A child process reads the file on its own and vets it while the parent
 * sends it; the parent asks for the verdict before it sends the last
 * bytes, and withholds them if the file is refused, so the daemon (which
 * stores the whole body before it reads any of it) creates nothing - the
 * same guarantee as a vet before the upload, at the cost of one read of
 * the file that the page cache mostly serves.
 */
#ifndef BOX_VET_BG_H
#define BOX_VET_BG_H

#include <sys/types.h>

#include "box/box.h"
#include "box/vet.h"
#include "util/err.h"

struct vet_verdict {
	int rc;				/* vet_export_file()'s */
	struct vet v;
	char name[BOX_NAME_MAX + 64];	/* the name recorded inside */
	struct box_err e;		/* why, when rc < 0 */
};

struct vet_bg {
	pid_t pid;			/* 0: none running */
	int fd;				/* the verdict's pipe */
};

/* Start vetting file in a child.  0, or < 0 (e says why). */
int vet_bg_start(struct vet_bg *b, const char *file, struct box_err *e);

/*
 * The verdict (waits for it).  0 with out filled, or < 0 when the child
 * gave none (e says why).  Reaps the child; harmless to call twice.
 */
int vet_bg_wait(struct vet_bg *b, struct vet_verdict *out, struct box_err *e);

/* Stop and reap the child without its verdict (an upload that failed). */
void vet_bg_cancel(struct vet_bg *b);

#endif
