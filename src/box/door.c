/*
 * door.c - exposures (see door.h).
 */
#include "box/door.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/edit.h"
#include "box/narrate.h"
#include "incus/acl.h"
#include "incus/instance.h"
#include "model/names.h"
#include "util/text.h"

int
door_port(const char *s)
{
	long v;

	return text_uint(s, 1, 65535, &v) == 0 ? (int)v : -1;
}

/* Set each key, value pair of kv (NULL-ended) in out. */
static int
door_kv_set(struct incus_kvs *out, const char *const *kv)
{
	int rc = 0;

	for (; rc == 0 && kv[0] != NULL; kv += 2)
		rc = incus_kv_set(out, kv[0], kv[1]);
	return rc;
}

int
door_device_kv(int vm, const char *ip, int port, int hport,
    struct incus_kvs *out)
{
	char listen[32], connect[96];
	const char *kv[] = { "type", "proxy", "listen", listen, "connect",
	    connect, "bind", "host", vm ? "nat" : NULL, "true", NULL };
	int n;

	snprintf(listen, sizeof(listen), "tcp:127.0.0.1:%d", hport);
	n = vm ? snprintf(connect, sizeof(connect), "tcp:%s:%d", ip, port) :
	    snprintf(connect, sizeof(connect), "tcp:127.0.0.1:%d", port);
	if (n < 0 || (size_t)n >= sizeof(connect))
		return -ENOSPC;
	incus_kv_free(out);
	return door_kv_set(out, kv);
}

int
door_connect_parse(const char *connect, char *ip, size_t cap, int *port)
{
	const char *colon;
	size_t n;

	if (strncmp(connect, "tcp:", 4) != 0)
		return -EINVAL;
	connect += 4;
	colon = strrchr(connect, ':');
	if (colon == NULL)
		return -EINVAL;
	n = (size_t)(colon - connect);
	if (n == 0 || n >= cap || (*port = door_port(colon + 1)) < 0)
		return -EINVAL;
	memcpy(ip, connect, n);
	ip[n] = '\0';
	return 0;
}

/* Is rule r the door rule for dest ("ip/32") and port? */
static int
is_door_rule(const struct incus_acl_rule *r, const char *dest,
    const char *port)
{
	return r->action != NULL && strcmp(r->action, "allow") == 0 &&
	    r->destination != NULL && strcmp(r->destination, dest) == 0 &&
	    r->destination_port != NULL &&
	    strcmp(r->destination_port, port) == 0 &&
	    r->protocol != NULL && strcmp(r->protocol, "tcp") == 0;
}

int
door_acl(struct incus *c, const char *ip, int port, int add,
    struct box_err *e)
{
	struct incus_acl a;
	struct box_err le;
	char dest[64], ps[8];
	size_t i;
	int rc, found = 0;

	snprintf(dest, sizeof(dest), "%s/32", ip);
	snprintf(ps, sizeof(ps), "%d", port);
	err_clear(&le);
	rc = incus_acl_get(c, CONTRACT_ACL, &a, &le);
	if (rc == -ENOENT)
		return -ENOENT;
	if (rc < 0) {
		*e = le;
		return rc;
	}
	for (i = a.ingress.n; i-- > 0;)
		if (is_door_rule(&a.ingress.v[i], dest, ps)) {
			found = 1;
			if (!add)
				incus_acl_rule_del(&a.ingress, i);
		}
	if (add && !found) {
		struct incus_acl_rule r = {
			.action = "allow", .destination = dest,
			.destination_port = ps, .protocol = "tcp",
			.state = "enabled", .description = "box expose",
		};

		if ((rc = incus_acl_rule_add(&a.ingress, &r)) < 0) {
			incus_acl_free(&a);
			return err_set(e, rc, "out of memory");
		}
	}
	/* Everything else (description, egress, config) goes back as read. */
	rc = found == add ? 0 : incus_acl_put(c, CONTRACT_ACL, &a, e);
	incus_acl_free(&a);
	return rc;
}

int
door_forget(struct incus *c, const struct incus_devices *devs)
{
	size_t i;
	int n = 0, port;

	for (i = 0; i < devs->n; i++) {
		const struct incus_kvs *dev = &devs->v[i].kv;
		const char *connect = incus_kv_or(dev, "connect", "");
		const char *nat = incus_kv_or(dev, "nat", "");
		char ip[64];
		struct box_err le;

		if (strncmp(devs->v[i].name, DOOR_PREFIX,
		    strlen(DOOR_PREFIX)) != 0 || strcmp(nat, "true") != 0 ||
		    door_connect_parse(connect, ip, sizeof(ip), &port) < 0)
			continue;
		err_clear(&le);
		if (door_acl(c, ip, port, 0, &le) == 0)
			n++;
	}
	return n;
}

int
door_source_only(const char *name, const struct incus_kvs *dev)
{
	if (strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) == 0)
		return 1;
	return strcmp(incus_kv_or(dev, "type", ""), "nic") == 0 &&
	    incus_kv_get(dev, "ipv4.address") != NULL;
}

int
door_source_key(const char *key)
{
	return strcmp(key, DOOR_PIN_KEY) == 0;
}

/*
 * The NIC device (eth0) as the instance sees it (local or from its profile),
 * with a pinned address, into devs.
 */
static int
nic_with_pin(const struct incus_instance *in, const char *ip,
    struct incus_devices *devs, struct box_err *e)
{
	const struct incus_kvs *nic = incus_dev_get(&in->expanded_devices,
	    CONTRACT_NIC);
	struct incus_kvs kv = { 0 };
	int rc;

