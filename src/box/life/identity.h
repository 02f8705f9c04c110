/*
 * identity.h - the machine identity a copied box must not share with its
 * source.
 */
#ifndef BOX_IDENTITY_H
#define BOX_IDENTITY_H

#include "incus/api.h"
#include "util/err.h"
#include "util/progress.h"

/*
 * A fresh machine identity for a copied box (clone, import), so it cannot
 * present its source's DHCP client id and take its lease.  A stopped
 * container gets a new /etc/machine-id through the file API before it
 * ever boots (no restart needed); a running instance (VMs: the file API
 * needs the agent) regenerates it inside and is restarted.
 */
int life_new_machine_id_offline(struct incus *c, const char *name,
    struct box_err *e);
int life_new_machine_id_online(struct incus *c, const char *name,
    long long deadline, struct progress *p, struct box_err *e);

/*
 * The offline identity written by a child process of its own, on a
 * connection of its own, while the caller goes on (a clone's egress sync):
 * the daemon's file helper takes ~45 ms to come up for a stopped
 * instance, the longest step of a stopped clone (as root on the daemon's
 * host, with a dir or btrfs pool, it is written there instead: identity.c).  sync_after: flush the
 * dirty pages after (the copy is started next; see identity.c).
 * life_identity_join waits for the child (at most timeout_ms) and gives
 * its verdict: 0, or < 0 with its message.  A child that cannot be made
 * is no error: the write is done in place instead.
 */
struct life_identity {
	int pid;		/* 0: done in place (rc holds the verdict) */
	int fd;			/* the child's verdict pipe */
	int rc;
	struct box_err e;
};
void life_identity_begin(struct life_identity *id, const char *name,
    int sync_after);
int life_identity_join(struct life_identity *id, int timeout_ms,
    struct box_err *e);

/* 32 random hex digits and a newline: a machine id. */
int life_machine_id(char id[34], struct box_err *e);

#endif
