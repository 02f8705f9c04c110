/*
 * backup.h - export files: what is inside, and whether they are whole.
 *
 * An export is an Incus instance backup: a tarball (gzip here) whose first
 * member is backup/index.yaml, naming the instance.  Beside it box writes
 * <file>.sha256, one line in sha256sum(1) format, and import checks the
 * file against it before anything is uploaded: a truncated or corrupted
 * export is refused with nothing created.
 */
#ifndef BOX_BACKUP_H
#define BOX_BACKUP_H

#include <stddef.h>

#include "util/err.h"

/* bytes of the file read to find the name */
#define BACKUP_PEEK	(1u << 20)
#define BACKUP_INDEX_MAX (256u << 10)	/* largest index.yaml we read */

/*
 * The instance name in backup/index.yaml of a tar image tar[0..n): the
 * member is found among the leading entries, its top-level "name:" read.
 * 0, -ENOENT (no index.yaml / no name in what was given), -EBOX_PROTO
 * (not a tar).
 */
int backup_tar_name(const unsigned char *tar, size_t n, char *name,
    size_t cap);

/* "<file>.sha256" */
int backup_sidecar_path(const char *file, char *buf, size_t cap);

/*
 * The digest recorded for file in its sidecar: 64 lower-case hex digits in
 * hex.  -ENOENT when there is no sidecar; a malformed one fails.
 */
int backup_sidecar_read(const char *file, char hex[65], struct box_err *e);

/* A sidecar is one line: more than this is not one (refused). */
#define BACKUP_SIDECAR_MAX	4096

/*
 * The digest at the start of a sidecar's bytes buf[0..n): 64 hex digits
 * (either case) then the end, a space, a tab or a newline.  0 with hex,
 * or -EBOX_PROTO.  (What backup_sidecar_read parses; fuzzed.)
 */
int backup_sidecar_parse(const char *buf, size_t n, char hex[65]);

/* Format one sidecar line for digest and the file's base name. */
int backup_sidecar_line(const unsigned char digest[32], const char *file,
    char *buf, size_t cap);

void backup_hex(const unsigned char digest[32], char hex[65]);

#endif
