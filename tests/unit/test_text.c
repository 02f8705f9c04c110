/*
 * test_text.c - the one sanitiser for hostile strings (util/text.h),
 * against known answers written out by hand.
 */
#include <stdlib.h>

#include "t.h"
#include "util/text.h"

static const char *
sh(const char *s, size_t n, size_t cap)
{
	static char out[256];

	text_shown(s, n, out, cap);
	return out;
}

TEST(text_shown_escapes_what_a_terminal_acts_on)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "plain name-1", "plain name-1" },
		{ "\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07" },
		{ "a\nFAKE RUNNING", "a\\nFAKE RUNNING" },
		{ "tab\there\r", "tab\\there\\r" },
		{ "del\x7f", "del\\x7f" },
		{ "back\\slash", "back\\\\slash" },
		{ "c1 \xc2\x9b" "31m", "c1 \\u009b31m" },	/* CSI as C1 */
		{ "bidi \xe2\x80\xae" "txt", "bidi \\u202etxt" },
		{ "iso \xe2\x81\xa6" "x\xe2\x81\xa9", "iso \\u2066x\\u2069" },
		{ "mark \xe2\x80\x8f", "mark \\u200f" },
		{ "ls \xe2\x80\xa8", "ls \\u2028" },
		{ "caf\xc3\xa9 — ok", "caf\xc3\xa9 — ok" },	/* UTF-8 stays */
		{ "bad \xff\xc0\xaf", "bad \\xff\\xc0\\xaf" },	/* overlong */
		{ "sur \xed\xa0\x80", "sur \\xed\\xa0\\x80" },	/* surrogate */
		{ "cut \xe2\x80", "cut \\xe2\\x80" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_STR(sh(t[i].in, strlen(t[i].in), 256), t[i].want);
		CHECK_INT(text_plain(t[i].in), strcmp(t[i].in, t[i].want) == 0);
	}
	/* a NUL inside counted bytes */
	CHECK_STR(sh("a\0b", 3, 256), "a\\x00b");
}

TEST(text_shown_cuts_between_escapes)
{
	char out[8];
	size_t need;
	char *d;

	need = text_shown("ab\x1b" "cdef", 7, out, sizeof(out));
	CHECK_INT((int)need, 10);
	CHECK_STR(out, "ab\\x1bc");	/* "d" would not fit */
	need = text_shown("\x1b\x1b", 2, out, 4);
	CHECK_STR(out, "");		/* no half escape */
	CHECK_INT((int)need, 8);
	d = text_shown_dup("x\ny");
	CHECK(d != NULL);
	CHECK_STR(d, "x\\ny");
	free(d);
}
