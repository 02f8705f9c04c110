/*
 * install.h - the versioned install the installer (host/install.sh) lays
 * out, as `box versions`, `box use` and `box uninstall` see it:
 *
 *   <root>/versions/<v>/box          the binary of version v
 *   <root>/versions/<v>/MANIFEST     what was installed, from where
 *   <root>/current -> versions/<v>   relative symlink: the default
 *   <bindir>/box -> <root>/current/box
 *
 * root is /opt/box for root and ~/.local/share/box for a user (BOX_HOME
 * overrides); bindir /usr/local/bin or ~/.local/bin (BOX_BIN).  The running
 * binary finds its root from its own path (/proc/self/exe): a binary at
 * <root>/versions/<v>/box is an installed one.
 */
#ifndef BOX_INSTALL_H
#define BOX_INSTALL_H

#include <limits.h>
#include <stddef.h>

#include "util/err.h"

#define INST_VMAX	64	/* longest version name */
#define INST_MAX_VERSIONS 64

struct inst {
	char root[PATH_MAX];		/* the install root */
	char self[PATH_MAX];		/* this process's binary, resolved */
	char self_version[INST_VMAX];	/* its version dir, "" if outside */
};

/*
 * Find the install root: the running binary's own, else $BOX_HOME (when
 * set), else (only when fallback is set) the caller's default root if it
 * holds a versions/ directory.  Fails with a message naming where the
 * binary runs from.
 */
int inst_locate(struct inst *in, int fallback, struct box_err *e);

/* Version names: non-empty, no leading '.' or '-', only [A-Za-z0-9._+-]. */
int inst_version_ok(const char *v);

/* Order versions: numeric runs compare as numbers ("0.9" < "0.10"). */
int inst_vercmp(const char *a, const char *b);

/* The installed versions, sorted oldest first; count or -errno. */
int inst_versions(const struct inst *in, char (*out)[INST_VMAX], int max,
    struct box_err *e);

/* 1 when <root>/versions/<v>/box exists. */
int inst_has(const struct inst *in, const char *v);

/*
 * The version `current` points at in v: 0; -ENOENT no current link;
 * -ESTALE it dangles or points outside versions/ (v holds the target).
 */
int inst_current(const struct inst *in, char *v, size_t cap);

/* Point current at versions/<v>, atomically (a new link renamed over). */
int inst_flip(const struct inst *in, const char *v, struct box_err *e);

/* A MANIFEST value ("source", "installed_at"...) into buf, or def. */
const char *inst_manifest(const struct inst *in, const char *v,
    const char *key, char *buf, size_t cap, const char *def);

/*
 * The PATH symlinks that resolve or dangle into root: argv0 when it is
 * one, $BOX_BIN/box, and /usr/local/bin/box (root) or ~/.local/bin/box.
 * Returns how many were stored.
 */
int inst_links(const struct inst *in, const char *argv0,
    char (*out)[PATH_MAX], int max);

/* Make link point at target, atomically.  0 or -errno. */
int inst_relink(const char *link, const char *target);

/*
 * Run "<bin> --version" and check that it reports version v (the line
 * "box <v> (...)").  0 when it does; otherwise e says what it printed.
 */
int inst_check_binary(const char *bin, const char *v, struct box_err *e);

/* rm -rf path without following symlinks; 0 or the first -errno. */
int inst_rmtree(const char *path);

/* 1 when path exists (as anything, a dangling link included). */
int inst_exists(const char *path);

#endif
