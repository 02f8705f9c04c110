/*
 * image.h - local images as structs: the list in the caller's project
 * (each with its properties and creation time), an upload, deleting one by fingerprint, and an alias looked up.
 *
 * A fingerprint goes into a URL: one that is not 1..64 hex digits is
 * refused with the whole reply.
 */
#ifndef BOX_IMAGE_H
#define BOX_IMAGE_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/kv.h"
#include "util/err.h"

#define INCUS_IMAGE_FP	65	/* a SHA-256 in hex, with the NUL */

enum incus_image_type { INCUS_IMAGE_OTHER = 0, INCUS_IMAGE_CONTAINER,
	INCUS_IMAGE_VM };

struct incus_image {
	char fingerprint[INCUS_IMAGE_FP];
	int type;		/* enum incus_image_type */
	int public_;
	long long size;		/* bytes; -1 when not given */
	char **aliases;		/* owned alias names; naliases of them */
	size_t naliases;
	struct incus_kvs props;	/* its properties (metadata.yaml's) */
	char created_at[40];	/* as the daemon wrote it, or "" */
};

struct incus_images {
	struct incus_image *v;
	size_t n;
};

struct incus_image_alias {
	char *name;		/* owned */
	char target[INCUS_IMAGE_FP];	/* the image's fingerprint */
	int type;		/* enum incus_image_type */
};

/* The images of the caller's project (or the default project's). */
int incus_image_list(struct incus *c, struct incus_images *out,
    struct box_err *e);
/* Delete the image fp, waiting at most timeout_s (-ENOENT: none). */
int incus_image_delete(struct incus *c, const char *fp, int timeout_s,
    struct box_err *e);
/*
 * Upload tar[0..n) (a unified image tarball) into the caller's project,
 * wait at most timeout_s, put alias on it: 0 with its fingerprint in fp
 * (INCUS_IMAGE_FP bytes), or -errno.
 */
int incus_image_upload(struct incus *c, const void *tar, size_t n,
    const char *alias, char *fp, int timeout_s, struct box_err *e);
/*
 * A unified image tarball pushed chunked into the caller's project:
 * stream_push_write its bytes, then incus_backup_import_end for the
 * operation; once waited, incus_image_op_fp takes the image's
 * fingerprint from its reply (-EBOX_PROTO when it names none).
 */
struct stream_push;
struct incus_reply;
int incus_image_push_begin(struct incus *c, struct stream_push *k,
    struct box_err *e);
int incus_image_op_fp(const struct incus_reply *r, char *fp,
    struct box_err *e);
void incus_images_free(struct incus_images *l);

/* The parsers behind the calls (tests, fuzzing): 0, -EBADMSG, -E2BIG. */
int incus_images_parse(struct incus_images *l, const struct json_doc *d,
    int arr);
int incus_image_alias_parse(struct incus_image_alias *a,
    const struct json_doc *d, int obj);

#endif
