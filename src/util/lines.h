/*
 * lines.h - our own line records: "key value" lines.
 *
 * What box's in-box probes print back to the host is not Incus's JSON and
 * needs none of JSON's nesting: one fact per line, the key up to the first
 * space, the value the rest of the line.  Reading it is a bounded walk
 * (no tape, no allocation); the text comes from a box, so every line is
 * checked and a line too long, a NUL byte or a key that is not [a-z0-9_-]
 * fails the whole record.  Writing never lets a value break its line.
 */
#ifndef BOX_LINES_H
#define BOX_LINES_H

#include <stddef.h>

#define LINES_MAX_LINE	512

struct lines {
	const char *p, *end;
};

void lines_init(struct lines *l, const char *buf, size_t n);

/*
 * The next line: 1 with key and val (NUL-terminated) filled, 0 at the end,
 * -EBOX_PROTO when the line is malformed or does not fit key/val.  Empty
 * lines are skipped.
 */
int lines_next(struct lines *l, char *key, size_t kcap, char *val,
    size_t vcap);

/* A record being written into a fixed buffer (sticky -ENOSPC). */
struct lines_w {
	char *buf;
	size_t cap, len;
	int err;
};

void lines_w_init(struct lines_w *w, char *buf, size_t cap);
/* "key value\n"; control bytes in the value become spaces. */
void lines_put(struct lines_w *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 0, or -ENOSPC when something did not fit. */
int lines_w_end(struct lines_w *w);

#endif
