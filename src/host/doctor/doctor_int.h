/*
 * doctor_int.h - what doctor's host checks (doctor_host.c) and its repairs
 * (doctor_fix.c) share: one picture of the host, read the same way by
 * both.  Only src/host/doctor*.c include this.
 */
#ifndef BOX_DOCTOR_INT_H
#define BOX_DOCTOR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "host/doctor/doctor.h"
#include "host/stack/stack.h"
#include "incus/api.h"
#include "incus/json.h"
#include "incus/network.h"
#include "net/rtnl.h"

#define DH_BR		STACK_BRIDGE
#define DH_PORTS	512

/* The bridge keys read, by index into dh_ctx.cfg. */
enum { K_DNSMODE, K_RAW, K_V6, K_NAT, K_ACLS, K_INGRESS, K_EGRESS, K_ADDR,
    K_NKEYS };

struct dh_ctx {
	struct dr_report *r;
	const struct dr_opts *o;
	struct incus c;
	int daemon;
	int net_exists;
	char cfg[K_NKEYS][256];	/* the bridge's keys ("" when unset) */
	struct incus_network net;	/* the bridge as read (net_exists) */
	uint32_t cfg_net;	/* /24 of ipv4.address (config) */
	int br_ifindex;		/* the kernel's bridge, 0 when absent */
	int br_up;
	uint32_t live_gw;	/* its IPv4 address in the kernel, 0 none */
	uint8_t live_plen;
	char gw[16];		/* live_gw as text, "?" when none */
	struct rtnl_brport *ports;	/* the bridge's ports, DH_PORTS */
	int nports;		/* -1: unreadable */
	int dnsmasq_pid;
	struct dr_dnsmasq dm;	/* what its command line says */
	char self[64];		/* on a cluster: this member ("" standalone) */
};

/* On a cluster: this member's place in group box, which goes with its
 * firewall (doctor_cluster.c), and --members' probe box per member. */
void dh_check_cluster(struct dh_ctx *h);
/* One box on this host, checked and (probe_boxes) probed. */
struct incus_instance;
void dh_check_box(struct dh_ctx *h, const struct incus_instance *in);

int dh_init(struct dh_ctx *h, struct dr_report *r, const struct dr_opts *o);
/* Each box's egress policy and whether the kernel holds it
 * (doctor_egress.c). */
void dh_check_egress(struct dh_ctx *h);
/* Box's guard: runs, closed, its heals (doctor_guard.c). */
void dh_check_guard(struct dh_ctx *h);
/* Box's own resolver, when the bridge hands DNS to it
 * (doctor_resolver.c). */
void dh_check_own_resolver(struct dh_ctx *h);
/* Does the host hand the boxes' DNS to box's resolver (its unit is
 * installed, or raw holds port=0)? */
int dh_own_resolver(const char *raw);
/* The layers against a hostile neighbour (doctor_neigh.c), and their fix:
 * the port bindings fed again from Incus. */
void dh_check_neigh(struct dh_ctx *h);
struct box_err;
int dh_fix_neigh(struct dh_ctx *h, struct box_err *e);
void dh_free(struct dh_ctx *h);

/* The bridge as the kernel holds it: ifindex, state, address, ports. */
void dh_read_kernel(struct dh_ctx *h);
/* The bridge as Incus holds it: 1 read, 0 absent, -1 failed (a finding). */
int dh_read_network(struct dh_ctx *h);
/* The pid of a live dnsmasq serving the bridge (and its argv), or 0. */
int dh_find_dnsmasq(struct dr_dnsmasq *dm);
/* An instance's NIC on the bridge (of its expanded devices), or NULL. */
struct incus_instance;
struct incus_device;
const struct incus_device *dh_box_nic(const struct incus_instance *in);

/*
 * The host's checks, one layer each, in the order dr_host
 * (doctor_host_run.c) runs them (doctor_host.c).
 */
struct fw_status;
void dh_check_signature(struct dh_ctx *h);
void dh_check_daemon(struct dh_ctx *h);
void dh_check_net_keys(struct dh_ctx *h);
void dh_check_bridge_kernel(struct dh_ctx *h);
void dh_check_dnsmasq(struct dh_ctx *h);
void dh_check_resolver(struct dh_ctx *h);
void dh_check_firewall(struct dh_ctx *h, struct fw_status *st);
void dh_check_acl(struct dh_ctx *h);
void dh_check_profile(struct dh_ctx *h);
void dh_check_ports(struct dh_ctx *h);
void dh_check_boxes(struct dh_ctx *h);

#endif
