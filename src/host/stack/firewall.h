/*
 * firewall.h - the host firewall for the box bridge: the contract's rules
 * (host/stack/contract.c) sent through our own netlink code as one batch, and
 * read back from the kernel rule by rule, by content.
 *
 * Reading back compares, for every chain of ours, each rule the kernel
 * holds with the rule the contract would send: chain spec, comment, and
 * every expression's attributes (see nft_rule_info.canon).  A changed
 * verdict, port, address or match, a rule missing, a rule added by
 * someone else, or rules out of order: each is a difference naming the
 * rule.  Counting rules proves nothing and is not used.
 *
 * On kernels that refuse `meta ibrname`/`obrname` (this CI kernel) the
 * bridge sibling drop matches box-to-box IPv4 and ARP by subnet, and the
 * status says which frames are then left to port isolation.
 */
#ifndef BOX_FIREWALL_H
#define BOX_FIREWALL_H

#include <stdint.h>

#include "host/stack/contract.h"
#include "net/nft.h"
#include "util/err.h"

enum fw_sibling {
	FW_SIBLING_ABSENT = 0,
	FW_SIBLING_BRNAME,	/* meta ibrname/obrname: every frame */
	FW_SIBLING_SUBNET,	/* IPv4 and ARP by subnet */
};

#define FW_MAXDIFF	32
#define FW_DIFFLEN	320

struct fw_status {
	uint32_t net;		/* the /24 the rules were compared for */
	int brname;		/* compared for the ibrname/obrname variant */
	int inet_table;		/* table inet box exists */
	int bridge_table;	/* table bridge box exists */
	unsigned want;		/* rules in the contract */
	unsigned held;		/* of those, held by the kernel exactly */
	unsigned extra;		/* rules in our chains that are not box's */
	int chains_ok;		/* every chain of ours with its spec */
	int ok;			/* held == want, no extra, chains_ok, order */
	int sibling;		/* enum fw_sibling, as held by content */
	char sibling_note[256];	/* why the mode is what it is */
	int ndiff;		/* differences, each naming its rule */
	char diff[FW_MAXDIFF][FW_DIFFLEN];
	int route_localnet;	/* 1 on, 0 off, -1 no such interface */
	uint32_t conn_max;	/* the per-box cap compared for */
	unsigned nnamed;	/* named destinations compared for */
};

/*
 * Apply the firewall for bridge br on subnet net/24 (host order, never 0),
 * then read it back into st.  Fails if the kernel refused the batch
 * (nothing changed) or the read-back differs from the contract.
 */
int fw_apply(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e);

/*
 * The same, with more (when not NULL) adding to the one batch after the
 * contract and the saved egress part: box's guard refills the port
 * bindings there (host/guard/guard.h), so the contract comes back whole
 * in one transaction.  A more that fails fails the apply (nothing sent).
 */
typedef int (*fw_more_fn)(struct nft_batch *bt, void *arg);
int fw_apply_more(const char *br, uint32_t net, fw_more_fn more, void *arg,
    struct fw_status *st, struct box_err *e);

/*
 * Read what the kernel holds for our tables and compare it with the
 * contract for net/24 (0 when unknown: then nothing can be held).  Fails
 * only when the kernel could not be read (e.g. no CAP_NET_ADMIN).
 */
int fw_read(const char *br, uint32_t net, struct fw_status *st,
    struct box_err *e);

/*
 * The comparison alone, over tables already read (ti[0] inet box, ti[1]
 * bridge box, as nft_list_table() fills them): what fw_read() does after
 * reading.  For tests and for anyone holding a dump.  brname < 0: the
 * variant the bridge chain holds.
 */
struct fw_kernel {
	struct nft_table_info ti[2];
};

/*
 * The contract's environment for bridge br on net/24 as this host has it
 * now: the persisted data (host/stack/fwdata.h: blocklist, connection
 * cap) and the prefixes of the interface holding the default route
 * ("this host's uplink", read from the kernel).  fe must outlive env's
 * use (env points into it).
 */
struct fw_env {
	struct contract_env env;
	struct contract_prefix named[CONTRACT_MAXNAMED];
};
int fw_env_build(const char *br, uint32_t net, int brname, struct fw_env *fe,
    struct box_err *e);

/* Delete our tables (and the legacy claudebox ones) if present. */
int fw_remove(struct box_err *e);

/*
 * The contract's ARP sysctls on bridge br (contract_arp_sysctls), set
 * when asked (set) and read back from /proc either way: 1 when every one
 * is in force (the larger of conf/all's and br's value is the contract's
 * or more), 0 when one is not (said in why), or -errno (br is absent:
 * -ENOENT).
 */
int fw_arp_sysctls(const char *br, int set, char *why, size_t cap,
    struct box_err *e);

/*
 * route_localnet on bridge br on (1) or off (0).  A VM door (an Incus NAT
 * proxy on the host's 127.0.0.1) needs it on; the input chain drops every
 * packet from a box to 127/8 whatever it says.  -ENOENT when br is absent.
 */
int fw_route_localnet_set(const char *br, int on, struct box_err *e);

#endif
