/*
 * teardown.h - the host stack taken apart (box teardown-host): every box
 * (one at a time, stopped then deleted), the box-net profile, the boxnet
 * bridge, the box-isolate ACL (and their pre-0.4 claude* namesakes), box's
 * own storage pool, our nft tables, the resolver and the boot unit; then
 * a look for each of them again, naming any survivor.  Progress goes to
 * stderr.  The caller has the consent, the tier and root.
 */
#ifndef BOX_TEARDOWN_H
#define BOX_TEARDOWN_H

#include "util/err.h"

/*
 * Take it all apart; purge_incus: then apt-get purge incus.  On a member
 * of an Incus cluster: this member's part (it leaves group box first,
 * read back; its boxes, its kernel layers), and the shared objects only
 * with all (--cluster), refused while another member is in the group.
 */
int stack_teardown(int purge_incus, int all, struct box_err *e);

#endif
