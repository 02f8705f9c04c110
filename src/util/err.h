/*
 * err.h - errors as values.
 *
 * Every fallible function returns 0 (or a non-negative count) on success and
 * a negative errno-style code on failure.  When it is handed a struct
 * box_err it also records one human sentence about what failed and, when a
 * remedy is known, the command that fixes it.  Only main() prints an error
 * and turns it into an exit status (0 ok, 1 it went wrong, 2 you asked
 * wrong).
 *
 * The error is sticky: the first failure recorded wins and later err_set()
 * calls are ignored.  The lowest layer knows the most precise story (the
 * daemon's own words, the kernel's errno), so a caller that fails "because
 * the layer below failed" must not overwrite it; it may add context in
 * front with err_context().
 */
#ifndef BOX_ERR_H
#define BOX_ERR_H

#include <stddef.h>

enum { ERR_FAIL = 1, ERR_USAGE = 2 };

struct box_err {
	int code;		/* negative errno-style; 0 while clear */
	int status;		/* exit status main() uses: ERR_FAIL or ERR_USAGE */
	char msg[768];		/* "what failed: why" */
	char fix[384];		/* what to run, or "" */
};

void err_clear(struct box_err *e);

/* Record a failure (if none is recorded yet); returns code (< 0). */
int err_set(struct box_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like err_set(), but the user asked wrong: main() exits 2. */
int err_usage(struct box_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Attach the remedy line, unless one is already attached. */
void err_fix(struct box_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the recorded message with "context: ". No-op while clear. */
void err_context(struct box_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* strerror() for our negative codes (adds a few of our own). */
const char *err_str(int code);

/* Our codes beyond errno, kept clear of the errno range. */
#define EBOX_PROTO	4001	/* the peer broke its protocol */
#define EBOX_TOOBIG	4002	/* a reply exceeded a documented limit */
#define EBOX_API	4003	/* the daemon answered with an error */
#define EBOX_NOTBOX	4004	/* an instance box did not mint */

#endif
