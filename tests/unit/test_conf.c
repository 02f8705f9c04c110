/*
 * test_conf.c - the config files' parser (box/conf.h) on lines written
 * out by hand: what it takes, and each refusal with its line.
 */
#include <string.h>

#include "box/conf.h"
#include "t.h"

TEST(conf_parse_takes_keys_comments_quotes)
{
	static const char txt[] = "# defaults\n"
	    "\n"
	    "  cpu = 2\n"
	    "memory=4G\r\n"
	    "template = \"claude\"  \n"
	    "idle-stop\t=\t2h\n"
	    "egress = allow:pypi.org,github.com";
	struct conf_file f;
	struct box_err e;

	err_clear(&e);
	CHECK_INT(conf_parse("t", txt, sizeof(txt) - 1, &f, &e), 0);
	CHECK_STR(f.v[CONF_CPU], "2");
	CHECK_INT(f.line[CONF_CPU], 3);
	CHECK_STR(f.v[CONF_MEMORY], "4G");
	CHECK_STR(f.v[CONF_TEMPLATE], "claude");
	CHECK_STR(f.v[CONF_IDLE_STOP], "2h");
	CHECK_STR(f.v[CONF_EGRESS], "allow:pypi.org,github.com");
	CHECK_INT(f.line[CONF_EGRESS], 7);
	CHECK(f.v[CONF_DISK] == NULL);
	conf_free(&f);
}

TEST(conf_parse_refuses_with_the_line)
{
	static const struct {
		const char *txt, *msg;
	} t[] = {
		{ "cpu = 2\ncolour = red\n", "t:2: unknown key 'colour'" },
		{ "cpu = 2\ncpu = 3\n", "t:2: cpu set twice (first on line 1)" },
		{ "just words\n", "t:1: not 'key = value'" },
		{ "cpu =\n", "t:1: cpu has no value" },
		{ "cpu = 2\x1b[2J\n", "t:1: a control character in cpu's value" },
		{ "= 2\n", "t:1: unknown key ''" },
		{ "disk = \"\"\n", "t:1: disk has no value" },
	};
	struct conf_file f;
	struct box_err e;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		err_clear(&e);
		CHECK_INT(conf_parse("t", t[i].txt, strlen(t[i].txt), &f, &e),
		    -EINVAL);
		CHECK(strncmp(e.msg, t[i].msg, strlen(t[i].msg)) == 0);
		if (strncmp(e.msg, t[i].msg, strlen(t[i].msg)) != 0)
			CHECK_STR(e.msg, t[i].msg);
	}
	err_clear(&e);
	CHECK_INT(conf_parse("t", "cpu = 1\0x", 9, &f, &e), -EINVAL);
	/* a last line of "\r" alone ends (no loop on it) */
	err_clear(&e);
	CHECK_INT(conf_parse("t", "cpu = 1\n\r", 9, &f, &e), 0);
	conf_free(&f);
}
