/* migrate_retire.c - retiring the legacy stack (see migrate.h). */
#include "host/stack/migrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/stack/contract.h"
#include "host/stack/stack.h"
#include "host/stack/sysd.h"
#include "incus/instance.h"
#include "net/nft.h"
#include "util/text.h"

/* --- retiring ----------------------------------------------------------- */

static const struct stack_obj legacy_objects[] = {
	/* the profile names the bridge, the bridge the ACL: in that order */
	{ SK_PROFILE, CONTRACT_LEGACY_PROFILE,
	    "profiles/" CONTRACT_LEGACY_PROFILE },
	{ SK_NETWORK, CONTRACT_LEGACY_BRIDGE,
	    "networks/" CONTRACT_LEGACY_BRIDGE },
	{ SK_ACL, CONTRACT_LEGACY_ACL, "network-acls/" CONTRACT_LEGACY_ACL },
};
#define NLEGACY (sizeof(legacy_objects) / sizeof(legacy_objects[0]))

static const char *const legacy_files[] = {
	CONTRACT_LEGACY_UNIT_WANTS, CONTRACT_LEGACY_UNIT_PATH,
	CONTRACT_LEGACY_SCRIPT,
};
#define NFILES (sizeof(legacy_files) / sizeof(legacy_files[0]))

static void
cat(char *buf, size_t cap, const char *s)
{
	size_t n = strlen(buf);

	if (n + strlen(s) + 2 < cap)
		snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", s);
}

/* Every instance that still needs the legacy stack, named. */
static int
blockers(struct incus *c, char *buf, size_t cap, struct box_err *e)
{
	struct incus_instance_list l;
	char name[BOX_NAME_MAX], item[BOX_NAME_MAX + 48];
	int rc, k, count = 0;
	size_t i;

	buf[0] = '\0';
	rc = incus_instance_list(c, NULL, 0, &l, e);
	if (rc < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		k = migrate_kind_of(&l.v[i]);
		snprintf(name, sizeof(name), "%s", l.v[i].name[0] ?
		    l.v[i].name : "?");
		text_shown_in(name, sizeof(name));
		if (k == MIG_LEGACY)
			snprintf(item, sizeof(item), "%s", name);
		else if (k == MIG_HALFWAY)
			snprintf(item, sizeof(item), "%s (both tags: its "
			    "re-homing did not finish)", name);
		else if (migrate_uses_legacy_of(&l.v[i]))
			snprintf(item, sizeof(item), "%s (on %s or %s)", name,
			    CONTRACT_LEGACY_PROFILE, CONTRACT_LEGACY_BRIDGE);
		else
			continue;
		cat(buf, cap, item);
		count++;
	}
	incus_instance_list_free(&l);
	return count;
}

/*
 * One DELETE.  Deleting a bridge, Incus 6.0 lists the host's veths and
 * asks `ip link show` about each: one that vanishes in between (any
 * instance on the host stopping, or a re-homed box's old port) fails the
 * whole delete with "Device ... does not exist".  That race, and only
 * it, is tried again (seen on a host with many instances starting and
 * stopping).
 */
static int
delete_one(struct incus *c, const struct stack_obj *o, struct box_err *e)
{
	int rc, tries = 0;

	for (;;) {
		rc = stack_obj_delete(c, o, e);
		if (rc == 0 || rc == -ENOENT || ++tries == 10 ||
		    strstr(e->msg, "does not exist") == NULL)
			return rc;
		err_clear(e);
		nanosleep(&(struct timespec){ 0, 500000000 }, NULL);
	}
}

static int
delete_objects(struct incus *c, struct box_err *e)
{
	size_t i;
	int rc;

	for (i = 0; i < NLEGACY; i++) {
		rc = delete_one(c, &legacy_objects[i], e);
		if (rc == -ENOENT) {
			err_clear(e);
			continue;
		}
		if (rc < 0) {
			err_context(e, "deleting %s", legacy_objects[i].shown);
			return rc;
		}
		fprintf(stderr, "box: removed %s\n", legacy_objects[i].shown);
	}
	return 0;
}

static int
remove_unit(struct box_err *e)
{
	char *disable[] = { "systemctl", "disable", "--now",
	    CONTRACT_LEGACY_UNIT, NULL };
	char *reload[] = { "systemctl", "daemon-reload", NULL };
	struct box_err ignore;
	size_t i;

	err_clear(&ignore);
	if (sysd_present() && access(CONTRACT_LEGACY_UNIT_PATH, F_OK) == 0)
		sysd_run(disable, &ignore);	/* an inactive unit is fine */
	for (i = 0; i < NFILES; i++) {
		if (unlink(legacy_files[i]) == 0)
			fprintf(stderr, "box: removed %s\n", legacy_files[i]);
		else if (errno != ENOENT)
			return err_set(e, -errno, "removing %s: %s",
			    legacy_files[i], strerror(errno));
	}
	if (sysd_present())
		sysd_run(reload, &ignore);
	return 0;
}

