/*
 * box incus <box> -- <args...> - the escape hatch: the one place box runs
 * the real incus client.  The box is resolved and its tag checked first;
 * every "{}" in the arguments becomes the instance name, or, when none has
 * one and none names the box already (file pull <box>/etc/hosts .), the
 * name goes last.  The command is echoed, with a warning when it
 * can move the box off the isolation stack, and then box becomes it (exec):
 * its exit status is the client's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

#define HATCH_MAX_ARGS 256

/* arg with every "{}" replaced by name (malloc'd), or NULL. */
static char *
substitute(const char *arg, const char *name, int *hit)
{
	size_t n = strlen(arg), nl = strlen(name), o = 0, i;
	char *out = malloc(n + (n / 2 + 1) * nl + 1);

	if (out == NULL)
		return NULL;
	for (i = 0; i < n;) {
		if (arg[i] == '{' && arg[i + 1] == '}') {
			memcpy(out + o, name, nl);
			o += nl;
			i += 2;
			*hit = 1;
		} else {
			out[o++] = arg[i++];
		}
	}
	out[o] = '\0';
	return out;
}

static int
risky(const char *a)
{
	return strcmp(a, "profile") == 0 || strcmp(a, "network") == 0 ||
	    strcmp(a, "device") == 0 || strcmp(a, "nic") == 0 ||
	    strstr(a, "security.") != NULL;
}

static void
echo(char *const *argv)
{
	int i;

	fputs("box:", stderr);
	for (i = 0; argv[i] != NULL; i++) {
		if (argv[i][0] != '\0' &&
		    strpbrk(argv[i], " \t\n'\"$`\\|&;<>()*?[]{}") == NULL)
			fprintf(stderr, " %s", argv[i]);
		else {
			const char *s;

			fputs(" '", stderr);
			for (s = argv[i]; *s != '\0'; s++)
				if (*s == '\'')
					fputs("'\\''", stderr);
				else
					fputc(*s, stderr);
			fputc('\'', stderr);
		}
	}
	fputc('\n', stderr);
}

int
cmd_incus(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_STRAY("<args>"),	/* before --, also the client's */
		OPT_REST("<args...>", "the incus client's arguments; {} is the "
		    "box's instance name"),
		OPT_END
	};
	struct opt_result res;
	struct incus c;
	char *args[HATCH_MAX_ARGS + 3];
	int rc, i, n = 0, hit = 0, warn = 0;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc == OPT_DESCRIBED)
		return rc;
	if (rc < 0) {
		e->fix[0] = '\0';
		err_fix(e, "a command's own flags go after --, as in: box "
		    "incus <box> -- config show {}");
		return rc;
	}
	if (res.npos + res.nrest < 2)
		return opt_usage(argv[0], rows, e);
	if (res.npos - 1 + res.nrest > HATCH_MAX_ARGS)
		return err_usage(e, "too many arguments");
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = box_resolve(&c, res.pos[0], NULL, e);
	incus_close(&c);
	if (rc < 0)
		return rc;
	args[n++] = "incus";
	for (i = 1; i < res.npos + res.nrest; i++) {
		const char *a = i < res.npos ? res.pos[i] :
		    res.rest[i - res.npos];

		if ((args[n] = substitute(a, res.pos[0], &hit)) == NULL)
			return err_set(e, -ENOMEM, "out of memory");
		warn |= risky(args[n]);
		if (strcmp(a, res.pos[0]) == 0 || (strncmp(a, res.pos[0],
		    strlen(res.pos[0])) == 0 && a[strlen(res.pos[0])] == '/'))
			hit = 1;	/* named already: nothing appended */
		n++;
	}
	if (!hit)
		args[n++] = res.pos[0];
	args[n] = NULL;
	if (warn)
		life_say("warning: this can move the box off the isolation "
		    "stack (profile / network / device / security.*); the "
		    "trust boundary is yours from here");
	echo(args);
	fflush(stdout);
	fflush(stderr);
	execvp("incus", args);
	rc = -errno;
	if (rc == -ENOENT) {
		err_set(e, rc, "the incus client is not installed (box incus "
		    "runs it; box itself does not need it)");
		err_fix(e, "install the incus package, or do it through box's "
		    "own verbs");
		return rc;
	}
	return err_set(e, rc, "running incus: %s", strerror(-rc));
}
