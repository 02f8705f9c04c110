/*
 * backup_test.h - what only the tests reach of backup.h: seams and helpers the
 * product does not call.  The tests and backup.c include it; nothing
 * else does.
 */
#ifndef BOX_INCUS_BACKUP_TEST_H
#define BOX_INCUS_BACKUP_TEST_H

#include "incus/backup.h"

/* What incus_backup_list() filled. */
void incus_backup_list_free(struct incus_backup_list *l);

#endif
