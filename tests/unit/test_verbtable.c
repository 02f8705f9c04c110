/* The verb table: aliases, suggestions, groups. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_test.h"
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
	/* "rmove" is one edit off move too, since box move */
	CHECK(strcmp(suggested("remov"), "rm") == 0);
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

struct rows_seen {
	int n, bad;
	char why[160];
};

static void
check_rows(const char *verb, const struct opt *rows, void *ctx)
{
	struct rows_seen *s = ctx;
	const struct opt *o;

	s->n++;
	for (o = rows; o->kind != OK_END; o++) {
		int opt = o->kind >= OK_FLAG && o->kind <= OK_OPTVAL;

		if (opt && (strncmp(o->name, "--", 2) != 0 || o->bind == NULL ||
		    (o->alias != NULL && (o->alias[0] != '-' ||
		    strlen(o->alias) != 2)))) {
			s->bad++;
			snprintf(s->why, sizeof(s->why), "%s: %s", verb, o->name);
		}
		if (o->kind == OK_ARG && o->max != OPT_ANY && o->max < o->min) {
			s->bad++;
			snprintf(s->why, sizeof(s->why), "%s: %s count", verb,
			    o->name);
		}
	}
}

/*
 * Every verb parses through one table, so help, completion and the man
 * page can read it; the page text carries no option list of its own (the
 * rows do: two copies drift).
 */
TEST(every_verb_describes_its_command_line)
{
	const struct verb *v;
	struct rows_seen s;
	int n = 0;

	for (v = box_verbs; v->name != NULL; v++) {
		memset(&s, 0, sizeof(s));
		if (!opt_describe(v->name, v->fn, check_rows, &s))
			fprintf(stderr, "  %s parses no option table\n",
			    v->name);
		CHECK_INT(s.n, 1);
		if (s.bad)
			fprintf(stderr, "  bad row: %s\n", s.why);
		CHECK_INT(s.bad, 0);
		if (v->page != NULL && (strstr(v->page, "\n  --") != NULL ||
		    strncmp(v->page, "  --", 4) == 0)) {
			fprintf(stderr, "  %s's page lists options\n", v->name);
			CHECK(0);
		}
		n++;
	}
	CHECK(n >= 30);
}

TEST(verb_synopsis_is_written_from_the_rows)
{
	char syn[400];

	CHECK_INT(verb_synopsis(verb_find("info"), syn, sizeof(syn)), 0);
	CHECK_STR(syn, "<box> [--json[=raw]]");
	CHECK_INT(verb_synopsis(verb_find("stop"), syn, sizeof(syn)), 0);
	CHECK_STR(syn, "<box>|all... [--force]");
	CHECK_INT(verb_synopsis(verb_find("root"), syn, sizeof(syn)), 0);
	CHECK_STR(syn, "<box> [-- <cmd...>]");
	CHECK_INT(verb_synopsis(verb_find("list"), syn, sizeof(syn)), 0);
	CHECK_STR(syn, "[--json[=full]] [--format table|json|csv] [--quiet]");
	CHECK_INT(verb_synopsis(verb_find("verify"), syn, sizeof(syn)), 0);
	CHECK_STR(syn, "<box> [--json]");	/* --inside is hidden */
}
