/*
 * storage_host.c - a custom volume deleted.  See storage_host.h.
 */
#include "incus/storage_host.h"

#include <errno.h>
#include <stdio.h>

int
incus_volume_host_delete(struct incus *c, const char *pool, const char *name,
    int timeout_s, struct box_err *e)
{
	struct incus_reply r;
	char path[1100], p[400], n[600];
	int rc;

	if (pool[0] == '\0' || name[0] == '\0' ||
	    url_escape(pool, p, sizeof(p)) < 0 ||
	    url_escape(name, n, sizeof(n)) < 0)
		return err_set(e, -EINVAL, "odd volume '%.64s' in pool "
		    "'%.64s'", name, pool);
	snprintf(path, sizeof(path), "/1.0/storage-pools/%s/volumes/custom/%s",
	    p, n);
	rc = incus_do(c, "DELETE", path, NULL, timeout_s, &r, e);
	if (rc == 0)
		incus_reply_free(&r);
	return rc;
}
