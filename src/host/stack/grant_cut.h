/*
 * grant_cut.h - what keeps a revoked user out of the daemon, whatever
 * program they run.
 *
 * The group 'incus' only opens unix.socket.user to new logins: a setgid-
 * 'incus' copy of any client, made while granted, still connects after
 * the group is gone.  incus-user then looks only at the peer's uid: when
 * <incus dir>/users/<uid> exists (and it knows the project) it proxies the
 * connection with the client certificate it keeps there, which the trust
 * entry incus-user-<uid> makes a client of the project; when that path is
 * missing it sets the user up again (a new certificate, a new trust entry,
 * and with a project it does not remember a new project and a private
 * bridge it would auto-address).  So a revoke cuts both: the path becomes
 * a root-only regular FILE (incus-user can neither read a certificate
 * through it nor make its directory, so it closes the connection before
 * dialling the daemon), and every trust entry incus-user-<uid> is deleted
 * (a connection already proxied turns untrusted at its next request: the
 * daemon checks the certificate per request; a stream already open, an
 * exec or a console, runs until it ends).
 * grant removes the file before it asks incus-user again.
 */
#ifndef BOX_GRANT_CUT_H
#define BOX_GRANT_CUT_H

#include <stddef.h>

#include "host/stack/grant.h"
#include "incus/api.h"
#include "util/err.h"

#define GRANT_TOMBSTONE_MAX	512	/* bytes a tombstone holds */

/*
 * Put the tombstone where u's state directory was (exchanged in one
 * rename, so incus-user never sees the path missing), delete the old
 * directory, then delete the trust entries incus-user-<uid>.  Progress on
 * stderr.  Idempotent.
 */
int grant_cut(struct incus *c, const struct grant_user *u, struct box_err *e);

/* 1 when u's state path holds box's tombstone, 0 when not, < 0 on error. */
int grant_cut_present(const struct grant_user *u);

/*
 * Remove the tombstone (only a regular file of root's that box wrote;
 * anything else there is left to incus-user).  0 when none is left.
 */
int grant_uncut(const struct grant_user *u, struct box_err *e);

#endif
