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

/* Take it all apart; purge_incus: then apt-get purge incus. */
int stack_teardown(int purge_incus, struct box_err *e);

#endif
