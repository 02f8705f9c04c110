/*
 * The BOX_YES rule (util/prompt.h consent_parse/consent_env): every class
 * of value.  Before it, any non-empty value was yes ("0" and "no" too).
 */
#include <stdio.h>
#include <stdlib.h>

#include "t.h"
#include "util/prompt.h"

TEST(consent_yes_values)
{
	static const char *const v[] = { "1", "yes", "YES", "Yes", "yEs",
	    "true", "TRUE", "True", "tRuE" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (consent_parse(v[i]) != 1)
			t_fail(__FILE__, __LINE__, "'%s' is not yes", v[i]);
}

TEST(consent_no_values)
{
	static const char *const v[] = { "", "0", "no", "NO", "No", "false",
	    "FALSE", "False", "fAlSe" };
	size_t i;

	CHECK_INT(consent_parse(NULL), 0);	/* unset */
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (consent_parse(v[i]) != 0)
			t_fail(__FILE__, __LINE__, "'%s' is not no", v[i]);
}

TEST(consent_other_values_are_usage_errors)
{
	/* Near misses, padding, other spellings of yes and no, numbers. */
	static const char *const v[] = { "maybe", "y", "n", "ye", "yess",
	    "t", "f", "on", "off", "2", "-1", "01", "00", " 1", "1 ", "yes\n",
	    "true ", " ", "\t", "nope", "yes please" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (consent_parse(v[i]) != -EINVAL)
			t_fail(__FILE__, __LINE__, "'%s' was not refused",
			    v[i]);
}

TEST(consent_env_reads_box_yes)
{
	struct box_err e;
	char *old = getenv("BOX_YES");
	char save[64] = "";

	if (old != NULL)
		snprintf(save, sizeof(save), "%s", old);
	err_clear(&e);
	unsetenv("BOX_YES");
	CHECK_INT(consent_env(&e), 0);
	setenv("BOX_YES", "0", 1);
	CHECK_INT(consent_env(&e), 0);
	setenv("BOX_YES", "false", 1);
	CHECK_INT(consent_env(&e), 0);
	setenv("BOX_YES", "True", 1);
	CHECK_INT(consent_env(&e), 1);
	CHECK_INT(e.code, 0);
	setenv("BOX_YES", "maybe", 1);
	CHECK_INT(consent_env(&e), -EINVAL);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK(strstr(e.msg, "BOX_YES=maybe") != NULL);
	CHECK(strstr(e.fix, "1, yes, true") != NULL);
	CHECK(strstr(e.fix, "0, no, false") != NULL);
	/* A long value is shown bounded, not whole. */
	err_clear(&e);
	setenv("BOX_YES", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", 1);
	CHECK_INT(consent_env(&e), -EINVAL);
	CHECK(strstr(e.msg, "...") != NULL);
	CHECK(strlen(e.msg) < 100);
	if (old != NULL)
		setenv("BOX_YES", save, 1);
	else
		unsetenv("BOX_YES");
}
