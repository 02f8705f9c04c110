/*
 * box expose <box> <port> [<host-port>]    open a door: 127.0.0.1:<host-port>
 *                                           on the host reaches <port> in the box
 * box expose <box> --list                  the open doors
 * box expose <box> --remove <port>         close one
 *
 * The listen side is always the host's 127.0.0.1; there is no option to
 * widen it.  The two shapes (a relay for containers, NAT plus a scoped
 * ACL allow for VMs) are explained in box/door.h.  The original accepted
 * any digits as a port (no range check); box takes 1-65535 only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/door.h"
#include "box/life.h"
#include "box/remote.h"
#include "box/tier.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "incus/api.h"
#include "net/rtnl.h"
#include "util/opt.h"

static int
list(const struct incus_instance *in, const char *box)
{
	size_t k;
	int n = 0;

	for (k = 0; k < in->devices.n; k++) {
		const struct incus_device *dev = &in->devices.v[k];
		const char *l, *c;

		if (strncmp(dev->name, DOOR_PREFIX, strlen(DOOR_PREFIX)) != 0)
			continue;
		if (n++ == 0)
			printf("EXPOSURES for %s\n", box);
		l = incus_kv_or(&dev->kv, "listen", "?");
		c = incus_kv_or(&dev->kv, "connect", "?");
		printf("  %-14s %s → %s\n", dev->name + strlen(DOOR_PREFIX),
		    strncmp(l, "tcp:", 4) == 0 ? l + 4 : l,
		    strncmp(c, "tcp:", 4) == 0 ? c + 4 : c);
	}
	if (n == 0)
		life_say("%s has no exposed ports", box);
	return 0;
}

/*
 * The NIC device eth0 as the instance sees it (local or from its profile),
 * with a pinned address, into devs.
 */
static int
nic_with_pin(const struct incus_instance *in, const char *ip,
    struct incus_devices *devs, struct box_err *e)
{
	const struct incus_kvs *nic = incus_dev_get(&in->expanded_devices,
	    "eth0");
	struct incus_kvs kv = { 0 };
	int rc;

	if (nic == NULL || strcmp(incus_kv_or(nic, "type", ""), "nic") != 0)
		return err_set(e, -ENOENT, "the box has no eth0 NIC to pin "
		    "an address on");
	if ((rc = incus_kv_copy(&kv, nic)) == 0 &&
	    (rc = incus_kv_set(&kv, "ipv4.address", ip)) == 0)
		rc = incus_dev_set(devs, "eth0", &kv);
	incus_kv_free(&kv);
	return rc < 0 ? err_set(e, -ENOMEM, "out of memory") : 0;
}

/*
 * A VM door is an Incus NAT proxy on the host's 127.0.0.1: its packets
 * leave for the VM with a loopback source, which the kernel routes out of
 * the bridge only with route_localnet on.  Only such a door turns it on;
 * the firewall's input chain drops every packet from a box to 127/8
 * whatever route_localnet says, and setup-host turns it off again when no
 * VM door is left.
 */
static void
route_localnet_for_door(const struct incus_instance *in)
{
	const char *net = incus_dev_key(&in->expanded_devices, "eth0",
	    "network");
	char key[96];
	struct box_err e;

	if (net == NULL || strlen(net) >= 32)
		return;
	if (remote_active()) {
		life_say("WARNING: a VM door needs route_localnet on %s in the "
		    "remote host's kernel, which box does not reach from here: "
		    "run box expose on that host", net);
		return;
	}
	snprintf(key, sizeof(key), "net/ipv4/conf/%s/route_localnet", net);
	err_clear(&e);
	if (rtnl_sysctl_set(key, "1", &e) < 0)
		life_say("WARNING: route_localnet could not be turned on for "
		    "%s (%s), so this door will not answer: run box expose "
		    "as root", net, e.msg);
	else
		life_say("route_localnet is on on %s for this VM door (the "
		    "host firewall drops box traffic to 127/8 regardless)",
		    net);
}