	if (nic == NULL || strcmp(incus_kv_or(nic, "type", ""), "nic") != 0)
		return err_set(e, -ENOENT, "the box has no eth0 NIC to pin "
		    "an address on");
	if ((rc = incus_kv_copy(&kv, nic)) == 0 &&
	    (rc = incus_kv_set(&kv, "ipv4.address", ip)) == 0)
		rc = incus_dev_set(devs, CONTRACT_NIC, &kv);
	incus_kv_free(&kv);
	return rc < 0 ? err_set(e, -ENOMEM, "out of memory") : 0;
}

int
door_open(struct incus *c, const struct incus_instance *in, const char *box,
    int port, int hport, int *vmp, char *addr, size_t cap, struct box_err *e)
{
	struct box_subnets sn;
	struct incus_devices devs = { 0 };
	struct incus_kvs cfg = { 0 }, door = { 0 };
	char name[32];
	int vm, rc, acl = 0, pin = 0;

	snprintf(name, sizeof(name), DOOR_PREFIX "%d", port);
	if (incus_dev_get(&in->devices, name) != NULL) {
		err_set(e, -EEXIST, "%s already exposes port %d", box, port);
		err_fix(e, "change it by closing it first: box expose %s "
		    "--remove %d", box, port);
		return -EEXIST;
	}
	vm = strcmp(in->type, "virtual-machine") == 0;
	box_subnets_read(&sn);
	box_address_of(in, &sn, addr, cap);
	if (vm && strcmp(addr, "-") == 0) {
		err_set(e, -EADDRNOTAVAIL, "%s has no address on its bridge "
		    "yet — is it running?", box);
		err_fix(e, "box info %s", box);
		return -EADDRNOTAVAIL;
	}
	if ((rc = door_device_kv(vm, addr, port, hport, &door)) < 0) {
		incus_kv_free(&door);
		return err_set(e, rc, "building the door device failed");
	}
	if (vm) {
		/* NAT: a static address and the scoped ingress allow */
		rc = door_acl(c, addr, port, 1, e);
		if (rc == 0)
			acl = 1;
		else if (rc != -ENOENT)
			return rc;
		if (incus_dev_key(&in->devices, CONTRACT_NIC, "ipv4.address") ==
		    NULL) {
			if ((rc = nic_with_pin(in, addr, &devs, e)) < 0)
				goto undo;
			pin = 1;
		}
	}
	if (pin && incus_kv_set(&cfg, DOOR_PIN_KEY, addr) < 0) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto undo;
	}
	if ((rc = incus_dev_set(&devs, name, &door)) < 0) {
		err_set(e, rc, "building the door device failed");
		goto undo;
	}
	/* a PATCH without the description clears it */
	rc = incus_instance_patch(c, box, pin ? &cfg : NULL, &devs,
	    in->description, 0, e);
	if (rc < 0) {
		err_context(e, "opening the door");
		goto undo;
	}
	incus_dev_free(&devs);
	incus_kv_free(&cfg);
	incus_kv_free(&door);
	*vmp = vm;
	return 0;
undo:
	incus_dev_free(&devs);
	incus_kv_free(&cfg);
	incus_kv_free(&door);
	if (acl) {
		struct box_err le;

		err_clear(&le);
		door_acl(c, addr, port, 0, &le);
	}
	return rc;
}

int
door_close(struct incus *c, const struct incus_instance *in,
    const char *box, int port, struct box_err *e)
{
	const struct incus_kvs *dev;
	const char *connect;
	char name[32], ip[64];
	struct life_edit ed;
	size_t k;
	int p, rc, others = 0;

	snprintf(name, sizeof(name), DOOR_PREFIX "%d", port);
	dev = incus_dev_get(&in->devices, name);
	if (dev == NULL) {
		err_set(e, -ENOENT, "%s has no exposure on port %d", box, port);
		err_fix(e, "box expose %s --list", box);
		return -ENOENT;
	}
	for (k = 0; k < in->devices.n; k++)
		if (strncmp(in->devices.v[k].name, DOOR_PREFIX,
		    strlen(DOOR_PREFIX)) == 0 &&
		    strcmp(in->devices.v[k].name, name) != 0)
			others++;
	memset(&ed, 0, sizeof(ed));
	ed.drop_dev_name = name;
	rc = life_edit(c, box, &ed, e);
	if (rc < 0)
		return rc;
	/* Best effort from here: the door itself is shut. */
	connect = incus_kv_get(dev, "connect");
	if (strcmp(incus_kv_or(dev, "nat", ""), "true") == 0 &&
	    connect != NULL && strlen(connect) < 128 &&
	    door_connect_parse(connect, ip, sizeof(ip), &p) == 0) {
		struct box_err le;

		err_clear(&le);
		if (door_acl(c, ip, p, 0, &le) < 0 && le.msg[0])
			life_say("warning: the ACL rule for %s:%d stays: %s",
			    ip, p, le.msg);
	}
	if (others == 0 && incus_kv_get(&in->config, DOOR_PIN_KEY) != NULL) {
		static const char *const unpin[] = { DOOR_PIN_KEY, "", NULL };
		struct box_err le;

		memset(&ed, 0, sizeof(ed));
		ed.set = unpin;
		ed.drop_dev_name = CONTRACT_NIC;
		err_clear(&le);
		if (life_edit(c, box, &ed, &le) < 0)
			life_say("warning: the pinned address %.63s stays: %s",
			    incus_kv_get(&in->config, DOOR_PIN_KEY), le.msg);
	}
	return 0;
}
