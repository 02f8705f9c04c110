/*
 * backup_test.h - what only the tests reach of backup.h: seams and helpers the
 * product does not call.  The tests and backup.c include it; nothing
 * else does.
 */
#ifndef BOX_BOX_IMPORT_BACKUP_TEST_H
#define BOX_BOX_IMPORT_BACKUP_TEST_H

#include "box/import/backup.h"

/*
 * The same for a file: plain tar or gzip.  Other compressions fail with a
 * message asking for --name.
 */
int backup_peek_name(const char *path, char *name, size_t cap,
    struct box_err *e);

#endif
