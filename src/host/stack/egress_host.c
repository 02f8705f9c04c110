/* egress_host.c - a sync that tells box's resolver (see egress_host.h). */
#include "host/stack/egress_host.h"

#include "box/bridge.h"
#include "host/stack/resolver_unit.h"

int
egress_sync_kick(struct incus *c, struct egfw_report *rep, struct box_err *e)
{
	struct box_err quiet;
	uint32_t net = 0, ns;
	int rc;

	if ((rc = egress_sync_report(c, rep, e)) < 0)
		return rc;
	err_clear(&quiet);
	if (bridge_net(c, &net, &quiet) < 0)
		net = 0;
	ns = bridge_name_server(c, net);
	rep->resolver = 0;
	rep->resolver_why[0] = '\0';
	if (net == 0 || ns == (net | 1))
		return 0;
	rep->resolver = rsvd_kick(net | 1, 3000, rep->resolver_why,
	    sizeof(rep->resolver_why)) == 1 ? 1 : -1;
	return 0;
}
