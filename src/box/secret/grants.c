/*
 * grants.c - the grant list on an instance, "a,b" (secret.h).  Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/secret/secret.h"

int
secret_grants_parse(const char *list, char names[][SECRET_NAMEMAX + 1],
    size_t *n)
{
	const char *p = list;
	size_t k, i;

	*n = 0;
	if (list == NULL || *list == '\0')
		return 0;
	for (;;) {
		size_t l = strcspn(p, ",");

		if (*n >= SECRET_GRANTMAX || l == 0 || l > SECRET_NAMEMAX)
			return -EINVAL;
		k = *n;
		memcpy(names[k], p, l);
		names[k][l] = '\0';
		if (!secret_name_ok(names[k]))
			return -EINVAL;
		for (i = 0; i < k; i++)
			if (strcmp(names[i], names[k]) == 0)
				return -EINVAL;
		(*n)++;
		if (p[l] == '\0')
			return 0;
		p += l + 1;
	}
}

int
secret_grants_has(const char *list, const char *name)
{
	char names[SECRET_GRANTMAX][SECRET_NAMEMAX + 1];
	size_t n, i;

	if (secret_grants_parse(list, names, &n) < 0)
		return 0;	/* a list box did not write grants nothing */
	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

int
secret_grants_edit(const char *list, const char *name, int add, char *out,
    size_t cap)
{
	char names[SECRET_GRANTMAX][SECRET_NAMEMAX + 1];
	size_t n, i, o = 0;
	int had = 0, changed;

	if (secret_grants_parse(list, names, &n) < 0)
		n = 0;		/* unreadable: rewritten from scratch */
	for (i = 0; i < n; i++)
		had |= strcmp(names[i], name) == 0;
	changed = add ? !had : had;
	if (add && !had) {
		if (n >= SECRET_GRANTMAX)
			return -E2BIG;
		snprintf(names[n++], SECRET_NAMEMAX + 1, "%s", name);
	}
	if (cap == 0)
		return -ENOSPC;
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		int w;

		if (!add && strcmp(names[i], name) == 0)
			continue;
		w = snprintf(out + o, cap - o, "%s%s", o ? "," : "", names[i]);
		if (w < 0 || (size_t)w >= cap - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return changed;
}
