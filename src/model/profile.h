/*
 * profile.h - the two devices of the box-net profile as data: the NIC
 * (the profile's, and the one of every box) and the root disk, key by
 * key with the value the contract wants and why.
 *
 * setup-host writes the profile from them (host/stack/stack.c); box/
 * judges a profile (box/remote/profile.h), a VM door's pinned eth0 (box/life/vet.c)
 * and doctor a box's shape (host/stack/shape.c) against them.
 *
 * Part of the model floor (src/model/): names and pure rules that box/ and
 * host/ both use, below both, depending on nothing but libc.
 */
#ifndef BOX_MODEL_PROFILE_H
#define BOX_MODEL_PROFILE_H

#include <stddef.h>

/* How a key's wanted value is found. */
enum contract_val {
	CV_FIXED = 0,		/* .value as written */
	CV_GATEWAY_CIDR,	/* "<gateway>/24": set at creation, never
				   re-addressed, checked always */
	CV_DNSMASQ,		/* raw.dnsmasq, from the resolvers */
	CV_POOL,		/* the storage pool setup-host chose (host/
				   stack/pool.h): any existing pool's name */
};

struct contract_key {
	const char *key;
	const char *value;	/* CV_FIXED */
	int how;		/* enum contract_val */
	const char *why;	/* one line for the reader and for doctor */
};

/* The NIC of the box-net profile (and of every box): name, then keys. */
extern const struct contract_key contract_nic_keys[];
extern const size_t contract_nnic_keys;
/* The root disk of the profile. */
extern const struct contract_key contract_root_keys[];
extern const size_t contract_nroot_keys;

#endif
