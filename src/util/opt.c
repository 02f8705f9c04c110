#include "util/opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int
str_distance(const char *a, const char *b, int limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[64], prev, tmp;

	if (la >= 64 || lb >= 64)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]);
			int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb] > limit ? limit + 1 : row[lb];
}

struct opt *
opt_get(struct opt *opts, const char *name)
{
	for (; opts->name != NULL; opts++)
		if (strcmp(opts->name, name) == 0)
			return opts;
	return NULL;
}

static int
unknown(const char *verb, const char *arg, struct opt *opts,
    struct box_err *e)
{
	const char *best = NULL;
	int bestd = 3, d;

	for (; opts->name != NULL; opts++) {
		d = str_distance(arg, opts->name, 2);
		if (d < bestd) {
			bestd = d;
			best = opts->name;
		}
	}
	if (best != NULL)
		err_usage(e, "unknown option for %s: %s — did you mean %s?",
		    verb, arg, best);
	else
		err_usage(e, "unknown option for %s: %s", verb, arg);
	err_fix(e, "see: box help %s", verb);
	return -EINVAL;
}

static struct opt *
find(struct opt *opts, const char *arg, size_t n)
{
	for (; opts->name != NULL; opts++) {
		if (strlen(opts->name) == n && strncmp(opts->name, arg, n) == 0)
			return opts;
		if (opts->alias != NULL && strlen(opts->alias) == n &&
		    strncmp(opts->alias, arg, n) == 0)
			return opts;
	}
	return NULL;
}

int
opt_parse(int argc, char **argv, struct opt *opts, struct opt_result *res,
    struct box_err *e)
{
	const char *verb = argv[0];
	int i;

	memset(res, 0, sizeof(*res));
	for (i = 1; i < argc; i++) {
		char *a = argv[i], *eq;
		struct opt *o;
		size_t n;

		if (strcmp(a, "--") == 0) {
			res->dashdash = 1;
			res->rest = argv + i + 1;
			res->nrest = argc - i - 1;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (res->npos == OPT_MAX_POS)
				return err_usage(e, "too many arguments for "
				    "%s", verb);
			res->pos[res->npos++] = a;
			continue;
		}
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		n = eq ? (size_t)(eq - a) : strlen(a);
		o = find(opts, a, n);
		if (o == NULL) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)n, a);
			return unknown(verb, name, opts, e);
		}
		if (o->seen && o->takes_value == 1)
			return err_usage(e, "%s given twice", o->name);
		o->seen = 1;
		if (o->takes_value == OPT_OPTIONAL) {
			o->value = eq != NULL ? eq + 1 : "";
		} else if (!o->takes_value) {
			if (eq != NULL)
				return err_usage(e, "%s takes no value",
				    o->name);
			o->value = "";
		} else if (eq != NULL) {
			o->value = eq + 1;
		} else if (i + 1 < argc) {
			o->value = argv[++i];
		} else {
			return err_usage(e, "%s needs a value", o->name);
		}
	}
	return 0;
}
