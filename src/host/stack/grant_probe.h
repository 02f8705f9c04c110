/*
 * grant_probe.h - does the daemon follow a symlink out of an instance's
 * directory when it serves the instance's metadata and templates?
 *
 * Incus 6.0.4 (as Debian ships it) opens <instance dir>/metadata.yaml and
 * <instance dir>/templates/... by path: an image whose tarball holds them
 * as symlinks hands whoever owns the instance the daemon's root on the
 * link's target (`incus config metadata show|edit`, `incus config template
 * show|create|edit`).  Newer Incus opens both through os.Root on the
 * instance directory (CVE-2026-63343, CVE-2026-48752), which refuses a
 * link that leaves it.  box cannot filter a granted user's own image
 * imports, so grant and doctor ask the daemon itself:
 *
 *   a scratch project (box-probe-<random>, its own images and profiles),
 *   an image box builds whose metadata.yaml (a regular file first, for the
 *   import to read, then a symlink of the same name) and templates link to
 *   a canary file and directory box made in a root-only directory, one
 *   container made from it and never started, and two reads: the
 *   metadata's properties.description and the template list.  The canary's
 *   random token in either answer: the daemon follows the link.  Both
 *   refused or empty: it does not.  Everything is removed after; nothing
 *   but the scratch project is touched.
 *
 * The verdict is cached in GRANT_PROBE_CACHE per daemon (its version and
 * its socket's inode and mtime, so a restarted or upgraded daemon is asked
 * again).
 */
#ifndef BOX_GRANT_PROBE_H
#define BOX_GRANT_PROBE_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

#define GRANT_PROBE_CACHE	"/run/box/daemon-symlink-probe"
#define GRANT_PROBE_PREFIX	"box-probe-"

struct grant_probe {
	int follows;		/* 1: the daemon followed a link out */
	int cached;		/* the verdict came from the cache */
	char version[64];	/* the daemon's server_version */
	char how[320];		/* what it read through which link, or why not */
	long ms;		/* how long the probe took (0 when cached) */
};

/* Ask the daemon (or the cache, unless fresh): 0 with v filled, or < 0. */
int grant_probe_daemon(struct incus *c, int fresh, struct grant_probe *v,
    struct box_err *e);

/*
 * A ustar member appended to buf (for the probe's image; exposed for the
 * unit test): type '0' (data[0..n)), '5' or '2' (link).  0, or -E2BIG.
 */
int grant_tar_member(unsigned char *buf, size_t cap, size_t *len,
    const char *name, char type, const char *link, const void *data,
    size_t n);

#endif
