/*
 * door.h - exposures: one box port reachable from the host's loopback, and
 * from nowhere else.
 *
 * A door is a proxy device named expose-<box port> whose listen side is
 * always 127.0.0.1 (no option widens it).  Two shapes, by instance type:
 *
 *   container  a relay (forkproxy): listens on the host's 127.0.0.1 and
 *              connects, inside the box's own network namespace, to its
 *              127.0.0.1.  Nothing crosses the box bridge, so the box's
 *              ingress stays shut: no ACL rule, no pinned address.
 *   VM         Incus allows only NAT proxies for VMs: a DNAT to the box's
 *              address, which must be static (its NIC gets ipv4.address
 *              pinned), plus an ingress allow for exactly that address and
 *              port on the box network's ACL (box-isolate) — on the network,
 *              never on the NIC: NIC-level ACLs need bridge conntrack, and
 *              an instance with them does not start on kernels without it.
 *              The host firewall supplies route_localnet and the masquerade
 *              loopback-sourced traffic needs.
 *
 * The relay for containers is a deliberate narrowing of the original's
 * NAT-for-both: the ingress hole the NAT shape needs admits any host
 * process (not only loopback clients of the door) to the box port.
 */
#ifndef BOX_DOOR_H
#define BOX_DOOR_H

#include <stddef.h>

#include "incus/api.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "util/err.h"

#define DOOR_PREFIX	"expose-"
#define DOOR_PIN_KEY	"user.box.expose.pinned"	/* we pinned eth0 */

/* A port number 1..65535, or -1. */
int door_port(const char *s);

/*
 * The proxy device's keys for a door, into out (emptied first): listen on
 * the host's 127.0.0.1:hport; a container's connects to its own loopback
 * port, a VM's (NAT) to ip:port.  -ENOSPC for an ip too long, -ENOMEM.
 */
int door_device_kv(int vm, const char *ip, int port, int hport,
    struct incus_kvs *out);

/*
 * Add or remove the ingress allow for ip:port/tcp on the box-isolate ACL.
 * -ENOENT (nothing recorded in e) when the ACL does not exist.
 */
int door_acl(struct incus *c, const char *ip, int port, int add,
    struct box_err *e);

/*
 * Take back the ACL rules of every NAT door among devs (for rm).
 * Best effort: returns how many were removed.
 */
int door_forget(struct incus *c, const struct incus_devices *devs);

/*
 * What a copy (clone, import) must leave behind, being its source's alone:
 * the doors (their host ports are taken) and a pinned address.  For
 * life_edit's drop_device and drop_cfg.
 */
int door_source_only(const char *name, const struct incus_kvs *dev);
int door_source_key(const char *key);

/* ip and port out of a "tcp:<ip>:<port>" connect address. */
int door_connect_parse(const char *connect, char *ip, size_t cap, int *port);

/*
 * Open a door to port of box (in: as box_get() read it, with its state)
 * on the host's loopback port hport: a proxy device.  A VM's door is NAT
 * to its address, which is pinned on its NIC when it is not already
 * (DOOR_PIN_KEY says so), with a scoped ingress allow in the box
 * network's ACL.  0 with *vm and the box's address in addr; a failure
 * leaves nothing of it behind.
 */
int door_open(struct incus *c, const struct incus_instance *in,
    const char *box, int port, int hport, int *vm, char *addr, size_t cap,
    struct box_err *e);

/*
 * Close the door on port: the device goes; then, best effort and said
 * when they fail, its ACL rule and the pin when no other door needs it.
 */
int door_close(struct incus *c, const struct incus_instance *in,
    const char *box, int port, struct box_err *e);

#endif
