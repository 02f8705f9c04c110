/*
 * opt.h - a verb's command line as one table.  Each row is an option
 * (--name, bound to the verb's own variable) or a positional argument
 * (<box>, with how many and what completes it), and carries its help.
 * The parser fills the variables and checks the counts; `box help <verb>`,
 * the usage error, the completion scripts and box.1 are all written from
 * the same rows, so none of them can drift from what the verb accepts.
 *
 * Options come after the verb; "--name v" and "--name=v" both work; "--"
 * ends the options and everything after it is handed over untouched
 * (box exec <box> -- <cmd...>): a verb that takes that has an OPT_REST
 * row.  An unknown flag is a usage error that suggests the closest one.
 *
 * A verb's top, all there is to its command line:
 *
 *	int rc, force;
 *	const struct opt rows[] = {
 *		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
 *		OPT_FLAG("--force", "-f", &force, "delete without asking"),
 *		OPT_END
 *	};
 *
 *	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
 *		return rc;		(res.pos[0] is the box)
 *
 * The rows live in the verb's function (they bind its locals).  To read
 * them without running the verb, opt_describe() calls the verb with a hook
 * set: its opt_parse() hands the rows to the hook and returns
 * OPT_DESCRIBED, which every verb returns at once like any parse error,
 * before anything else happens.
 */
#ifndef BOX_OPT_H
#define BOX_OPT_H

#include <stdio.h>

#include "util/err.h"

#define OPT_MAX_POS 64
#define OPT_LIST_MAX 16
#define OPT_ANY (-1)		/* an argument's max: any number */
#define OPT_DESCRIBED (-ECANCELED)	/* opt_parse in describe mode */

enum opt_kind {
	OK_END = 0,
	OK_FLAG,	/* --x: int 1 when given */
	OK_STR,		/* --x v: const char *, NULL when not given */
	OK_INT,		/* --x n: int within [min, max] */
	OK_LIST,	/* --x v, repeatable: struct opt_list */
	OK_OPTVAL,	/* --x or --x=v: const char *, "" for plain --x */
	OK_ARG,		/* <name>: a positional, min..max of them */
	OK_REST,	/* -- <cmd...>: what follows "--" */
};

/* What completes a value or an argument. */
enum opt_comp {
	OC_NONE = 0,	/* free text */
	OC_BOX,		/* a box name (asked of box list) */
	OC_VERB,	/* a verb of box */
	OC_TEMPLATE,	/* a template name (asked of box templates) */
	OC_FILE,	/* a file name */
	OC_WORDS,	/* one of the words in the row's words */
};

#define OPT_REQUIRED 0x1	/* an option that must be given */
#define OPT_HIDDEN 0x2		/* never shown; an option: an internal mode */

struct opt_list {
	const char *v[OPT_LIST_MAX];
	int n;
};

struct opt {
	unsigned char kind;	/* enum opt_kind; OK_END ends the table */
	unsigned char comp;	/* enum opt_comp */
	unsigned char flags;
	const char *name;	/* "--json", or an argument's "<box>" */
	const char *alias;	/* "-f", or NULL */
	const char *meta;	/* a value's placeholder: "<box>", "n" */
	void *bind;		/* the verb's variable (see enum opt_kind) */
	int min, max;		/* OK_INT: the range; OK_ARG: the count */
	const char *words;	/* OC_WORDS: "show open allow deny" */
	const char *help;	/* one paragraph; wrapped when shown */
};

#define OPT_FLAG(n, a, p, h) \
	{ OK_FLAG, OC_NONE, 0, n, a, NULL, (p), 0, 0, NULL, h }
#define OPT_STR(n, m, p, c, h) \
	{ OK_STR, c, 0, n, NULL, m, (p), 0, 0, NULL, h }
#define OPT_NEED(n, m, p, c, h) \
	{ OK_STR, c, OPT_REQUIRED, n, NULL, m, (p), 0, 0, NULL, h }
#define OPT_INT(n, m, p, lo, hi, h) \
	{ OK_INT, OC_NONE, 0, n, NULL, m, (p), lo, hi, NULL, h }
#define OPT_LIST(n, m, p, c, h) \
	{ OK_LIST, c, 0, n, NULL, m, (p), 0, 0, NULL, h }
#define OPT_OPTVAL(n, m, p, w, h) \
	{ OK_OPTVAL, OC_WORDS, 0, n, NULL, m, (p), 0, 0, w, h }
#define OPT_ARG(n, lo, hi, c, h) \
	{ OK_ARG, c, 0, n, NULL, NULL, NULL, lo, hi, NULL, h }
#define OPT_WORDS(n, lo, hi, w, h) \
	{ OK_ARG, OC_WORDS, 0, n, NULL, NULL, NULL, lo, hi, w, h }
/* positionals accepted so the verb can refuse them its own way */
#define OPT_STRAY(n) \
	{ OK_ARG, OC_NONE, OPT_HIDDEN, n, NULL, NULL, NULL, 0, OPT_ANY, NULL, NULL }
#define OPT_REST(n, h) \
	{ OK_REST, OC_NONE, 0, n, NULL, NULL, NULL, 0, 0, NULL, h }
#define OPT_SECRET(n, p) \
	{ OK_FLAG, OC_NONE, OPT_HIDDEN, n, NULL, NULL, (p), 0, 0, NULL, NULL }
#define OPT_END { OK_END, 0, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }

struct opt_result {
	char *pos[OPT_MAX_POS];	/* positionals before "--" */
	int npos;
	char **rest;		/* after "--" (NULL when there was none) */
	int nrest;
	int dashdash;
	int unknown;		/* the parse failed on an unknown option */
};

/*
 * argv[0] is the verb.  Fills the bound variables and res, and checks the
 * argument counts and required options against the rows: a mismatch is a
 * usage error that quotes the synopsis.  In describe mode: OPT_DESCRIBED.
 */
int opt_parse(int argc, char **argv, const struct opt *rows,
    struct opt_result *res, struct box_err *e);

/* The usage error: "usage: box <verb> <synopsis>", see box help. */
int opt_usage(const char *verb, const struct opt *rows, struct box_err *e);

/* "<box> [--json]": the synopsis the rows make, written into buf. */
void opt_synopsis(const struct opt *rows, char *buf, size_t size);

/* A row as its help shows it: "--name <box>", "--force, -f", "<box>". */
void opt_label(const struct opt *o, char *buf, size_t size);

/* The rows that carry help, one entry each, wrapped to 78 columns. */
void opt_help(const struct opt *rows, FILE *f);

/*
 * Run fn (a verb) in describe mode: its rows go to hook(rows, ctx).
 * Returns 1 when the verb described itself, 0 when it did not parse.
 */
typedef void opt_hook(const char *verb, const struct opt *rows, void *ctx);
int opt_describe(const char *verb, int (*fn)(int, char **, struct box_err *),
    opt_hook *hook, void *ctx);

/* Levenshtein distance, case-folded, capped at limit+1 (for suggestions). */
int str_distance(const char *a, const char *b, int limit);

#endif
