/*
 * shape.h - a box's whole shape, judged from the daemon's instance
 * object alone (its expanded_devices and expanded_config): a pure,
 * bounded function, no I/O, so every verdict can be tested on crafted
 * instances (tests/unit/test_shape.c reads them through the instance
 * parser).  doctor reports it (host/doctor/doctor_shape.h); migrate-host
 * judges each box it re-homed with it.
 *
 * Why: doctor used to accept a box when *some* NIC sat on boxnet, whatever
 * else it carried.  An extra NIC (a second way out), a host directory, a
 * proxy listening on every host address, a passed-through device or a
 * privileged container each void the isolation contract while every
 * network layer still reads clean.  So a box passes only when it has
 * exactly the shape box gives it:
 *
 *   NIC      exactly one, device eth0, with exactly the profile contract's
 *            keys and values (type nic, network boxnet, name eth0, port
 *            isolation and MAC/IPv4/IPv6 filtering on); the only extra key
 *            allowed is the ipv4.address `box expose` pins on a VM's eth0,
 *            and only when user.box.expose.pinned records that address.
 *   disk     exactly one: the root disk (type disk, path /, the contract's
 *            pool; size allowed: box sets it on VMs).
 *   proxy    only box's own doors (box/door.h): expose-<port>, listen
 *            tcp:127.0.0.1:<host port>, bind host; a container's connects
 *            to tcp:127.0.0.1:<port> without NAT, a VM's to its pinned
 *            address with nat=true.  Nothing else (no 0.0.0.0, no unix
 *            sockets, no uid/gid/mode, no PROXY protocol).
 *   devices  of no other type (unix-char, unix-block, unix-hotplug, usb,
 *            gpu, infiniband, pci, tpm, none, ...).
 *   config   no security.privileged other than false; security.nesting
 *            only "true" on a container (box mints every container so, for
 *            nested containers and systemd; in an unprivileged container
 *            it grants no host privilege; no template sets it, and a VM
 *            has no use for it); no raw.* key; no linux.kernel_modules; no
 *            security.syscalls.intercept.* other than false; no
 *            security.syscalls.allow, no security.syscalls.deny_default
 *            false (each widens the syscall filter).
 *
 * Text in a problem (device names, values) is made printable and bounded.
 */
#ifndef BOX_SHAPE_H
#define BOX_SHAPE_H

#include <stddef.h>

#define SHAPE_MAX	24	/* problems kept; more are counted */
#define SHAPE_TEXT	200

struct shape_report {
	int n;				/* problems kept in what[] */
	int more;			/* problems beyond SHAPE_MAX */
	char what[SHAPE_MAX][SHAPE_TEXT];
};

struct incus_instance;
struct incus_kvs;

/*
 * Judge the instance in (read with its expanded_config and
 * expanded_devices by incus/instance.h, which refuses a reply with a key
 * given twice or a value that is not a string).  Returns the number of
 * problems found (0: the box has exactly box's shape); each one sentence
 * in s, naming what was found.
 */
int shape_check(const struct incus_instance *in, struct shape_report *s);

/*
 * A NIC device's keys against the profile contract: "" in buf when they
 * match exactly, else the differences ("; "-joined).  pinned is the
 * ipv4.address the NIC may carry besides (a VM door's), or NULL.  Used for
 * the profile's eth0 as well as each box's.
 */
void shape_nic_kv(const struct incus_kvs *nic, const char *pinned, char *buf,
    size_t cap);

/* A root disk's keys against the contract's (size allowed), likewise. */
void shape_root_kv(const struct incus_kvs *root, char *buf, size_t cap);

/* The address a VM door pinned (user.box.expose.pinned), or NULL. */
const char *shape_pinned(const struct incus_instance *in);

#endif
