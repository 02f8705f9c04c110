/*
 * test_logs.c - box logs on a terminal (box/logs.h): a line at a time
 * through the sanitiser, "\r\n" one ending, a partial line kept back until
 * its newline, against answers written out by hand.
 */
#include <stdio.h>
#include <stdlib.h>

#include "box/logs.h"
#include "t.h"

static char *
shown(const char *const *pieces, int final)
{
	static char out[4096];
	struct logs_pend pend = { NULL, 0 };
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	int i;

	for (i = 0; pieces[i] != NULL; i++)
		logs_show(f, pieces[i], strlen(pieces[i]), &pend, 0);
	if (final)
		logs_show(f, "", 0, &pend, 1);
	out[ftell(f)] = '\0';
	fclose(f);
	free(pend.p);
	return out;
}

TEST(logs_show_escapes_each_line)
{
	const char *a[] = { "boot ok\r\n\x1b]0;owned\x07x\r\nrm\rFAKE\n",
	    NULL };
	const char *b[] = { "half", " a line", "\r", "\nnext", NULL };
	const char *c[] = { "no newline at all", NULL };
	const char *d[] = { "bidi \xe2\x80\xae" "txt\n", NULL };

	CHECK_STR(shown(a, 0), "boot ok\n\\x1b]0;owned\\x07x\nrm\\rFAKE\n");
	/* kept back across pieces; "\r" then "\n" in the next: one ending */
	CHECK_STR(shown(b, 0), "half a line\n");
	CHECK_STR(shown(b, 1), "half a line\nnext\n");
	CHECK_STR(shown(c, 0), "");
	CHECK_STR(shown(c, 1), "no newline at all\n");
	CHECK_STR(shown(d, 1), "bidi \\u202etxt\n");
}

TEST(logs_show_cuts_long_lines_between_characters)
{
	static char in[3000], out[8192];
	struct logs_pend pend = { NULL, 0 };
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	size_t i, n;

	/* "é" (2 bytes) repeated: a cut every 1024 bytes must not split one */
	for (i = 0; i + 1 < 2998; i += 2) {
		in[i] = '\xc3';
		in[i + 1] = '\xa9';
	}
	in[2998] = '\n';
	logs_show(f, in, 2999, &pend, 1);
	n = (size_t)ftell(f);
	fclose(f);
	CHECK_INT(n, 2999);
	CHECK(memchr(out, '\\', n) == NULL);	/* no \xNN: no split */
	free(pend.p);
}
