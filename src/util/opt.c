#include "util/opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Optimal string alignment distance (Levenshtein plus a swap of two
 * neighbours as one edit: "lsit" is one edit from "list").
 */
int
str_distance(const char *a, const char *b, int limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int d[64][64];

	if (la >= 64 || lb >= 64)
		return limit + 1;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j - 1] + (ca != cb);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca ==
			    tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb] > limit ? limit + 1 : d[la][lb];
}

/*
 * Describe mode (opt_describe): dynamic scope for one call.  Every verb
 * parses its own rows, so the hook has to reach opt_parse without a
 * parameter; the alternatives are the verb table holding every verb's rows
 * or a pointer smuggled through argv, which a user could forge.  Set and
 * cleared inside opt_describe, nowhere else.
 */
static opt_hook *describe_hook;
static void *describe_ctx;

int
opt_describe(const char *verb, int (*fn)(int, char **, struct box_err *),
    opt_hook *hook, void *ctx)
{
	char *argv[2] = { (char *)verb, NULL };
	struct box_err e;
	int rc;

	err_clear(&e);
	describe_hook = hook;
	describe_ctx = ctx;
	rc = fn(1, argv, &e);
	describe_hook = NULL;
	describe_ctx = NULL;
	return rc == OPT_DESCRIBED;
}

static int
is_option(const struct opt *o)
{
	return o->kind >= OK_FLAG && o->kind <= OK_OPTVAL;
}

static size_t
add(char *buf, size_t size, size_t at, const char *s)
{
	int n = snprintf(buf + at, at < size ? size - at : 0, "%s", s);

	return at + (size_t)(n > 0 ? n : 0);
}

static size_t
add_option(char *buf, size_t size, size_t at, const struct opt *o)
{
	int req = o->flags & OPT_REQUIRED;

	at = add(buf, size, at, at ? " " : "");
	at = add(buf, size, at, req ? "" : "[");
	at = add(buf, size, at, o->name);
	if (o->kind == OK_OPTVAL && o->meta != NULL) {
		at = add(buf, size, at, "[=");
		at = add(buf, size, at, o->meta);
		at = add(buf, size, at, "]");
	} else if (o->kind != OK_FLAG && o->meta != NULL) {
		at = add(buf, size, at, " ");
		at = add(buf, size, at, o->meta);
	}
	if (o->kind == OK_LIST)
		at = add(buf, size, at, " ...");
	return add(buf, size, at, req ? "" : "]");
}

static size_t
add_arg(char *buf, size_t size, size_t at, const struct opt *o)
{
	at = add(buf, size, at, at ? " " : "");
	if (o->kind == OK_REST) {
		at = add(buf, size, at, "[-- ");
		at = add(buf, size, at, o->name);
		return add(buf, size, at, "]");
	}
	at = add(buf, size, at, o->min == 0 ? "[" : "");
	at = add(buf, size, at, o->name);
	if (o->max == OPT_ANY || o->max > 1)
		at = add(buf, size, at, "...");
	return add(buf, size, at, o->min == 0 ? "]" : "");
}

/*
 * Arguments first, then options, in the table's order: the order the
 * hand-written usage lines had (box info <box> [--json]).
 */
void
opt_synopsis(const struct opt *rows, char *buf, size_t size)
{
	const struct opt *o;
	size_t at = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (o = rows; o->kind != OK_END; o++)
		if (is_option(o) && (o->flags & OPT_REQUIRED) &&
		    !(o->flags & OPT_HIDDEN))
			at = add_option(buf, size, at, o);
	for (o = rows; o->kind != OK_END; o++)
		if ((o->kind == OK_ARG || o->kind == OK_REST) &&
		    !(o->flags & OPT_HIDDEN))
			at = add_arg(buf, size, at, o);
	for (o = rows; o->kind != OK_END; o++)
		if (is_option(o) && !(o->flags & (OPT_REQUIRED | OPT_HIDDEN)))
			at = add_option(buf, size, at, o);
	if (at >= size)
		buf[size - 1] = '\0';
}

