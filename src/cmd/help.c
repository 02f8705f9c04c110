/*
 * box help [<command>] [--man] - the general help, one command's page, or
 * either as a manual page.  The pages are the verb table's (verbs.c); the
 * roff is completion.c's, which writes box.1 and the completions from the
 * same table.  Its own file so that verbs.c and completion.c call each
 * other in one direction only (completion.c reads the table, nothing in
 * verbs.c calls back).
 */
#include "cmd/cmd.h"

#include "util/opt.h"

int
cmd_help(int argc, char **argv, struct box_err *e)
{
	const struct verb *v;
	struct opt_result res;
	int rc, man;
	const struct opt rows[] = {
		OPT_ARG("<command>", 0, 1, OC_VERB, "one command's page"),
		OPT_FLAG("--man", NULL, &man, "the manual page, as roff (man "
		    "-l reads it); with a command, that command's own"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (man && res.npos > 0) {
		if ((v = verb_find(res.pos[0])) == NULL)
			return verb_unknown(res.pos[0], e);
		verb_manpage(v);
		return 0;
	}
	if (man) {
		box_manpage();
		return 0;
	}
	if (res.npos == 0) {
		box_usage();
		return 0;
	}
	v = verb_find(res.pos[0]);
	if (v == NULL)
		return verb_unknown(res.pos[0], e);
	verb_usage(v);
	return 0;
}
