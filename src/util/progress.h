/*
 * progress.h - showing that a long wait is alive.
 *
 * A silent multi-minute wait reads as a hang.  On a terminal (stderr) a
 * progress is one live line, rewritten in place at most a few times a
 * second; anywhere else (CI logs, pipes) it is a plain line at most every
 * PROGRESS_PERIOD_MS, so a log shows the wait moving without drowning in
 * it.  All output goes to stderr: stdout stays for results.
 */
#ifndef BOX_PROGRESS_H
#define BOX_PROGRESS_H

#include "util/clock.h"

#define PROGRESS_PERIOD_MS 10000

struct progress {
	int tty;		/* stderr is a terminal */
	int cols;		/* its width */
	int shown;		/* a live line is on screen */
	long long t0, last;	/* CLOCK_MONOTONIC ms */
	char what[96];
};


void progress_start(struct progress *p, const char *what);
/* Report detail (may be "" or NULL); prints only when due. */
void progress_note(struct progress *p, const char *detail);
/* Take the live line off the screen (call before printing anything else). */
void progress_clear(struct progress *p);

/* "1.5 MiB" / "312 KiB" / "17 B" into buf. */
void progress_bytes(char *buf, unsigned long cap, long long n);

#endif
