/*
 * profile_host.c - the profile list for src/host/.  See profile_host.h.
 */
#include "incus/profile_host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LIST_MAX	4096
#define PREFIX		"/1.0/profiles/"

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The name in one URL, unescaped into a new string, or NULL. */
static char *
url_name(const struct json_doc *d, int i)
{
	char url[512], *q, *name, *o;
	const char *s;

	if (json_str(d, i, url, sizeof(url)) < 0 ||
	    strncmp(url, PREFIX, strlen(PREFIX)) != 0)
		return NULL;
	if ((q = strchr(url, '?')) != NULL)
		*q = '\0';
	s = url + strlen(PREFIX);
	if (*s == '\0' || strchr(s, '/') != NULL ||
	    (name = malloc(strlen(s) + 1)) == NULL)
		return NULL;
	for (o = name; *s != '\0'; s++) {
		if (*s == '%') {
			int h = hexval(s[1]), l = h < 0 ? -1 : hexval(s[2]);

			if (l < 0 || (h == 0 && l == 0)) {
				free(name);
				return NULL;
			}
			*o++ = (char)(h * 16 + l);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return name;
}

int
incus_profile_names_parse(struct incus_profile_names *l,
    const struct json_doc *d, int arr)
{
	int i, n;

	memset(l, 0, sizeof(*l));
	if (json_type(d, arr) != JSON_ARRAY)
		return -EBADMSG;
	if ((n = json_count(d, arr)) > LIST_MAX)
		return -E2BIG;
	if (n == 0)
		return 0;
	if ((l->v = calloc((size_t)n, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		if ((l->v[l->n] = url_name(d, i)) == NULL) {
			incus_profile_names_free(l);
			return -EBADMSG;
		}
		l->n++;
	}
	return 0;
}

void
incus_profile_names_free(struct incus_profile_names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
incus_profile_host_names(struct incus *c, struct incus_profile_names *out,
    struct box_err *e)
{
	struct incus_reply r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = incus_call(c, "GET", "/1.0/profiles", NULL, &r, e);
	if (rc < 0)
		return rc;
	rc = incus_profile_names_parse(out, &r.doc, r.metadata);
	incus_reply_free(&r);
	if (rc < 0)
		return err_set(e, rc == -EBADMSG ? -EBOX_PROTO : rc, "the "
		    "daemon's profile list is not one box understands");
	return 0;
}
