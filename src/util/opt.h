/*
 * opt.h - a verb's flags.  Options come after the verb; "--name v" and
 * "--name=v" both work; "--" ends the options and everything after it is
 * handed over untouched (box exec <box> -- <cmd...>).  An unknown flag is a
 * usage error that suggests the closest known one.
 */
#ifndef BOX_OPT_H
#define BOX_OPT_H

#include "util/err.h"

#define OPT_MAX_POS 16
#define OPT_OPTIONAL 2

struct opt {
	const char *name;	/* "--json"; NULL ends the table */
	const char *alias;	/* "-f", or NULL */
	int takes_value;	/* 0, 1, or OPT_OPTIONAL: only as "--name=v" */
	const char *value;	/* out: the value, or "" for a plain flag */
	int seen;
};

struct opt_result {
	char *pos[OPT_MAX_POS];	/* positionals before "--" */
	int npos;
	char **rest;		/* after "--" (NULL when there was none) */
	int nrest;
	int dashdash;
};

/* argv[0] is the verb. */
int opt_parse(int argc, char **argv, struct opt *opts, struct opt_result *res,
    struct box_err *e);

/* The option named name, or NULL (a programming error). */
struct opt *opt_get(struct opt *opts, const char *name);

/* Levenshtein distance, case-folded, capped at limit+1 (for suggestions). */
int str_distance(const char *a, const char *b, int limit);

#endif
