/*
 * box teardown-host [--purge-incus] [--yes] - remove the host stack: every
 * box (one at a time), the box-net profile, the boxnet bridge, the
 * box-isolate ACL (and their pre-0.4 claude* namesakes), our nft tables and
 * the boot unit; then assert that nothing of it survives, naming any
 * survivor.  Consent: a terminal, or --yes / a yes in BOX_YES (1, yes,
 * true: consent_parse); BOX_YES=0/no/false is no yes, anything else exit 2.
 * The pipeline is host/stack/teardown.c; this file asks and renders.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "host/doctor/doctor_tier.h"
#include "host/install/nestguard.h"
#include "host/stack/teardown.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/prompt.h"

/*
 * Granted users' projects outlive the stack (boxnet goes, their boxes with
 * it): name them, so they can be revoked --purge first.
 */
static void
granted_projects(void)
{
	char names[DR_TIER_MAX][64];
	struct incus c;
	struct box_err e;
	int n, i;

	err_clear(&e);
	if (incus_init(&c, &e) == 0 &&
	    (n = dr_user_projects(&c, names, DR_TIER_MAX, &e)) > 0) {
		fputs("box: granted users' projects remain:", stderr);
		for (i = 0; i < n && i < DR_TIER_MAX; i++)
			fprintf(stderr, " %s", names[i]);
		fprintf(stderr, "\nbox: run box revoke <user> --purge for each "
		    "first "
		    "(teardown leaves their projects, trust entries and "
		    "incus-user state behind)\n");
	}
	incus_close(&c);
}

int
cmd_teardown_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	int rc, yes, yes_opt, purge_incus, all;
	const struct opt rows[] = {
		OPT_FLAG("--purge-incus", NULL, &purge_incus, "also remove the "
		    "incus package"),
		OPT_FLAG("--cluster", NULL, &all, "on the last member of an "
		    "Incus cluster's group box: also the objects every member "
		    "shares (profile, bridge, ACL)"),
		OPT_FLAG("--yes", "-y", &yes_opt, "do not ask"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	/*
	 * Consent first: without it (BOX_YES no or malformed, no --yes, no
	 * terminal) nothing else is looked at, whoever asks - exit 2.  The
	 * question itself waits until the tier and the nested guard allow
	 * the teardown.
	 */
	if ((yes = consent_env(e)) < 0)
		return yes;
	yes = yes || yes_opt;
	if (!yes && !isatty(STDIN_FILENO))
		return prompt_consent("tear down the host stack",
		    "--yes (or BOX_YES=1)", e);
	if ((rc = tier_require_admin("teardown-host", e)) < 0 ||
	    (rc = nestguard_check("teardown-host", NG_CHANGE, NULL, e)) < 0)
		return rc;
	fprintf(stderr,
	    "box: teardown-host removes every box on this host, the "
	    "box-net profile, the boxnet bridge, the box-isolate ACL, the "
	    "host firewall and its boot unit%s.\n", purge_incus ?
	    ", and Incus itself" : "");
	granted_projects();
	if (yes)
		fprintf(stderr,
		    "box: confirmed non-interactively (--yes/BOX_YES)\n");
	else if ((rc = prompt_consent("tear down the host stack",
	    "--yes (or BOX_YES=1)", e)) < 0)
		return rc;
	if (geteuid() != 0) {
		err_set(e, -EPERM, "teardown-host changes the host: it needs "
		    "root");
		err_fix(e, "sudo box teardown-host");
		return -EPERM;
	}
	return stack_teardown(purge_incus, all, e);
}
