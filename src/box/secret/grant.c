/*
 * grant.c - the grant list on box instances, through the daemon
 * (secret.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "box/secret/secret.h"
#include "incus/instance.h"
#include "incus/kv.h"

int
secret_grant(struct incus *c, const char *dir, const char *box,
    const char *name, int add, struct box_err *e)
{
	char list[SECRET_GRANTMAX * (SECRET_NAMEMAX + 1) + 1];
	struct incus_instance in;
	struct incus_kvs kv = { 0 };
	struct secret *s;
	int rc;

	if (!secret_name_ok(name))
		return err_usage(e, "'%s' is not a secret name", name);
	if (add) {
		struct secret one;

		s = &one;
		rc = secret_load(dir, name, s, e);
		explicit_bzero(s, sizeof(*s));
		if (rc < 0)
			return rc;
	}
	if ((rc = box_get(c, box, 0, &in, NULL, e)) < 0)
		return rc;
	rc = secret_grants_edit(incus_kv_get(&in.config, SECRET_GRANT_KEY),
	    name, add, list, sizeof(list));
	incus_instance_free(&in);
	if (rc == -E2BIG)
		return err_usage(e, "%s already has %d secrets granted", box,
		    SECRET_GRANTMAX);
	if (rc <= 0)
		return rc < 0 ? err_set(e, rc, "the grant list does not fit") :
		    0;
	if (incus_kv_set(&kv, SECRET_GRANT_KEY, list) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	rc = incus_instance_patch(c, box, &kv, NULL, NULL, 0, e);
	incus_kv_free(&kv);
	return rc < 0 ? rc : 1;
}

int
secret_grants_each(struct incus *c,
    void (*fn)(const char *box, const char *list, void *ctx), void *ctx,
    struct box_err *e)
{
	struct incus_instance_list l = { NULL, 0 };
	const char *v;
	size_t i;
	int rc;

	if ((rc = incus_instance_list(c, BOX_FILTER, 0, &l, e)) < 0)
		return rc;
	for (i = 0; i < l.n; i++) {
		v = incus_kv_get(&l.v[i].config, SECRET_GRANT_KEY);
		fn(l.v[i].name, v != NULL ? v : "", ctx);
	}
	incus_instance_list_free(&l);
	return 0;
}
