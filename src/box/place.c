/* place.c - placement on an Incus cluster (see place.h). */
#include "box/place.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/boxname.h"
#include "incus/cluster.h"
#include "incus/instance.h"
#include "model/names.h"
#include "util/text.h"

static const char *
shown(const char *s, char *buf, size_t cap)
{
	text_shown(s, strlen(s), buf, cap);
	return buf;
}

int
box_place(struct incus *c, const char *asked, char *target, size_t cap,
    struct box_err *e)
{
	struct incus_cluster k;
	const struct incus_member *m;
	struct box_err le;
	char sh[96];
	size_t i;
	int live = 0, down = 0;

	target[0] = '\0';
	err_clear(&le);
	if (incus_cluster_read(c, CONTRACT_GROUP, &k, &le) < 0) {
		if (asked == NULL)
			return 0;
		*e = le;
		return -EACCES;
	}
	if (!k.on) {
		if (asked != NULL)
			return err_usage(e, "--target names a cluster member, "
			    "and this daemon is not clustered");
		return 0;
	}
	if (asked != NULL) {
		if ((m = incus_cluster_member(&k, asked)) == NULL)
			return err_usage(e, "no cluster member is named '%s'",
			    shown(asked, sh, sizeof(sh)));
		if (!m->in_group) {
			err_set(e, -EPERM, "cluster member %s does not hold "
			    "box's host contract (it is not in cluster group "
			    "%s)", m->name, CONTRACT_GROUP);
			err_fix(e, "run box setup-host (or box doctor --fix) on "
			    "%s", m->name);
			return -EPERM;
		}
		if (strcmp(m->status, "Online") != 0) {
			err_set(e, -EHOSTDOWN, "cluster member %s is %s",
			    m->name, shown(m->status, sh, sizeof(sh)));
			err_fix(e, "leave out --target: box places on a live "
			    "member");
			return -EHOSTDOWN;
		}
		snprintf(target, cap, "%s", m->name);
		return 0;
	}
	/* the database says Online for a while after a daemon died: each
	 * candidate is asked; while one is down, box names a live one */
	for (i = 0; i < k.n; i++) {
		if (!k.m[i].in_group || strcmp(k.m[i].status, "Online") != 0)
			continue;
		err_clear(&le);
		if (incus_cluster_member_answers(c, k.m[i].name, &le) < 0) {
			down++;
			continue;
		}
		if (live++ == 0)
			snprintf(target, cap, "%s", k.m[i].name);
	}
	if (live == 0) {
		err_set(e, -EHOSTDOWN, "no live cluster member holds box's host "
		    "contract (cluster group %s has none online)",
		    CONTRACT_GROUP);
		err_fix(e, "run box setup-host on a member");
		return -EHOSTDOWN;
	}
	if (down == 0)
		snprintf(target, cap, "@%s", CONTRACT_GROUP);
	return 0;
}

/*
 * On a cluster, the instances the daemon could not read: a member that is
 * down (declared offline, or not answering yet) leaves them with status
 * Error and nothing else (no architecture, config or devices).
 */
static int
down_list(struct incus *c, struct incus_cluster *k,
    struct incus_instance_list *l, struct box_err *e)
{
	memset(l, 0, sizeof(*l));
	if (incus_cluster_read(c, NULL, k, e) < 0 || !k->on)
		return 0;
	if (incus_instance_list(c, "status+eq+Error", 0, l, e) < 0)
		return -EIO;
	return 1;
}

/* The member of instance in when the daemon could not read it, or NULL. */
static const struct incus_member *
down_member(const struct incus_cluster *k, const struct incus_instance *in)
{
	if (in->architecture[0] != '\0')
		return NULL;
	return incus_cluster_member(k, in->location);
}

static const char *
down_how(const struct incus_member *m)
{
	return strcmp(m->status, "Online") == 0 ? "not answering" :
	    m->status;
}

void
box_place_why(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_cluster k;
	struct incus_instance_list l;
	const struct incus_member *m;
	struct box_err le;
	size_t i;

	err_clear(&le);
	if (down_list(c, &k, &l, &le) <= 0)
		return;
	for (i = 0; i < l.n; i++) {
		if (strcmp(l.v[i].name, name) != 0 ||
		    (m = down_member(&k, &l.v[i])) == NULL)
			continue;
		err_clear(e);
		err_set(e, -EHOSTDOWN, "box %s is on cluster member %s, which "
		    "is %s: its daemon does not answer", name, m->name,
		    down_how(m));
		err_fix(e, "start Incus on %s (box list shows what the live "
		    "members hold)", m->name);
		break;
	}
	incus_instance_list_free(&l);
}

int
box_place_down(struct incus *c, box_down_cb cb, void *ctx, struct box_err *e)
{
	struct incus_cluster k;
	struct incus_instance_list l;
	const struct incus_member *m;
	size_t i;
	int n = 0, rc = down_list(c, &k, &l, e);

	for (i = 0; rc > 0 && i < l.n; i++)
		if ((m = down_member(&k, &l.v[i])) != NULL &&
		    box_name_ok(l.v[i].name)) {
			cb(ctx, l.v[i].name, l.v[i].type, m->name,
			    down_how(m));
			n++;
		}
	incus_instance_list_free(&l);
	return rc < 0 ? rc : n;
}