/* One netfilter socket, for destroying or for listing our legacy tables. */
struct nft_job {
	int destroy;
	int exists[2];		/* inet, bridge */
};

static int
nft_legacy(struct nft_job *job, struct box_err *e)
{
	static const int fam[2] = { NFT_FAM_INET, NFT_FAM_BRIDGE };
	struct nl_sock *s = malloc(sizeof(*s));
	struct nft_batch *bt = malloc(sizeof(*bt));
	unsigned char *buf = malloc(4096);
	struct nft_table_info ti;
	struct nft_chain_info ch[32];
	int i, rc;

	if (s == NULL || bt == NULL || buf == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = nl_open(s, NETLINK_NETFILTER, e)) < 0)
		goto out;
	if (job->destroy) {
		nft_batch_init(bt, buf, 4096, s->seq);
		for (i = 0; i < 2; i++)
			nft_table_destroy(bt, fam[i],
			    CONTRACT_LEGACY_NFT_TABLE);
		rc = nft_batch_send(s, bt, NULL, e);
	}
	for (i = 0; rc == 0 && i < 2; i++) {
		memset(&ti, 0, sizeof(ti));
		ti.chains = ch;
		ti.maxchains = sizeof(ch) / sizeof(ch[0]);
		rc = nft_list_table(s, fam[i], CONTRACT_LEGACY_NFT_TABLE, &ti,
		    e);
		job->exists[i] = ti.exists;
	}
	nl_close(s);
out:
	free(s);
	free(bt);
	free(buf);
	return rc;
}

/* Nothing of the legacy stack may survive; name whatever did. */
static int
assert_absent(struct incus *c, struct box_err *e)
{
	struct nft_job job = { 0, { 0, 0 } };
	char left[600] = "", item[120];
	struct box_err le;
	size_t i;
	int n;

	for (i = 0; i < NLEGACY; i++) {
		err_clear(&le);
		if (stack_obj_exists(c, &legacy_objects[i], &le) == 1)
			cat(left, sizeof(left), legacy_objects[i].shown);
	}
	for (i = 0; i < NFILES; i++)
		if (access(legacy_files[i], F_OK) == 0)
			cat(left, sizeof(left), legacy_files[i]);
	err_clear(&le);
	if (nft_legacy(&job, &le) < 0) {
		snprintf(item, sizeof(item), "nft tables (unreadable: %.80s)",
		    le.msg);
		cat(left, sizeof(left), item);
	} else {
		if (job.exists[0])
			cat(left, sizeof(left), "table inet "
			    CONTRACT_LEGACY_NFT_TABLE);
		if (job.exists[1])
			cat(left, sizeof(left), "table bridge "
			    CONTRACT_LEGACY_NFT_TABLE);
	}
	err_clear(&le);
	n = blockers(c, item, sizeof(item), &le);
	if (n > 0)
		cat(left, sizeof(left), "legacy boxes");
	if (left[0] != '\0')
		return err_set(e, -EEXIST, "retiring left these behind: %s",
		    left);
	return 0;
}

int
migrate_retire(struct incus *c, struct box_err *e)
{
	struct nft_job job = { 1, { 0, 0 } };
	char who[900];
	int rc;

	rc = blockers(c, who, sizeof(who), e);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		err_set(e, -EBUSY, "refusing to retire the legacy stack: %d "
		    "instance%s still need%s it: %s", rc, rc == 1 ? "" : "s",
		    rc == 1 ? "s" : "", who);
		err_fix(e, "box migrate-host --all-boxes, then retire again");
		return -EBUSY;
	}
	if ((rc = delete_objects(c, e)) < 0 || (rc = remove_unit(e)) < 0)
		return rc;
	if ((rc = nft_legacy(&job, e)) < 0) {
		err_context(e, "removing the nft tables inet/bridge %s",
		    CONTRACT_LEGACY_NFT_TABLE);
		return rc;
	}
	if ((rc = assert_absent(c, e)) < 0)
		return rc;
	fprintf(stderr,
	    "box: legacy stack retired: %s, %s, %s, the %s unit and "
	    "script, the nft tables inet/bridge %s are gone\n",
	    CONTRACT_LEGACY_PROFILE, CONTRACT_LEGACY_BRIDGE,
	    CONTRACT_LEGACY_ACL, CONTRACT_LEGACY_UNIT,
	    CONTRACT_LEGACY_NFT_TABLE);
	return 0;
}
