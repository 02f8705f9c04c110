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

/* 32 random hex digits and a newline: a machine id. */
int life_machine_id(char id[34], struct box_err *e);

#endif