void
opt_label(const struct opt *o, char *buf, size_t size)
{
	size_t at = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (o->kind == OK_REST)
		at = add(buf, size, at, "-- ");
	at = add(buf, size, at, o->name);
	if (o->kind == OK_OPTVAL && o->meta != NULL) {
		at = add(buf, size, at, "[=");
		at = add(buf, size, at, o->meta);
		at = add(buf, size, at, "]");
	} else if (is_option(o) && o->kind != OK_FLAG && o->meta != NULL) {
		at = add(buf, size, at, " ");
		at = add(buf, size, at, o->meta);
	}
	if (o->alias != NULL) {
		at = add(buf, size, at, ", ");
		at = add(buf, size, at, o->alias);
	}
	if (at >= size)
		buf[size - 1] = '\0';
}

#define HELP_COL 20
#define HELP_WIDTH 78

/* One paragraph from column HELP_COL, broken at spaces. */
static void
wrap(const char *s, int col, FILE *f)
{
	while (*s != '\0') {
		int room = HELP_WIDTH - col, n = 0, cut = -1;

		while (s[n] != '\0' && s[n] != '\n' && n <= room) {
			if (s[n] == ' ')
				cut = n;
			n++;
		}
		if (s[n] == '\0' || s[n] == '\n' || cut < 0)
			cut = n;
		fprintf(f, "%.*s\n", cut, s);
		s += cut;
		while (*s == ' ' || *s == '\n')
			s++;
		if (*s != '\0')
			fprintf(f, "%*s", HELP_COL, "");
		col = HELP_COL;
	}
}

void
opt_help(const struct opt *rows, FILE *f)
{
	const struct opt *o;
	char label[120];
	int any = 0, n;

	for (o = rows; o->kind != OK_END; o++) {
		if (o->help == NULL)
			continue;
		if (!any++)
			fputc('\n', f);
		opt_label(o, label, sizeof(label));
		n = fprintf(f, "  %s", label);
		if (n + 2 > HELP_COL) {
			fputc('\n', f);
			n = 0;
		}
		fprintf(f, "%*s", HELP_COL - n, "");
		wrap(o->help, HELP_COL, f);
	}
}

int
opt_usage(const char *verb, const struct opt *rows, struct box_err *e)
{
	char syn[400];

	opt_synopsis(rows, syn, sizeof(syn));
	err_usage(e, "usage: box %s%s%s", verb, syn[0] ? " " : "", syn);
	err_fix(e, "see: box help %s", verb);
	return -EINVAL;
}

static int
unknown(const char *verb, const char *arg, const struct opt *opts,
    struct box_err *e)
{
	const char *best = NULL;
	int bestd = 3, d;

