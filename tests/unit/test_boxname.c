/*
 * One box-name rule: every way a verb meets a name (reading a box,
 * asking whether one exists, naming a new one) refuses the same names
 * with the same words, before anything is asked of the daemon.
 */
#include <string.h>

#include "box/box.h"
#include "box/import/cp.h"
#include "box/each.h"
#include "box/life/life.h"
#include "t.h"

TEST(box_name_one_rule_one_message)
{
	static const char *const bad[] = { "", "9lives", "-a", "a-", "a_b",
	    "a.b", "a b", "0123456789012345678901234567890123456789012345"
	    "678901234567890x" };
	struct incus c;		/* never dialled: the name is refused first */
	struct incus_instance in;
	struct box_err a, b, d;
	size_t i;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&a);
		err_clear(&b);
		err_clear(&d);
		CHECK(box_get(&c, bad[i], 0, &in, NULL, &a) < 0);
		CHECK(life_exists(&c, bad[i], &b) < 0);
		CHECK(box_new_name_ok(bad[i], "", &d) < 0);
		CHECK_INT(a.status, ERR_USAGE);
		CHECK_STR(a.msg, b.msg);
		CHECK_STR(a.msg, d.msg);
		CHECK(strstr(a.msg, BOX_NAME_RULE) != NULL);
	}
	err_clear(&a);
	CHECK_INT(box_name_check("good-name1", "", &a), 0);
}

TEST(box_glob_matches_as_the_shell_does)
{
	CHECK_INT(box_glob("w-*", "w-1"), 1);
	CHECK_INT(box_glob("w-*", "w-"), 1);
	CHECK_INT(box_glob("w-*", "x-1"), 0);
	CHECK_INT(box_glob("*", "anything"), 1);
	CHECK_INT(box_glob("a?c", "abc"), 1);
	CHECK_INT(box_glob("a?c", "ac"), 0);
	CHECK_INT(box_glob("t[0-9]", "t7"), 1);
	CHECK_INT(box_glob("t[0-9]", "tx"), 0);
	CHECK_INT(box_glob("t[!0-9]", "tx"), 1);
	CHECK_INT(box_glob("t[!0-9]", "t1"), 0);
	CHECK_INT(box_glob("*-a*-b", "x-aa-yy-b"), 1);
	CHECK_INT(box_glob("*-a*-b", "x-aa-yy-c"), 0);
	CHECK_INT(box_glob("t[", "t["), 1);	/* no ]: a plain [ */
	CHECK_INT(box_glob("**x", "abx"), 1);
}

TEST(cp_names_from_a_box_are_judged_strictly)
{
	CHECK_INT(cp_name_ok("src/a"), 0);
	CHECK_INT(cp_name_ok("src/sub/"), 0);
	CHECK(cp_name_ok("/etc/passwd") < 0);
	CHECK(cp_name_ok("x/../../y") < 0);
	CHECK(cp_name_ok("..") < 0);
	CHECK(cp_name_ok("a/./b") < 0);
	CHECK(cp_name_ok("a//b") < 0);
	CHECK(cp_name_ok("") < 0);
	CHECK(cp_name_ok("a\nb") < 0);
}
