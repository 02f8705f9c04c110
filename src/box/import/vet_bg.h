/*
 * vet_bg.h - the export's vet (vet_export.h) run beside the upload.
 *
 * A child process vets the very bytes the upload sends: the parent feeds
 * each chunk it read for the daemon down a pipe (so a file swapped or
 * rewritten under box cannot show the vet one archive and the daemon
 * another), asks for the verdict before it sends the last bytes, and
 * withholds them if the file is refused, so the daemon (which stores the
 * whole body before it reads any of it) creates nothing - the same
 * guarantee as a vet before the upload.
 */
#ifndef BOX_VET_BG_H
#define BOX_VET_BG_H

#include <sys/types.h>

#include "box/box.h"
#include "box/life/vet.h"
#include "util/err.h"

struct vet_verdict {
	int rc;				/* vet_export_fd()'s */
	struct vet v;
	char name[BOX_NAME_MAX + 64];	/* the name recorded inside */
	struct box_err e;		/* why, when rc < 0 */
};

struct vet_bg {
	pid_t pid;			/* 0: none running */
	int fd;				/* the verdict's pipe */
	int feed;			/* the bytes' pipe, or -1 */
};

/* Start the vet in a child, reading what vet_bg_feed gives it, refusing
 * an export that unpacks to more than bound (vet.h).  0, or < 0 (e says
 * why).  SIGPIPE is ignored from then on. */
int vet_bg_start(struct vet_bg *b, unsigned long long bound,
    struct box_err *e);

/* The next bytes of the file (a vet that already stopped ignores them). */
void vet_bg_feed(struct vet_bg *b, const void *buf, size_t n);

/*
 * The end of the bytes, then the verdict (waits for it).  0 with out filled, or < 0 when the child
 * gave none (e says why).  Reaps the child; harmless to call twice.
 */
int vet_bg_wait(struct vet_bg *b, struct vet_verdict *out, struct box_err *e);

/* Stop and reap the child without its verdict (an upload that failed). */
void vet_bg_cancel(struct vet_bg *b);

#endif
