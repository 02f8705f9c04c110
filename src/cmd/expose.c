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
#include "box/tier.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "net/rtnl.h"
#include "util/opt.h"

static int
list(const struct json_doc *d, int inst, const char *box)
{
	int devs = json_get(d, inst, "devices"), k, n = 0;

	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k))) {
		int dev = json_next(d, k);
		char name[64], l[128], c[128];

		if (json_str(d, k, name, sizeof(name)) < 0 ||
		    strncmp(name, DOOR_PREFIX, strlen(DOOR_PREFIX)) != 0)
			continue;
		if (n++ == 0)
			printf("EXPOSURES for %s\n", box);
		life_jstr(d, dev, "listen", l, sizeof(l), "?");
		life_jstr(d, dev, "connect", c, sizeof(c), "?");
		printf("  %-14s %s → %s\n", name + strlen(DOOR_PREFIX),
		    strncmp(l, "tcp:", 4) == 0 ? l + 4 : l,
		    strncmp(c, "tcp:", 4) == 0 ? c + 4 : c);
	}
	if (n == 0)
		life_say("%s has no exposed ports", box);
	return 0;
}

/* The NIC device eth0 as the instance sees it (local or from its profile). */
static int
nic_with_pin(const struct json_doc *d, int inst, const char *ip, char **out,
    struct box_err *e)
{
	int nic = json_path(d, inst, "expanded_devices.eth0"), k;
	struct json_w w;

	if (!json_streq(d, json_get(d, nic, "type"), "nic"))
		return err_set(e, -ENOENT, "the box has no eth0 NIC to pin "
		    "an address on");
	json_w_init(&w, 8192);
	json_w_obj(&w);
	for (k = json_child(d, nic); k >= 0; k = json_next(d, json_next(d, k))) {
		size_t n;
		const char *raw;
		char key[64];

		if (json_str(d, k, key, sizeof(key)) < 0 ||
		    strcmp(key, "ipv4.address") == 0)
			continue;
		raw = json_raw(d, json_next(d, k), &n);
		json_w_key(&w, key);
		json_w_raw(&w, raw, n);
	}
	json_w_key(&w, "ipv4.address");
	json_w_str(&w, ip);
	json_w_end(&w, '}');
	if (json_w_finish(&w, out, NULL) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	return 0;
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
route_localnet_for_door(const struct json_doc *d, int inst)
{
	char net[32], key[96];
	struct box_err e;

	if (json_gets(d, json_path(d, inst, "expanded_devices.eth0"),
	    "network", net, sizeof(net), NULL) == NULL)
		return;
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
add(struct incus *c, const struct json_doc *d, int inst, const char *box,
    int port, int hport, struct box_err *e)
{
	struct box_subnets sn;
	struct incus_reply r;
	struct json_w w;
	char addr[64], dev[256], name[32], path[160], desc[512];
	char *pin = NULL, *body;
	int vm, rc, acl = 0;

	snprintf(name, sizeof(name), DOOR_PREFIX "%d", port);
	if (json_get(d, json_get(d, inst, "devices"), name) >= 0) {
		err_set(e, -EEXIST, "%s already exposes port %d", box, port);
		err_fix(e, "change it by closing it first: box expose %s "
		    "--remove %d", box, port);
		return -EEXIST;
	}
	vm = json_streq(d, json_get(d, inst, "type"), "virtual-machine");
	box_subnets_read(&sn);
	box_address(d, inst, &sn, addr, sizeof(addr));
	if (vm && strcmp(addr, "-") == 0) {
		err_set(e, -EADDRNOTAVAIL, "%s has no address on its bridge "
		    "yet — is it running?", box);
		err_fix(e, "box info %s", box);
		return -EADDRNOTAVAIL;
	}
	if (door_device_json(vm, addr, port, hport, dev, sizeof(dev)) < 0)
		return err_set(e, -ENOSPC, "door device too long");
	if (vm) {
		/* NAT: a static address and the scoped ingress allow */
		rc = door_acl(c, addr, port, 1, e);
		if (rc == 0)
			acl = 1;
		else if (rc != -ENOENT)
			return rc;
		if (json_get(d, json_path(d, inst, "devices.eth0"),
		    "ipv4.address") < 0 &&
		    (rc = nic_with_pin(d, inst, addr, &pin, e)) < 0)
			goto undo;
	}
	life_jstr(d, inst, "description", desc, sizeof(desc), "");
	json_w_init(&w, 65536);
	json_w_obj(&w);
	json_w_key(&w, "description");	/* a PATCH without it clears it */
	json_w_str(&w, desc);
	if (pin != NULL) {
		json_w_key(&w, "config");
		json_w_obj(&w);
		json_w_key(&w, DOOR_PIN_KEY);
		json_w_str(&w, addr);
		json_w_end(&w, '}');
	}
	json_w_key(&w, "devices");
	json_w_obj(&w);
	if (pin != NULL) {
		json_w_key(&w, "eth0");
		json_w_raw(&w, pin, strlen(pin));
	}
	json_w_key(&w, name);
	json_w_raw(&w, dev, strlen(dev));
	json_w_end(&w, '}');
	json_w_end(&w, '}');
	if (json_w_finish(&w, &body, NULL) < 0) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto undo;
	}
	snprintf(path, sizeof(path), "/1.0/instances/%s", box);
	rc = incus_call(c, "PATCH", path, body, &r, e);
	incus_reply_free(&r);
	free(body);
	if (rc < 0) {
		err_context(e, "opening the door");
		goto undo;
	}
	free(pin);
	printf("127.0.0.1:%d → %s:%d\n", hport, box, port);
	if (vm) {
		life_say("the server in the box must listen on 0.0.0.0 (or "
		    "%s) port %d", addr, port);
		route_localnet_for_door(d, inst);
	} else {
		life_say("the server in the box may listen on 127.0.0.1 or "
		    "0.0.0.0 port %d", port);
	}
	return 0;
undo:
	free(pin);
	if (acl) {
		struct box_err le;

		err_clear(&le);
		door_acl(c, addr, port, 0, &le);
	}
	return rc;
}

static int
remove_door(struct incus *c, const struct json_doc *d, int inst,
    const char *box, int port, struct box_err *e)
{
	int devs = json_get(d, inst, "devices"), dev, k, others = 0;
	char name[32], connect[128], ip[64], key[64];
	struct life_edit ed;
	int p, rc;

	snprintf(name, sizeof(name), DOOR_PREFIX "%d", port);
	dev = json_get(d, devs, name);
	if (dev < 0) {
		err_set(e, -ENOENT, "%s has no exposure on port %d", box, port);
		err_fix(e, "box expose %s --list", box);
		return -ENOENT;
	}
	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k)))
		if (json_str(d, k, key, sizeof(key)) >= 0 &&
		    strncmp(key, DOOR_PREFIX, strlen(DOOR_PREFIX)) == 0 &&
		    strcmp(key, name) != 0)
			others++;
	memset(&ed, 0, sizeof(ed));
	ed.drop_dev_name = name;
	rc = life_edit(c, box, &ed, e);
	if (rc < 0)
		return rc;
	printf("closed the door on port %d\n", port);
	/* Best effort from here: the door itself is shut. */
	if (json_streq(d, json_get(d, dev, "nat"), "true") &&
	    json_gets(d, dev, "connect", connect, sizeof(connect), NULL) &&
	    door_connect_parse(connect, ip, sizeof(ip), &p) == 0) {
		struct box_err le;

		err_clear(&le);
		if (door_acl(c, ip, p, 0, &le) < 0 && le.msg[0])
			life_say("warning: the ACL rule for %s:%d stays: %s",
			    ip, p, le.msg);
	}
	if (others == 0 && box_config(d, inst, DOOR_PIN_KEY, ip, sizeof(ip),
	    NULL) != NULL) {
		static const char *const unpin[] = { DOOR_PIN_KEY, "", NULL };
		struct box_err le;

		memset(&ed, 0, sizeof(ed));
		ed.set = unpin;
		ed.drop_dev_name = "eth0";
		err_clear(&le);
		if (life_edit(c, box, &ed, &le) < 0)
			life_say("warning: the pinned address %s stays: %s", ip,
			    le.msg);
	}
	return 0;
}