	for (; opts->kind != OK_END; opts++) {
		if (!is_option(opts))
			continue;
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

static const struct opt *
find(const struct opt *opts, const char *arg, size_t n)
{
	for (; opts->kind != OK_END; opts++) {
		if (!is_option(opts))
			continue;
		if (strlen(opts->name) == n && strncmp(opts->name, arg, n) == 0)
			return opts;
		if (opts->alias != NULL && strlen(opts->alias) == n &&
		    strncmp(opts->alias, arg, n) == 0)
			return opts;
	}
	return NULL;
}

static int
too_many(const char *verb, const struct opt *rows, struct box_err *e)
{
	err_usage(e, "too many arguments for %s (at most %d before --)", verb,
	    OPT_MAX_POS);
	for (; rows->kind != OK_END; rows++)
		if (rows->kind == OK_REST)
			err_fix(e, "everything after -- is passed on whole: box "
			    "%s ... -- %s", verb, rows->name);
	return -EINVAL;
}

/* The bound variables back to "not given", so a table parses afresh. */
static void
reset(const struct opt *o)
{
	for (; o->kind != OK_END; o++) {
		if (o->bind == NULL)
			continue;
		if (o->kind == OK_FLAG)
			*(int *)o->bind = 0;
		else if (o->kind == OK_STR || o->kind == OK_OPTVAL)
			*(const char **)o->bind = NULL;
		else if (o->kind == OK_LIST)
			((struct opt_list *)o->bind)->n = 0;
	}
}

static int
given(const struct opt *o)
{
	if (o->bind == NULL)
		return 0;
	if (o->kind == OK_STR || o->kind == OK_OPTVAL)
		return *(const char **)o->bind != NULL;
	if (o->kind == OK_LIST)
		return ((struct opt_list *)o->bind)->n > 0;
	return 0;
}

static int
store(const char *verb, const struct opt *o, const char *v, int *seen,
    struct box_err *e)
{
	char *end;
	long n;

	(void)verb;
	switch (o->kind) {
	case OK_STR:
	case OK_OPTVAL:
		if (*seen && o->kind == OK_STR)
			return err_usage(e, "%s given twice", o->name);
		if (o->bind != NULL)
			*(const char **)o->bind = v;
		break;
	case OK_INT:
		if (*seen)
			return err_usage(e, "%s given twice", o->name);
		n = strtol(v, &end, 10);
		if (v[0] == '\0' || *end != '\0' || n < o->min || n > o->max)
			return err_usage(e, "%s takes a number from %d to %d, "
			    "not '%s'", o->name, o->min, o->max, v);
		if (o->bind != NULL)
			*(int *)o->bind = (int)n;
		break;
	case OK_LIST: {
		struct opt_list *l = o->bind;

		if (l->n == OPT_LIST_MAX)
			return err_usage(e, "%s given more than %d times",
			    o->name, OPT_LIST_MAX);
		l->v[l->n++] = v;
		break;
	}
	default:
		if (o->bind != NULL)
			*(int *)o->bind = 1;
	}
	*seen = 1;
	return 0;
}

/*
 * The positionals and "--" against the argument rows, then required ones.
 * A hidden option given (an internal mode: verify --inside) is a command
 * line of its own, which the verb checks.
 */
static int
counts(const char *verb, const struct opt *rows, struct opt_result *res,
    const unsigned char *seen, struct box_err *e)
{
	const struct opt *o;
	int lo = 0, hi = 0;
	int rest = 0;

	for (o = rows; o->kind != OK_END && o - rows < 64; o++)
		if ((o->flags & OPT_HIDDEN) && o->kind != OK_ARG &&
		    seen[o - rows])
			return 0;

	for (o = rows; o->kind != OK_END; o++) {
		if (o->kind == OK_ARG) {
			lo += o->min;
			hi = hi < 0 || o->max == OPT_ANY ? -1 : hi + o->max;
		} else if (o->kind == OK_REST)
			rest = 1;
	}
	if (res->npos < lo || (hi >= 0 && res->npos > hi) ||
	    (res->dashdash && !rest))
		return opt_usage(verb, rows, e);
	for (o = rows; o->kind != OK_END; o++)
		if ((o->flags & OPT_REQUIRED) && !given(o)) {
			err_usage(e, "%s needs %s%s%s", verb, o->name,
			    o->meta ? " " : "", o->meta ? o->meta : "");
			err_fix(e, "see: box help %s", verb);
			return -EINVAL;
		}
	return 0;
}

int
opt_parse(int argc, char **argv, const struct opt *rows,
    struct opt_result *res, struct box_err *e)
{
	const char *verb = argv[0];
	unsigned char seen[64] = { 0 };
	int i, rc;

	memset(res, 0, sizeof(*res));
	if (describe_hook != NULL) {
		describe_hook(verb, rows, describe_ctx);
		return OPT_DESCRIBED;
	}
	reset(rows);
	for (i = 1; i < argc; i++) {
		char *a = argv[i], *eq;
		const struct opt *o;
		const char *v;
		int s;
		size_t n;

		if (strcmp(a, "--") == 0) {
			res->dashdash = 1;
			res->rest = argv + i + 1;
			res->nrest = argc - i - 1;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (res->npos == OPT_MAX_POS)
				return too_many(verb, rows, e);
			res->pos[res->npos++] = a;
			continue;
		}
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		n = eq ? (size_t)(eq - a) : strlen(a);
		o = find(rows, a, n);
		if (o == NULL) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)n, a);
			res->unknown = 1;
			return unknown(verb, name, rows, e);
		}
		if (o->kind == OK_OPTVAL) {
			v = eq != NULL ? eq + 1 : "";
		} else if (o->kind == OK_FLAG) {
			if (eq != NULL)
				return err_usage(e, "%s takes no value",
				    o->name);
			v = "";
		} else if (eq != NULL) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			return err_usage(e, "%s needs a value", o->name);
		}
		s = (o - rows) < 64 ? seen[o - rows] : 0;
		if ((rc = store(verb, o, v, &s, e)) < 0)
			return rc;
		if (o - rows < 64)
			seen[o - rows] = 1;
	}
	return counts(verb, rows, res, seen, e);
}
