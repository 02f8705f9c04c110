/*
 * vet_export_test.h - what only the tests reach of vet_export.h: seams and helpers the
 * product does not call.  The tests and vet_export.c include it; nothing
 * else does.
 */
#ifndef BOX_BOX_IMPORT_VET_EXPORT_TEST_H
#define BOX_BOX_IMPORT_VET_EXPORT_TEST_H

#include "box/import/vet_export.h"

/* The same over a plain tar or gzip image in memory (tests, fuzzing). */
int vet_export_mem(const unsigned char *buf, size_t n, struct vet *v,
    char *name, size_t cap, struct box_err *e);

#endif
