/*
 * tar.h - one 512-byte tar header, read the same way by both of box's tar
 * readers (backup.c's name peek and vet_export.c's whole-archive walk).
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

#endif
