/*
 * fuzz_opt.c - the declarative command-line parser (util/opt.c).
 *
 * The input is an argv: words separated by NUL or newline (at most 40),
 * parsed against a table with one row of every kind.  Checked: a parse
 * either fails as a usage error with a message or leaves every bound
 * variable consistent with the words (a string option points into argv,
 * an int is in its range, a list holds at most OPT_LIST_MAX, the required
 * option and argument there unless the hidden mode was asked for); the synopsis, the help text and each label
 * are written without overflowing their buffers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 40

static int
in_argv(const char *p, char *buf, size_t n)
{
	return p >= buf && p < buf + n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_WORDS + 1], syn[64], label[32];
	const char *name, *ov;
	struct opt_list tags;
	struct opt_result res;
	struct box_err e;
	int flag, inside, n = 5, argc = 0, rc, i;
	size_t k, start = 0;
	const struct opt rows[] = {
		OPT_NEED("--name", "<box>", &name, OC_NONE, "the name"),
		OPT_FLAG("--force", "-f", &flag, "a flag with a long help text "
		    "that has to be wrapped over more than one line of output"),
		OPT_INT("--n", "n", &n, -3, 70000, NULL),
		OPT_LIST("--tag", "t", &tags, OC_NONE, "repeatable"),
		OPT_OPTVAL("--json", "full", &ov, "full", "json"),
		OPT_SECRET("--inside", &inside),
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<x>", 0, 2, OC_NONE, "x"),
		OPT_ARG("<rest>", 0, OPT_ANY, OC_NONE, NULL),
		OPT_REST("<cmd...>", "after --"),
		OPT_END
	};

	if (size > 4096)
		return 0;
	buf = malloc(size + 8);
	if (buf == NULL)
		return 0;
	memcpy(buf, "verb", 5);
	memcpy(buf + 5, data, size);
	buf[size + 5] = '\0';
	argv[argc++] = buf;
	for (k = 5, start = 5; k <= size + 5 && argc < MAX_WORDS; k++) {
		if (buf[k] == '\n' || buf[k] == '\0') {
			buf[k] = '\0';
			argv[argc++] = buf + start;
			start = k + 1;
		}
	}
	argv[argc] = NULL;
	err_clear(&e);
	rc = opt_parse(argc, argv, rows, &res, &e);
	if (rc < 0) {
		if (e.status != ERR_USAGE || e.msg[0] == '\0')
			abort();
	} else {
		/* a hidden mode (--inside) is a command line of its own */
		if (!inside && (name == NULL || res.npos < 1))
			abort();
		if (name != NULL && !in_argv(name, buf, size + 8))
			abort();
		if (n < -3 || n > 70000)
			abort();
		if (tags.n < 0 || tags.n > OPT_LIST_MAX)
			abort();
		for (i = 0; i < tags.n; i++)
			if (!in_argv(tags.v[i], buf, size + 8))
				abort();
		if (ov != NULL && ov[0] != '\0' && !in_argv(ov, buf, size + 8))
			abort();
		if (res.npos > OPT_MAX_POS)
			abort();
		if (res.dashdash && (res.nrest < 0 || res.rest == NULL))
			abort();
	}
	opt_synopsis(rows, syn, sizeof(syn));
	if (strlen(syn) >= sizeof(syn))
		abort();
	for (i = 0; rows[i].kind != OK_END; i++)
		opt_label(&rows[i], label, sizeof(label));
	{
		FILE *f = fopen("/dev/null", "w");

		if (f != NULL) {
			opt_help(rows, f);
			fclose(f);
		}
	}
	free(buf);
	return 0;
}
