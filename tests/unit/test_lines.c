/* Unit tests for util/lines: our own "key value" line records. */
#include <errno.h>
#include <string.h>

#include "t.h"
#include "util/err.h"
#include "util/lines.h"

TEST(lines_walk_and_refuse)
{
	static const char rec[] = "a 1\n\nb two words\r\nc\nlast x";
	char k[8], v[16], big[LINES_MAX_LINE + 8];
	struct lines l;

	lines_init(&l, rec, sizeof(rec) - 1);
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 1);
	CHECK_STR(k, "a");
	CHECK_STR(v, "1");
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 1);
	CHECK_STR(v, "two words");
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 1);
	CHECK_STR(k, "c");
	CHECK_STR(v, "");
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 1);
	CHECK_STR(v, "x");
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 0);
	/* a NUL byte, a bad key, a value too long for the caller */
	lines_init(&l, "a \0b\n", 5);
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), -EBOX_PROTO);
	lines_init(&l, "A 1\n", 4);
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), -EBOX_PROTO);
	lines_init(&l, "a 0123456789abcdef\n", 19);
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), -EBOX_PROTO);
	memset(big, 'a', sizeof(big));
	lines_init(&l, big, sizeof(big));
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), -EBOX_PROTO);
}

TEST(lines_writer_keeps_values_on_their_line)
{
	char buf[32], k[8], v[24];
	struct lines_w w;
	struct lines l;

	lines_w_init(&w, buf, sizeof(buf));
	lines_put(&w, "why", "%s", "one\ntwo\rthree");
	CHECK_INT(lines_w_end(&w), 0);
	CHECK_STR(buf, "why one two three\n");
	lines_init(&l, buf, strlen(buf));
	CHECK_INT(lines_next(&l, k, sizeof(k), v, sizeof(v)), 1);
	CHECK_STR(v, "one two three");
	lines_put(&w, "more", "%s", "does not fit in what is left");
	CHECK_INT(lines_w_end(&w), -ENOSPC);
	CHECK_STR(buf, "why one two three\n");
}
