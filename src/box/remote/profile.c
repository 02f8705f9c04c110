/*
 * profile.c - the box-net profile judged by content (see profile.h).
 */
#include "box/remote/profile.h"

#include <errno.h>
#include <string.h>

#include "incus/kv.h"
#include "model/names.h"
#include "model/profile.h"

/*
 * The wanted value of contract key k: a CV_POOL key takes pool (NULL: any
 * pool's name will do, for the readers that judge a profile).
 */
static int
key_holds(const struct contract_key *k, const char *v, const char *pool)
{
	if (k->how == CV_POOL)
		return v != NULL && v[0] != '\0' && (pool == NULL ||
		    strcmp(v, pool) == 0);
	return v != NULL && strcmp(v, k->value) == 0;
}

/* Does device dev hold exactly the contract keys kv[0..n)? */
static int
device_exact(const struct incus_kvs *dev, const struct contract_key *kv,
    size_t n, const char *pool)
{
	size_t i;

	if (dev == NULL || dev->n != n)
		return 0;
	for (i = 0; i < n; i++)
		if (!key_holds(&kv[i], incus_kv_get(dev, kv[i].key), pool))
			return 0;
	return 1;
}

int
profile_matches(const struct incus_profile *p, const char *pool)
{
	return p->config.n == 0 && p->devices.n == 2 &&
	    device_exact(incus_dev_get(&p->devices, CONTRACT_NIC),
	    contract_nic_keys, contract_nnic_keys, NULL) &&
	    device_exact(incus_dev_get(&p->devices, "root"),
	    contract_root_keys, contract_nroot_keys, pool);
}

int
profile_get(struct incus *c, struct incus_profile *p, struct box_err *e)
{
	int rc = incus_profile_get(c, CONTRACT_PROFILE, p, e);

	if (rc == -ENOENT) {
		err_clear(e);
		return 0;
	}
	return rc < 0 ? rc : 1;
}

int
profile_check(struct incus *c, int *exists, int *ok, struct box_err *e)
{
	struct incus_profile p;
	int rc;

	*ok = 0;
	rc = profile_get(c, &p, e);
	*exists = rc > 0;
	if (rc <= 0)
		return rc;
	*ok = profile_matches(&p, NULL);
	incus_profile_free(&p);
	return 0;
}