int
cmd_expose(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_reply r;
	struct box_info bi;
	struct incus c;
	const char *rm_port;
	int rc, port = 0, hport = 0, list_doors;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<port>", 0, 1, OC_NONE, "the port in the box to open "
		    "a door to (not with --list or --remove)"),
		OPT_ARG("<host-port>", 0, 1, OC_NONE, "the host's loopback "
		    "port (default: the same)"),
		OPT_FLAG("--list", NULL, &list_doors, "the open doors"),
		OPT_STR("--remove", "<port>", &rm_port, OC_NONE, "close the "
		    "door on a box port"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
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
	if ((rc = box_fetch(&c, res.pos[0], 1, &r, &bi, e)) < 0)
		goto out;
	if (list_doors)
		rc = list(&r.doc, r.metadata, res.pos[0]);
	else if (rm_port != NULL)
		rc = remove_door(&c, &r.doc, r.metadata, res.pos[0], port, e);
	else if (!bi.running && strcmp(bi.type, "virtual-machine") == 0) {
		/* a VM's door needs its address (a container's does not) */
		rc = err_set(e, -ENOTCONN, "%s is not running — a VM's door "
		    "needs its address", res.pos[0]);
		err_fix(e, "box start %s", res.pos[0]);
	} else
		rc = add(&c, &r.doc, r.metadata, res.pos[0], port, hport, e);
	incus_reply_free(&r);
out:
	incus_close(&c);
	return rc;
}
