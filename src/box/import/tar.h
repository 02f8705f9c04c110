/*
 * tar.h - one 512-byte tar header and one PAX extended header, read the
 * same way by every tar reader of box (backup.c's name peek,
 * vet_export.c's whole-archive walk, reframe.c's re-framer: the vet
 * judges what the re-framer writes, so the two must see one member).
 *
 * Strict on purpose: an export is hostile, and a header two readers could
 * take differently is refused rather than guessed at.
 */
#ifndef BOX_TAR_H
#define BOX_TAR_H

#include <stddef.h>

#define TAR_BLOCK	512

/*
 * A number field p[0..n): octal (leading spaces, then digits, then only
 * spaces and NULs) or GNU base-256 (0x80, then big-endian bytes), as GNU
 * tar and Go write for sizes octal cannot hold.  -1 for anything else, a
 * negative base-256 number, or one too big for any real file (more than
 * 2^50 before its last digit or byte).
 */
long long tar_num(const unsigned char *p, size_t n);

/*
 * NULL when h is a header box reads: its checksum (octal only, over the
 * header with the checksum field as spaces) matches and its magic is
 * POSIX ustar ("ustar\0" "00") or GNU ("ustar  \0").  Otherwise why not,
 * as a phrase for a message ("a tar header with a bad checksum").
 */
const char *tar_header_bad(const unsigned char *h);

/* The name and link fields a PAX header may carry, and their bound. */
#define TAR_PAX_NAME	4096
/* The records one PAX header may hold (path, times, ids, xattrs...). */
#define TAR_PAX_RECS	256

/* One "len key=value\n" record of a PAX header. */
struct tar_rec {
	const char *p, *k, *v;	/* the record, its key, its value */
	size_t n, kn, vn;
};

/*
 * The record at *at of p[0..n) into x, *at moved past it: 0, 1 at the
 * end, -1 when malformed (a length that is not decimal digits then a
 * space, runs past n or is not ended by a newline; no '=').
 */
int tar_pax_next(const char *p, size_t n, size_t *at, struct tar_rec *x);

/* What a PAX header says about the member after it. */
struct tar_pax {
	char path[TAR_PAX_NAME], link[TAR_PAX_NAME];
	unsigned long long size;
	int has_path, has_link, has_size;
};

/*
 * Read p[0..n) into f: NULL, or why not as a phrase.  Refused: a
 * malformed record, a key that comes twice (readers differ on which one
 * wins: GNU tar and libarchive take the last, others the first), more
 * than TAR_PAX_RECS records, an empty
 * or over-long path or linkpath or one holding a NUL, a size that is not
 * 1..18 decimal digits, a GNU.sparse key.
 */
const char *tar_pax_read(const char *p, size_t n, struct tar_pax *f);

#endif
