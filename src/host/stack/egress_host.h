/*
 * egress_host.h - an egress sync that also tells box's resolver (the egress
 * verb): the sync itself is box/egress/egress_sync.h's, which box/'s lifecycle
 * functions call without this.
 */
#ifndef BOX_EGRESS_HOST_H
#define BOX_EGRESS_HOST_H

#include "box/egress/egress_sync.h"

/*
 * egress_sync_report(), then, when box's resolver serves the boxes (the
 * host's name server is then not the gateway), have it read the policies
 * again before returning: a name allowed or denied now is answered or
 * refused from the next query on, not from its next periodic read.
 * rep->resolver says whether it did.
 */
int egress_sync_kick(struct incus *c, struct egfw_report *rep,
    struct box_err *e);

#endif
