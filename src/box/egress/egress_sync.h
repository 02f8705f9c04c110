/*
 * egress_sync.h - the boxes' egress policies, from their instances to the
 * kernel and the gateway's dnsmasq.
 *
 * egress_sync() reads every box's user.box.egress, NIC MAC and pinned
 * address from the daemon and puts the whole per-box part in place: the
 * kernel's chain and sets (box/egress/egress_fw.h: the rules in one batch,
 * each set replaced in one batch, the flows no longer allowed ended),
 * then boxnet's raw.dnsmasq nftset lines (a change there restarts
 * dnsmasq, which also empties its cache; the sets are then judged again,
 * since dnsmasq fed them by its old lines until then), then the state
 * file the boot unit's `box firewall apply` reads, so the rules are back
 * before Incus starts any box, without the daemon.
 *
 * A stored value that does not parse is enforced as "nothing allowed":
 * a policy that cannot be read never opens a box.
 *
 * box/'s lifecycle functions call it themselves (egress_sync_box before a
 * box they made or brought back starts, egress_sync_if once boxes are
 * gone), so no verb has to remember it; the egress verb, setup-host and
 * doctor --fix sync on purpose (host/stack/egress_host.h adds telling
 * box's resolver).
 */
#ifndef BOX_EGRESS_SYNC_H
#define BOX_EGRESS_SYNC_H

#include <stddef.h>

#include "box/egress/egress_fw.h"
#include "incus/api.h"
#include "util/err.h"

#define EGRESS_STATE_DEFAULT	"/var/lib/box/egress.state"
#define EGRESS_STATE_MAX	(1u << 20)

/* The state file's path: $BOX_EGRESS_STATE, else the default. */
const char *egress_state_path(void);

/*
 * Every box with its policy and MAC (heap, *n of them; free()).  bad, may
 * be NULL, counts stored values that did not parse.
 */
int egress_gather(struct incus *c, struct egfw_box **out, size_t *n,
    int *bad, struct box_err *e);

/* Make kernel, dnsmasq and the state file match the boxes' policies. */
int egress_sync(struct incus *c, struct box_err *e);
/* The same, saying what it did (rep may be NULL; rep->resolver is left
 * 0: host/stack/egress_host.h's egress_sync_kick tells the resolver). */
int egress_sync_report(struct incus *c, struct egfw_report *rep,
    struct box_err *e);

/* Only when some box (or box name) has a policy to enforce or to take
 * away: a host of open boxes needs no root for its lifecycle. */
int egress_sync_if(struct incus *c, int needed, struct box_err *e);

/*
 * Before box name starts (clone, import, restore): sync when its stored
 * policy is allow (or unreadable); then check the kernel holds it, so
 * the box never runs open by mistake.  An open box on a host where no
 * box was enforced costs nothing (and needs no root).
 */
int egress_sync_box(struct incus *c, const char *name, struct box_err *e);

/* Parse the state file's text: boxes appended to b[0..max). */
int egress_state_parse(const char *text, size_t len, struct egfw_box *b,
    size_t max, size_t *n);

/*
 * Add the saved per-box part to bt (firewall apply at boot): 0, or 0 with
 * nothing added when there is no state file.  *nboxes says how many.
 */
int egress_emit_saved(struct nft_batch *bt, size_t *nboxes);

/* An instance's policy (user.box.egress), parsed: 0, or -EINVAL when the
 * stored value does not parse (ep says so; see egress.h). */
struct incus_instance;
int egress_policy_of(const struct incus_instance *in,
    struct egress_policy *ep);

/* The text box shows for an instance's policy (egress_policy_text). */
void egress_effective_of(const struct incus_instance *in, char *buf,
    size_t cap);

#endif
