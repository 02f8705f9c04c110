/*
 * profile_host.h - the profile list, which src/host/ needs and profile.h
 * (the network helper's) does not offer yet.  A name of its own so the
 * profile layer can grow its own list without a clash; fold it in then.
 */
#ifndef BOX_PROFILE_HOST_H
#define BOX_PROFILE_HOST_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

struct incus_profile_names {
	char **v;		/* owned */
	size_t n;
};

/* The names of the caller's project's profiles. */
int incus_profile_host_names(struct incus *c,
    struct incus_profile_names *out, struct box_err *e);
void incus_profile_names_free(struct incus_profile_names *l);

/*
 * The parser (tests, fuzzing): the list of URLs ("/1.0/profiles/<name>",
 * "?project=" allowed), each name unescaped.  -EBADMSG for anything else.
 */
int incus_profile_names_parse(struct incus_profile_names *l,
    const struct json_doc *d, int arr);

#endif
