/*
 * profile.c - the box-net profile's devices, as data (see profile.h).
 */
#include "model/profile.h"

#include "model/names.h"

/*
 * The NIC.  Filtering binds a box to its MAC and its leased address (Incus
 * pins the lease and writes per-port drops in table bridge incus): forged
 * ARP, forged sources and a changed MAC or address go nowhere.  NAT inside
 * a box (nested Docker, a namespace with masquerade) leaves with the box's
 * own address and MAC, so it keeps working; what the original's audit saw
 * break was filtering switched on under a running box whose lease Incus
 * had not pinned.
 */
const struct contract_key contract_nic_keys[] = {
	{ "type", "nic", CV_FIXED, "a NIC" },
	{ "network", CONTRACT_BRIDGE, CV_FIXED, "on the box bridge only" },
	{ "name", CONTRACT_NIC, CV_FIXED, "the box's only interface" },
	{ "security.port_isolation", "true", CV_FIXED,
	  "without it BOXES CAN REACH EACH OTHER at layer 2" },
	{ "security.mac_filtering", "true", CV_FIXED,
	  "without it a box can send with a sibling's MAC" },
	{ "security.ipv4_filtering", "true", CV_FIXED,
	  "without it a box can send and ARP with a sibling's IPv4 "
	  "address" },
	{ "security.ipv6_filtering", "true", CV_FIXED,
	  "without it a box can send IPv6 with any address" },
};
const size_t contract_nnic_keys =
    sizeof(contract_nic_keys) / sizeof(contract_nic_keys[0]);

const struct contract_key contract_root_keys[] = {
	{ "type", "disk", CV_FIXED, "the root disk" },
	{ "pool", NULL, CV_POOL, "in the pool setup-host chose" },
	{ "path", "/", CV_FIXED, "mounted as /" },
};
const size_t contract_nroot_keys =
    sizeof(contract_root_keys) / sizeof(contract_root_keys[0]);
