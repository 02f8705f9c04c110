/*
 * certificate.h - the daemon's trust store: the list (name, fingerprint,
 * type, the projects a restricted entry may use) and deleting an entry.
 *
 * A fingerprint goes into a URL, so one that is not 1..64 hex digits is
 * refused with the whole reply; names and projects are copied whole.
 */
#ifndef BOX_CERTIFICATE_H
#define BOX_CERTIFICATE_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

#define INCUS_FP_LEN	65	/* a SHA-256 in hex, with the NUL */

struct incus_certificate {
	char *name;		/* owned */
	char fingerprint[INCUS_FP_LEN];
	char type[24];		/* "client", "server", "metrics", ... */
	int restricted;
	char **projects;	/* owned; nprojects of them */
	size_t nprojects;
};

struct incus_certificates {
	struct incus_certificate *v;
	size_t n;
};

/* Every trust entry the caller may see. */
int incus_certificate_list(struct incus *c, struct incus_certificates *out,
    struct box_err *e);
/* Remove the entry with fingerprint fp (-ENOENT when there is none). */
int incus_certificate_delete(struct incus *c, const char *fp,
    struct box_err *e);
void incus_certificates_free(struct incus_certificates *l);

/* The parser behind the list (tests, fuzzing): 0, -EBADMSG, -E2BIG. */
int incus_certificates_parse(struct incus_certificates *l,
    const struct json_doc *d, int arr);

#endif
