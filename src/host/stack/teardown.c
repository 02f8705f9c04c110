/*
 * teardown.c - the host stack taken apart (see teardown.h).
 */
#include "host/stack/teardown.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/life.h"
#include "host/stack/resolver_unit.h"
#include "host/stack/firewall.h"
#include "host/stack/pool.h"
#include "host/stack/stack.h"
#include "host/stack/guard_unit.h"
#include "host/stack/sysd.h"
#include "incus/api.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "model/names.h"

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
delete_boxes(struct incus *c, const char *self, int *left, struct box_err *e)
{
	struct incus_instance_list l;
	size_t i;
	int rc;

	*left = 0;
	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n && rc == 0; i++) {
		if (!box_tagged(&l.v[i], NULL) ||
		    !incus_cluster_local(self, l.v[i].location))
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
assert_absent(struct incus *c, const char *self, int shared,
    const char *loop, struct box_err *e)
{
	char left[512] = "";
	struct fw_status fw;
	struct incus_instance_list l;
	struct box_err ignore;
	size_t i, k;
	int boxes = 0;

	for (i = 0; shared && i < NOBJ; i++) {
		err_clear(&ignore);
		if (stack_obj_exists(c, &objects[i], &ignore) == 1)
			snprintf(left + strlen(left), sizeof(left) - strlen(left),
			    " %s", objects[i].shown);
	}
	err_clear(&ignore);
	if (incus_instance_list(c, NULL, 0, &l, &ignore) == 0) {
		for (k = 0; k < l.n; k++)
			boxes += box_tagged(&l.v[k], NULL) &&
			    incus_cluster_local(self, l.v[k].location);
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
	if (shared && pool_own_left(c, loop)) {
		strcat(left, " storage-pools/" CONTRACT_OWN_POOL);
		if (loop[0] != '\0' && strlen(left) + strlen(loop) + 2 <
		    sizeof(left)) {
			strcat(left, " ");
			strcat(left, loop);
		}
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
 * On a cluster: this member leaves group box (read back) before anything
 * goes; the shared objects go only with --cluster, and only when no other
 * member is left in the group.  *shared: remove them.
 */
static int
leave_cluster(struct incus *c, const struct incus_cluster *k, int all,
    int *shared, struct box_err *e)
{
	char others[512] = "";
	size_t i;
	int rc;

	for (i = 0; i < k->n; i++)
		if (k->m[i].in_group && strcmp(k->m[i].name, k->self) != 0)
			snprintf(others + strlen(others), sizeof(others) -
			    strlen(others), " %s", k->m[i].name);
	if (all && others[0] != '\0') {
		err_set(e, -EBUSY, "--cluster removes what every member "
		    "shares, and members still hold the contract:%s", others);
		err_fix(e, "box teardown-host on each of them first");
		return -EBUSY;
	}
	if ((rc = incus_cluster_group_set(c, CONTRACT_GROUP, k->self, 0,
	    e)) < 0)
		return rc;
	fprintf(stderr, "box: cluster  member %s left group %s (read back): "
	    "no new box lands here\n", k->self, CONTRACT_GROUP);
	*shared = all;
	if (!all)
		fprintf(stderr, "box: cluster  the shared objects (profile, "
		    "bridge, ACL) stay%s%s; on the last member: box "
		    "teardown-host --cluster\n", others[0] ? " for" : "",
		    others);
	return 0;
}

int
stack_teardown(int purge, int all, struct box_err *e)
{
	char *purge_cmd[] = { "apt-get", "purge", "-y", "incus", NULL };
	struct incus_cluster k;
	struct incus c;
	char loop[512] = "";
	int rc, left = 0, pooled = 0, shared = 1;

	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	/* a daemon that cannot say is taken as standalone, unless the
	 * caller asked for the cluster's teardown */
	if ((rc = incus_cluster_read(&c, CONTRACT_GROUP, &k, e)) < 0 &&
	    !all) {
		err_clear(e);
		memset(&k, 0, sizeof(k));
		rc = 0;
	}
	if (rc == 0 && !k.on && all)
		rc = err_usage(e, "--cluster is for a member of an Incus "
		    "cluster; this daemon is standalone");
	if (rc == 0 && k.on)
		rc = leave_cluster(&c, &k, all, &shared, e);
	if (rc < 0) {
		incus_close(&c);
		return rc;
	}
	/* first: a guard left running would put the firewall back */
	rc = guard_remove(e);
	if (rc == 0)
		rc = delete_boxes(&c, k.self, &left, e);
	if (rc == 0 && shared)
		rc = delete_objects(&c, e);
	if (rc == 0 && shared)
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
		rc = assert_absent(&c, k.self, shared, loop, e);
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