static int
add(struct incus *c, const struct incus_instance *in, const char *box,
    int port, int hport, struct box_err *e)
{
	struct box_subnets sn;
	struct incus_devices devs = { 0 };
	struct incus_kvs cfg = { 0 }, door = { 0 };
	char addr[64], name[32];
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
	box_address_of(in, &sn, addr, sizeof(addr));
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
		if (incus_dev_key(&in->devices, "eth0", "ipv4.address") ==
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
	printf("127.0.0.1:%d → %s:%d\n", hport, box, port);
	if (vm) {
		life_say("the server in the box must listen on 0.0.0.0 (or "
		    "%s) port %d", addr, port);
		route_localnet_for_door(in);
	} else {
		life_say("the server in the box may listen on 127.0.0.1 or "
		    "0.0.0.0 port %d", port);
	}
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

static int
remove_door(struct incus *c, const struct incus_instance *in,
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
	printf("closed the door on port %d\n", port);
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
		ed.drop_dev_name = "eth0";
		err_clear(&le);
		if (life_edit(c, box, &ed, &le) < 0)
			life_say("warning: the pinned address %.63s stays: %s",
			    incus_kv_get(&in->config, DOOR_PIN_KEY), le.msg);
	}
	return 0;
}

int
cmd_expose(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_instance in;
	struct box_info bi;
	struct incus c;
	const char *rm_port;
	int rc, port = 0, hport = 0, list_doors, json;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<port>", 0, 1, OC_NONE, "the port in the box to open "
		    "a door to (not with --list or --remove)"),
		OPT_ARG("<host-port>", 0, 1, OC_NONE, "the host's loopback "
		    "port (default: the same)"),
		OPT_FLAG("--list", NULL, &list_doors, "the open doors"),
		OPT_FLAG("--json", NULL, &json, "--list as {name, doors: "
		    "[{port, listen, connect}]}"),
		OPT_STR("--remove", "<port>", &rm_port, OC_NONE, "close the "
		    "door on a box port"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (json && !list_doors)
		return err_usage(e, "--json goes with --list");
	if (list_doors + (rm_port != NULL) + (res.npos > 1) > 1)
		return err_usage(e, "expose does one thing at a time: open "
		    "(<port> [<host-port>]), --list or --remove <port>");
	if (!list_doors && rm_port == NULL) {
		if (res.npos < 2)
			return opt_usage(argv[0], rows, e);
		port = door_port(res.pos[1]);
		hport = res.npos == 3 ? door_port(res.pos[2]) : port;
		if (port < 0 || hport < 0)
			return err_usage(e, "ports are numbers from 1 to 65535 "
			    "— got port='%s' host-port='%s'", res.pos[1],
			    res.npos == 3 ? res.pos[2] : res.pos[1]);
	}
	if ((rc = tier_require_admin("expose", e)) < 0)
		return rc;
	if (rm_port != NULL && (port = door_port(rm_port)) < 0)
		return err_usage(e, "ports are numbers from 1 to 65535 — got "
		    "'%s'", rm_port);
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_get(&c, res.pos[0], INCUS_INST_STATE, &in, &bi, e)) < 0)
		goto out;
	if (list_doors && json) {
		struct json_w w;

		json_w_init(&w, 1u << 20);
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, res.pos[0]);
		model_doors(&w, &in);
		json_w_end(&w, '}');
		rc = model_flush(&w, e);
	} else if (list_doors)
		rc = list(&in, res.pos[0]);
	else if (rm_port != NULL)
		rc = remove_door(&c, &in, res.pos[0], port, e);
	else if (!bi.running && strcmp(bi.type, "virtual-machine") == 0) {
		/* a VM's door needs its address (a container's does not) */
		rc = err_set(e, -ENOTCONN, "%s is not running — a VM's door "
		    "needs its address", res.pos[0]);
		err_fix(e, "box start %s", res.pos[0]);
	} else
		rc = add(&c, &in, res.pos[0], port, hport, e);
	incus_instance_free(&in);
out:
	incus_close(&c);
	return rc;
}
