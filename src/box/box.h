/*
 * box.h - what makes an instance a box, and reading one.
 *
 * The tag user.box=1 (or the legacy user.claudebox=1, honoured forever) is
 * the boundary: box acts only on instances that carry it.  Everything about
 * a box lives in its instance config (user.box.* stamps); there is no other
 * store.
 */
#ifndef BOX_BOX_H
#define BOX_BOX_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/instance.h"
#include "util/err.h"
#include "model/boxname.h"	/* box_name_ok, BOX_NAME_RULE */

#define BOX_NAME_MAX 64

struct box_info {
	char name[BOX_NAME_MAX];
	int legacy;		/* tagged only user.claudebox=1 */
	char user[64];		/* the stamped user (legacy: claude; else root) */
	char template_[64];
	char status[32];	/* Incus's status: "Running", "Stopped", ... */
	char type[32];		/* "container" / "virtual-machine" */
	int running;
	long owner;		/* user.box.owner: the minting uid, or -1 */
	char member[64];	/* the cluster member it is on, or "" */
};

/*
 * box_name_ok() as the one usage error every verb gives for a name that
 * fails it: 0, or -EINVAL (exit 2) with whence ("" or " (the name ...)")
 * appended.
 */
int box_name_check(const char *name, const char *whence, struct box_err *e);

/*
 * Fetch one box: the instance (flags as incus_instance_get()) into inst,
 * the essentials into info when not NULL.  Fails with "no such box" for a
 * missing instance and refuses an untagged one by name.
 */
int box_get(struct incus *c, const char *name, unsigned flags,
    struct incus_instance *inst, struct box_info *info, struct box_err *e);

/* 1 when the instance carries the box tag (or the legacy one). */
int box_tagged(const struct incus_instance *in, int *legacy);

/* The daemon's status codes box acts on (incus-api.md, status codes). */
#define BOX_CODE_STOPPED	102
#define BOX_CODE_RUNNING	103
#define BOX_CODE_FROZEN		110
#define BOX_CODE_ERROR		112
#define BOX_CODE_READY		113

/*
 * Is the instance up, by the daemon's status code (its text when the code
 * is unsaid)?  Ready counts as Running: a guest PATCHes its own status to
 * Ready through /dev/incus, so Ready says nothing a box could not say.
 */
int box_runs(const struct incus_instance *in);

/* Fill info from an instance. */
void box_info_of(const struct incus_instance *in, struct box_info *info);

/* The daemon's filter for tagged instances (incus_instance_list()). */
#define BOX_FILTER "config.user.box+eq+1+or+config.user.claudebox+eq+1"

/* box_get() without keeping the instance. */
int box_resolve(struct incus *c, const char *name, struct box_info *info,
    struct box_err *e);

/*
 * The host's IPv4 subnets by interface name, read once, so a box's address
 * can be chosen by the subnet of the bridge its NIC is on.
 */
#define BOX_MAX_SUBNETS 64
struct box_subnets {
	int n;
	struct {
		char ifname[16];
		unsigned int addr, mask;	/* host order */
	} s[BOX_MAX_SUBNETS];
};

int box_subnets_read(struct box_subnets *sn);

/*
 * The box's address: the first global IPv4 of the instance that lies in the
 * subnet of a bridge one of its NICs is attached to; failing that, its only
 * global IPv4; failing that "-".  in must be read with its state.
 */
void box_address_of(const struct incus_instance *in,
    const struct box_subnets *sn, char *buf, size_t cap);

#endif
