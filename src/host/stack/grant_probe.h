/*
 * grant_probe.h - the daemon escapes the restricted tier rests on, one
 * gate per class: each class that fails hands a granted user the host's
 * root or every project's boxes.
 *
 * Probed (cheap and harmless, in a scratch project as the admin):
 *   symlinked metadata/templates: Incus 6.0.4 (as Debian ships it) opens
 *   <instance dir>/metadata.yaml and templates/... by path, so an image
 *   whose tarball holds them as symlinks hands its owner the daemon's root
 *   on the link's target (`incus config metadata|template ...`).  Newer
 *   Incus opens both through os.Root (CVE-2026-63343, CVE-2026-48752).
 *   a top-level rootfs link: an image whose rootfs is a symlink (after a
 *   rootfs/ directory, for the import) is unpacked as it stands, and the
 *   instance's root is the link's target: `incus file pull|push` read and
 *   write host files as root.
 * By release (a restricted client's request; root cannot be one):
 *   cross-project copy: a granted user copies any project's instance (the
 *   admin's, another user's) into their own and reads its files;
 *   copy of a privileged instance: the copy keeps security.privileged in
 *   a project restricted to unprivileged containers, and runs as host root.
 *
 * The probe: a scratch project (box-probe-<random>, its own images and
 * profiles); a canary file and directory box made in a root-only directory;
 * an image whose metadata.yaml (a regular file first, then a symlink of the
 * same name) and templates link to them, one container made from it and
 * never started, and two reads (the metadata's properties.description, the
 * template list); then an image whose rootfs links to the canary directory,
 * a container from it (never started), and one file read through it.  The
 * canary's random token in any answer: that class fails.  Everything is
 * removed after; nothing but the scratch project is touched.
 *
 * The probed verdicts are cached in GRANT_PROBE_CACHE per daemon (its
 * version and its socket's inode and mtime, so a restarted or upgraded
 * daemon is asked again); the release table is read every time.
 */
#ifndef BOX_GRANT_PROBE_H
#define BOX_GRANT_PROBE_H

#include <stddef.h>

#include "incus/api.h"
#include "util/err.h"

#define GRANT_PROBE_CACHE	"/run/box/daemon-symlink-probe"
#define GRANT_PROBE_PREFIX	"box-probe-"

enum {
	GRANT_GATE_SYMLINK = 1 << 0,	/* probed */
	GRANT_GATE_ROOTFS = 1 << 1,	/* probed */
	GRANT_GATE_XCOPY = 1 << 2,	/* by release */
	GRANT_GATE_PRIVCOPY = 1 << 3,	/* by release */
};
#define GRANT_PROBED	(GRANT_GATE_SYMLINK | GRANT_GATE_ROOTFS)

struct grant_probe {
	unsigned failing;	/* GRANT_GATE_* this daemon fails */
	int cached;		/* the probed verdicts came from the cache */
	char version[64];	/* the daemon's server_version */
	char how[320];		/* the symlink probe: what it read, or why not */
	char how_rootfs[200];	/* the rootfs probe: the same */
	long ms;		/* how long the probe took (0 when cached) */
};

/* Ask the daemon (or the cache, unless fresh): 0 with v filled, or < 0. */
int grant_probe_daemon(struct incus *c, int fresh, struct grant_probe *v,
    struct box_err *e);

/*
 * Every failing gate named (with detail, what the daemon did or why it is
 * judged by release), "; "-separated, into buf; returns how many fail.
 */
size_t grant_gates_text(const struct grant_probe *v, int detail, char *buf,
    size_t cap);

/* What a granted user gets from a daemon failing any gate. */
#define GRANT_RISK_TEXT "every project's boxes (the admin's and every " \
	"other user's, copied and read) and root on this host"

/*
 * A ustar member appended to buf (for the probe's image; exposed for the
 * unit test): type '0' (data[0..n)), '5' or '2' (link).  0, or -E2BIG.
 */
int grant_tar_member(unsigned char *buf, size_t cap, size_t *len,
    const char *name, char type, const char *link, const void *data,
    size_t n);

#endif
