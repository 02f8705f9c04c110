/*
 * text.h - text from elsewhere made fit to print, and the timestamps box
 * writes.
 *
 * Guest output (cloud-init's log, a console) is untrusted: it may carry
 * terminal escape sequences that retitle, recolour or rewrite the user's
 * terminal (text_shown: escaped, never dropped).
 */
#ifndef BOX_TEXT_H
#define BOX_TEXT_H

#include <stddef.h>
#include <time.h>


/*
 * THE sanitiser for every string that came from a daemon, a box or a file
 * on its way to a terminal (tables, info, errors, progress, notes): the
 * string shown, escaped, on one line.  C0 controls and DEL as \xNN (\n,
 * \r, \t for those three: a newline must not forge a row), a backslash
 * as \\, bytes that are not UTF-8 as \xNN, C1 controls, bidi overrides,
 * isolates and marks and the line/paragraph separators as \uNNNN; any
 * other character as it is.  s[0..n) into out[0..cap), always
 * NUL-terminated when cap > 0 and cut only between two characters or
 * escapes; returns the length the whole would need (so >= cap: cut).
 */
size_t text_shown(const char *s, size_t n, char *out, size_t cap);

/* The same for a C string into a new heap string; NULL: no memory. */
char *text_shown_dup(const char *s);

/* text_shown over buf's own C string, in place, cut to cap; the new
 * length. */
size_t text_shown_in(char *buf, size_t cap);

/* 1 when s shows as it is (text_shown would change nothing). */
int text_plain(const char *s);

/*
 * The start of the last `lines` non-blank lines of s[0..n) (a pointer into
 * s; s itself when it has fewer).
 */
const char *text_tail(const char *s, size_t n, int lines);

/* t as "2026-11-30T13:03:53Z" (UTC); cap >= 21. */
void text_utc(char *buf, size_t cap, time_t t);
/* t as "20261130T130353Z" (UTC, for file names); cap >= 17. */
void text_utc_compact(char *buf, size_t cap, time_t t);

/* The value of one hex digit, or -1. */
int text_hexval(int ch);

/* A decimal in [lo, hi] with nothing else: 0 and *out, or -1. */
int text_uint(const char *s, long lo, long hi, long *out);

/*
 * Each line of text[0..n), trimmed of blanks, to fn (comments skipped;
 * a line of 256 bytes or more is skipped too).
 */
void text_each_line(const char *text, size_t n,
    void (*fn)(const char *, void *), void *arg);

#endif
