/*
 * doctor_host_run.c - the host's checks in order (dr_host): the kernel, the
 * daemon, the network and its keys, the bridge, dnsmasq, the resolvers,
 * the firewall, egress, the neighbour layers, the ACL, the profile, the
 * ports, the boxes and, on a cluster, this member's place.  Its own file
 * so that the checks (doctor_host.c) and the cluster's (doctor_cluster.c,
 * which re-reads the kernel and checks a box through doctor_host.c) are
 * called in one direction only.
 */
#include "host/doctor/doctor.h"
#include "host/doctor/doctor_int.h"

#include <errno.h>

#include "host/stack/firewall.h"
#include "incus/cluster.h"

#define S_NET		"boxnet"

int
dr_host(struct dr_report *r, const struct dr_opts *o, struct box_err *e)
{
	struct fw_status fw;
	struct dh_ctx h;

	if (dh_init(&h, r, o) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	r->where = DR_HOST;
	dh_check_signature(&h);
	dh_read_kernel(&h);
	dh_check_daemon(&h);
	if (h.daemon) {
		struct box_err ce;

		err_clear(&ce);
		if (incus_cluster_self(&h.c, h.self, sizeof(h.self), &ce) < 0)
			dr_add(r, "cluster", "cluster", DR_WARN, NULL, "whether "
			    "this daemon is a cluster member is not known: %s",
			    ce.msg);
	}
	if (h.daemon && dh_read_network(&h) == 0) {
		r->fresh = 1;
		dr_add(r, "bridge", S_NET, DR_INFO, "box setup-host", "no box "
		    "stack on this host yet (no network %s)", DH_BR);
	} else if (h.daemon && h.net_exists) {
		dh_check_net_keys(&h);
		dh_check_bridge_kernel(&h);
		dh_check_dnsmasq(&h);
		dh_check_resolver(&h);
		dh_check_own_resolver(&h);
		dh_check_firewall(&h, &fw);
		dh_check_guard(&h);
		dh_check_egress(&h);
		dh_check_neigh(&h);
		dh_check_acl(&h);
		dh_check_profile(&h);
		dh_check_ports(&h);
		dh_check_boxes(&h);
		if (h.self[0] != '\0')
			dh_check_cluster(&h);
	} else if (!h.daemon && h.br_ifindex != 0) {
		/* Without the daemon, the kernel layers can still be read. */
		dh_check_firewall(&h, &fw);
		dh_check_guard(&h);
		dh_check_ports(&h);
	}
	dh_free(&h);
	return 0;
}
