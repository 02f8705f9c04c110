#include "util/table.h"
#include "util/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
table_init(struct table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > TABLE_MAX_COLS ? TABLE_MAX_COLS : ncols;
}

void
table_row(struct table *t, const char *const *cells)
{
	char **row;
	int i;

	if (t->err)
		return;
	if (t->nrows == t->cap) {
		int ncap = t->cap ? t->cap * 2 : 16;
		char ***n = realloc(t->rows, (size_t)ncap * sizeof(*n));

		if (n == NULL) {
			t->err = -ENOMEM;
			return;
		}
		t->rows = n;
		t->cap = ncap;
	}
	row = calloc((size_t)t->ncols, sizeof(*row));
	if (row == NULL) {
		t->err = -ENOMEM;
		return;
	}
	t->rows[t->nrows++] = row;
	for (i = 0; i < t->ncols; i++) {
		/* cells hold what daemons, boxes and files said: shown */
		row[i] = text_shown_dup(cells[i] ? cells[i] : "");
		if (row[i] == NULL)
			t->err = -ENOMEM;
	}
}

/* Display width: UTF-8 continuation bytes take no column. */
static int
width(const char *s)
{
	int w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

int
table_print(struct table *t, FILE *f)
{
	int w[TABLE_MAX_COLS] = { 0 }, r, c, last;

	if (t->err)
		return t->err;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (width(t->rows[r][c]) > w[c])
				w[c] = width(t->rows[r][c]);
	for (r = 0; r < t->nrows; r++) {
		for (last = t->ncols - 1; last > 0 && t->rows[r][last][0] == '\0';
		    last--)
			;
		for (c = 0; c <= last; c++) {
			fputs(t->rows[r][c], f);
			if (c < last)
				fprintf(f, "%*s", w[c] - width(t->rows[r][c]) +
				    2, "");
		}
		fputc('\n', f);
	}
	return 0;
}

void
table_free(struct table *t)
{
	int r, c;

	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
