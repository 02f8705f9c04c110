/*
 * table.h - left-aligned columns, each as wide as its widest cell plus two
 * spaces, trailing spaces trimmed.  Cells are copied; widths count UTF-8
 * characters, not bytes.  Errors (out of memory) are sticky and reported
 * by table_print().
 */
#ifndef BOX_TABLE_H
#define BOX_TABLE_H

#include <stdio.h>

#define TABLE_MAX_COLS 8

struct table {
	int ncols, nrows, cap;
	char ***rows;		/* rows[r][c], heap */
	int err;
};

void table_init(struct table *t, int ncols);
void table_row(struct table *t, const char *const *cells);
int table_print(struct table *t, FILE *f);	/* 0 or -ENOMEM */
void table_free(struct table *t);

#endif
