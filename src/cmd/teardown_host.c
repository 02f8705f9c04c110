/*
 * box teardown-host [--purge-incus] [--yes] - remove the host stack: every
 * box (one at a time), the box-net profile, the boxnet bridge, the
 * box-isolate ACL (and their pre-0.4 claude* namesakes), our nft tables and
 * the boot unit; then assert that nothing of it survives, naming any
 * survivor.  Consent: a terminal, or --yes / a yes in BOX_YES (1, yes,
 * true: consent_parse); BOX_YES=0/no/false is no yes, anything else exit 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life.h"
#include "box/tier.h"
#include "cmd/cmd.h"
#include "host/doctor/doctor_tier.h"
#include "host/install/nestguard.h"
#include "host/resolver/unit.h"
#include "host/stack/firewall.h"
#include "host/stack/pool.h"
#include "host/stack/stack.h"
#include "host/stack/sysd.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "model/names.h"
#include "util/opt.h"
#include "util/prompt.h"

static const struct stack_obj objects[] = {
	{ SK_PROFILE, CONTRACT_PROFILE, "profiles/" CONTRACT_PROFILE },
	{ SK_PROFILE, CONTRACT_LEGACY_PROFILE,
	    "profiles/" CONTRACT_LEGACY_PROFILE },
	{ SK_NETWORK, CONTRACT_BRIDGE, "networks/" CONTRACT_BRIDGE },
	{ SK_NETWORK, CONTRACT_LEGACY_BRIDGE,
	    "networks/" CONTRACT_LEGACY_BRIDGE },
	{ SK_ACL, CONTRACT_ACL, "network-acls/" CONTRACT_ACL },
	{ SK_ACL, CONTRACT_LEGACY_ACL, "network-acls/" CONTRACT_LEGACY_ACL },
};
#define NOBJ (sizeof(objects) / sizeof(objects[0]))

/* Tagged instances, one at a time; the first failure stops the teardown. */
static int
delete_boxes(struct incus *c, int *left, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i;
	int rc;

	*left = 0;
	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n && rc == 0; i++) {
		if (!box_tagged(&l.v[i], NULL))
			continue;
		if (!box_name_ok(l.v[i].name)) {
			(*left)++;
			continue;
		}
		fprintf(stderr, "box: removing box %s\n", l.v[i].name);
		rc = life_stop_delete(c, l.v[i].name, strcmp(l.v[i].status,
		    "Stopped") != 0, e);
	}
	incus_instance_list_free(&l);
	return rc;
}

static int
delete_objects(struct incus *c, struct box_err *e)
{
	size_t i;
	int rc;

	for (i = 0; i < NOBJ; i++) {
		rc = stack_obj_delete(c, &objects[i], e);
		if (rc == -ENOENT) {
			err_clear(e);
			continue;
		}
		if (rc < 0) {
			err_context(e, "deleting %s", objects[i].shown);
			return rc;
		}
		fprintf(stderr, "box: removed %s\n", objects[i].shown);
	}
	return 0;
}

/* Nothing of the stack may survive; name whatever did. */
static int
assert_absent(struct incus *c, const char *loop, struct box_err *e)
{
	char left[512] = "";
	struct fw_status fw;
	struct incus_instance_list l;
	struct box_err ignore;
	size_t i, k;
	int boxes = 0;

	for (i = 0; i < NOBJ; i++) {
		err_clear(&ignore);
		if (stack_obj_exists(c, &objects[i], &ignore) == 1)
			snprintf(left + strlen(left), sizeof(left) - strlen(left),
			    " %s", objects[i].shown);
	}
	err_clear(&ignore);
	if (incus_instance_list(c, NULL, 0, &l, &ignore) == 0) {
		for (k = 0; k < l.n; k++)
			boxes += box_tagged(&l.v[k], NULL);
		incus_instance_list_free(&l);
	}
	if (boxes > 0)
		snprintf(left + strlen(left), sizeof(left) - strlen(left),
		    " %d box(es)", boxes);
	err_clear(&ignore);
	if (fw_read(STACK_BRIDGE, 0, &fw, &ignore) == 0) {
		if (fw.inet_table)
			strcat(left, " nft:inet/box");
		if (fw.bridge_table)
			strcat(left, " nft:bridge/box");
	}
	if (pool_own_left(c, loop)) {
		strcat(left, " storage-pools/" CONTRACT_OWN_POOL);
		if (loop[0] != '\0' && strlen(left) + strlen(loop) + 2 <
		    sizeof(left))
			snprintf(left + strlen(left), sizeof(left) -
			    strlen(left), " %s", loop);
	}
	if (access(SYSD_UNIT_PATH, F_OK) == 0)
		strcat(left, " " SYSD_UNIT_PATH);
	if (access(SYSD_BOOT_BIN, F_OK) == 0)
		strcat(left, " " SYSD_BOOT_BIN);
	if (left[0] != '\0')
		return err_set(e, -EEXIST, "teardown left these behind:%s",
		    left);
	return 0;
}

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

static int
teardown(int purge, struct box_err *e)
{
	char *purge_cmd[] = { "apt-get", "purge", "-y", "incus", NULL };
	struct incus c;
	char loop[512] = "";
	int rc, left = 0, pooled = 0;

	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	rc = delete_boxes(&c, &left, e);
	if (rc == 0)
		rc = delete_objects(&c, e);
	if (rc == 0)
		rc = pool_remove_own(&c, &pooled, loop, sizeof(loop), e);
	if (rc == 0 && pooled)
		fprintf(stderr, "box: removed storage-pools/%s%s%s\n",
		    CONTRACT_OWN_POOL, loop[0] ? " and its loop file " : "",
		    loop);
	if (rc == 0)
		rc = fw_remove(e);
	if (rc == 0)
		rc = rsvd_remove(e);	/* it runs the copy removed next */
	if (rc == 0)
		rc = sysd_remove_unit(e);
	if (rc == 0)
		rc = assert_absent(&c, loop, e);
	incus_close(&c);
	if (rc == 0 && purge) {
		setenv("DEBIAN_FRONTEND", "noninteractive", 1);
		rc = sysd_run(purge_cmd, e);
	}
	if (rc == 0)
		fprintf(stderr,
		    "box: teardown complete; nothing of the host stack "
		    "remains (the box binary itself stays: box uninstall)\n");
	return rc;
}

int
cmd_teardown_host(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	int rc, yes, yes_opt, purge_incus;
	const struct opt rows[] = {
		OPT_FLAG("--purge-incus", NULL, &purge_incus, "also remove the "
		    "incus package"),
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
	return teardown(purge_incus, e);
}
