/* The verb table: aliases, suggestions, groups. */
#include <string.h>

#include "cmd/cmd.h"
#include "t.h"

static const char *
found(const char *word)
{
	const struct verb *v = verb_find(word);

	return v != NULL ? v->name : "(none)";
}

static const char *
suggested(const char *word)
{
	const struct verb *v = verb_suggest(word);

	return v != NULL ? v->name : "(none)";
}

TEST(verb_aliases_run_the_verb_they_name)
{
	const struct verb_alias *a;

	CHECK_STR(found("stop"), "down");
	CHECK_STR(found("delete"), "rm");
	CHECK_STR(found("launch"), "new");
	CHECK_STR(found("create"), "new");
	CHECK_STR(found("ls"), "list");
	CHECK_STR(found("ssh"), "shell");
	CHECK_STR(found("sh"), "shell");
	CHECK_STR(found("up"), "start");
	CHECK_STR(found("list"), "list");
	CHECK_STR(found("lsit"), "(none)");
	for (a = box_aliases; a->word != NULL; a++) {
		const struct verb *v;

		/* an alias never shadows a verb, and names a real one */
		for (v = box_verbs; v->name != NULL; v++)
			CHECK(strcmp(v->name, a->word) != 0);
		CHECK(verb_find(a->verb) != NULL);
	}
}

TEST(verb_suggestions_keep_off_destructive_verbs)
{
	CHECK_STR(suggested("lsit"), "list");
	CHECK_STR(suggested("strat"), "start");
	CHECK_STR(suggested("dwn"), "down");
	/* one edit off a destructive verb or its alias: named */
	CHECK_STR(suggested("rmm"), "rm");
	CHECK_STR(suggested("delet"), "rm");
	/* two edits off rm: never rm */
	CHECK_STR(suggested("rx"), "rm");
	CHECK_STR(suggested("qx"), "(none)");
	CHECK_STR(suggested("xy"), "(none)");
	CHECK(strcmp(suggested("rmove"), "rm") == 0);
	CHECK(strcmp(suggested("rmovx"), "rm") != 0);
	CHECK(strcmp(suggested("uninstal"), "uninstall") == 0);
	CHECK(strcmp(suggested("unnstal"), "uninstall") != 0);
	CHECK(strcmp(suggested("teardown-hst"), "teardown-host") == 0);
	CHECK(strcmp(suggested("tardown-hst"), "teardown-host") != 0);
}

TEST(verb_table_is_grouped_and_flagged)
{
	const struct verb *v;

	for (v = box_verbs; v->name != NULL; v++) {
		if (!(v->flags & V_HIDDEN))
			CHECK(v->group != VG_OTHER);
	}
	CHECK(verb_find("rm")->flags & V_DESTRUCTIVE);
	CHECK(verb_find("restore")->flags & V_DESTRUCTIVE);
	CHECK(verb_find("teardown-host")->flags & V_DESTRUCTIVE);
	CHECK(!(verb_find("list")->flags & V_DESTRUCTIVE));
}
