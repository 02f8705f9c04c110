/*
 * main.c - argv to verb to exit status.  The only place that prints an
 * error's final message and chooses 0 (ok), 1 (it went wrong) or 2 (you
 * asked wrong).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "box/remote/remote.h"
#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "host/install/nested.h"
#include "util/err.h"
#include "util/text.h"

/*
 * A fix written for a host (start the daemon, build the stack) is wrong
 * inside a box, where whereami forbids both: there, the fix says what to
 * do from the host.  Probed only when such a fix is about to be shown.
 */
static void
fit_fix(struct box_err *e)
{
	struct nested_facts f;
	struct nested_report r;

	if (strstr(e->fix, "systemctl start incus") == NULL &&
	    strstr(e->fix, "box setup-host") == NULL)
		return;
	if (strstr(e->fix, "BOX_ALLOW_NESTED") != NULL)
		return;		/* already the in-a-box fix (nestguard) */
	nested_probe(&f, NESTED_GUESTAPI);
	nested_classify(&f, &r);
	if (r.verdict != NESTED_BOX)
		return;
	snprintf(e->fix, sizeof(e->fix), "this is inside a box, which has no "
	    "box host stack and must not build one: run that on the host "
	    "that holds this box (here: box doctor, box whereami)");
}

static int
report(struct box_err *e)
{
	/* a message quotes what a daemon, a box or a file said: shown */
	char m[4 * sizeof(e->msg)], f[4 * sizeof(e->fix)];
	const char *msg = e->msg[0] ? e->msg : err_str(e->code);

	fflush(stdout);
	fit_fix(e);
	text_shown(msg, strlen(msg), m, sizeof(m));
	text_shown(e->fix, strlen(e->fix), f, sizeof(f));
	fprintf(stderr, "box: %s\n", m);
	if (e->fix[0] != '\0')
		fprintf(stderr, "  fix: %s\n", f);
	else if (e->status == ERR_USAGE)
		fprintf(stderr, "  try 'box help'.\n");
	return e->status == ERR_USAGE ? 2 : 1;
}

/* --help / --version anywhere before "--" win over everything else. */
static int
wants(int argc, char **argv, const char *l, const char *s)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], l) == 0 || strcmp(argv[i], s) == 0)
			return 1;
	}
	return 0;
}

/*
 * --remote: the verb's row in remote_table (box/remote/remote.c) says where it
 * runs.  0 and *how, or < 0 (refused: the command to run there named).
 */
static int
remote_start(const struct remote_url *u, const struct verb *v, int *how,
    struct box_err *e)
{
	char hint[320];

	*how = remote_how(v->name);
	if (*how == RH_LOCAL)
		return 0;
	if (*how == RH_API || *how == RH_HOST)
		return remote_open(u, v->name, *how, e);
	remote_url_ssh(u, hint, sizeof(hint));
	err_set(e, -EREMOTE, "box %s works on the host it runs on, not "
	    "through --remote", v->name);
	err_fix(e, "run it there: %s box %s ...", hint, v->name);
	return -EREMOTE;
}

int
main(int argc, char **argv)
{
	const struct verb *v;
	struct remote_url u;
	struct box_err e;
	char vbuf[4200];
	int rc, remote, how = 0;

	err_clear(&e);
	if ((remote = remote_from_args(&argc, argv, &u, &e)) < 0)
		return report(&e);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		box_usage();
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		puts(box_version_string(vbuf, sizeof(vbuf)));
		return 0;
	}
	if (argv[1][0] == '-') {
		err_usage(&e, "options come after the command: box <command> "
		    "%s ...", argv[1]);
		err_fix(&e, "box help lists the commands");
		return report(&e);
	}
	v = verb_find(argv[1]);
	if (v == NULL)
		return verb_unknown(argv[1], &e), report(&e);
	if (wants(argc - 1, argv + 1, "--help", "-h")) {
		verb_usage(v);
		return 0;
	}
	if (wants(argc - 1, argv + 1, "--version", "-V")) {
		puts(box_version_string(vbuf, sizeof(vbuf)));
		return 0;
	}
	/*
	 * Once the verb is known, drop the ability to gain privileges
	 * through exec (setuid helpers) unless the verb needs it.
	 */
	if (!(v->flags & V_PRIV))
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	argv[1] = (char *)v->name;	/* an alias runs as the verb it names */
	if (remote && remote_start(&u, v, &how, &e) < 0)
		return report(&e);
	if (how == RH_HOST) {
		rc = remote_run(argc - 1, argv + 1, &e);
		remote_close();
		return rc < 0 ? report(&e) : rc;
	}
	if (how != RH_API)
		tier_apply();
	rc = v->fn(argc - 1, argv + 1, &e);
	if (fflush(stdout) != 0 && rc == 0)
		rc = err_set(&e, -5, "writing the output failed");
	if (rc < 0 && e.status == ERR_USAGE && e.fix[0] == '\0')
		err_fix(&e, "see: box help %s", v->name);
	if (rc < 0)
		return report(&e);
	return rc;
}
