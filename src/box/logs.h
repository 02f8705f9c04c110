/*
 * logs.h - what a box wrote to its console, or cloud-init's output log,
 * shown without trusting a byte of it.
 *
 * Both are written by the box, so both are hostile: on a terminal every
 * line goes through text_shown() (an escape sequence arrives as text, a
 * carriage return cannot rewrite a line); into a pipe or a file the bytes
 * go as they are.  Every read is bounded: at most LOGS_KEEP bytes kept
 * (the newest), at most LOGS_READ_MAX read per fetch, LOGS_FETCH_S
 * seconds per fetch whatever the box does to the file (a FIFO, a
 * trickle).
 */
#ifndef BOX_LOGS_H
#define BOX_LOGS_H

#include <stdio.h>

#include "util/err.h"

#define LOGS_KEEP	(1u << 20)	/* the newest bytes shown per fetch */
#define LOGS_READ_MAX	(64ll << 20)	/* a fetch reads no more than this */
#define LOGS_FETCH_S	30		/* nor for longer than this */
#define LOGS_POLL_MS	1000		/* --follow: a fetch a second */

/* The log box logs shows. */
enum logs_src {
	LOGS_CONSOLE,		/* the daemon's console log */
	LOGS_CLOUD_INIT,	/* /var/log/cloud-init-output.log, files API */
};

#define LOGS_CLOUD_INIT_PATH "/var/log/cloud-init-output.log"

struct logs_req {
	const char *name;
	int src;		/* enum logs_src */
	int follow;		/* poll until interrupted (or the box goes) */
	int lines;		/* > 0: only the last this many, first fetch */
	int shown;		/* sanitise (stdout is a terminal) */
};

int box_logs(const struct logs_req *q, struct box_err *e);

/*
 * The text_shown() form of s[0..n) on out: a line at a time, each ended
 * by a newline (a "\r\n" ending counts as one); a last line without a
 * newline is kept back in *pend (heap, at most 64 KiB, then flushed as
 * it is) unless final.  Exposed for the unit test.
 */
struct logs_pend {
	char *p;
	size_t n;
};
void logs_show(FILE *out, const char *s, size_t n, struct logs_pend *pend,
    int final);

#endif
