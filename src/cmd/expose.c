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
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/remote/remote.h"
#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "host/stack/firewall.h"
#include "incus/api.h"
#include "model/names.h"
#include "util/opt.h"
#include "util/text.h"

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
		{
			char sn[256], sl[256], sc[256];
			const char *n2 = dev->name + strlen(DOOR_PREFIX);

			l += strncmp(l, "tcp:", 4) == 0 ? 4 : 0;
			c += strncmp(c, "tcp:", 4) == 0 ? 4 : 0;
			text_shown(n2, strlen(n2), sn, sizeof(sn));
			text_shown(l, strlen(l), sl, sizeof(sl));
			text_shown(c, strlen(c), sc, sizeof(sc));
			printf("  %-14s %s → %s\n", sn, sl, sc);
		}
	}
	if (n == 0)
		life_say("%s has no exposed ports", box);
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
route_localnet_for_door(const struct incus_instance *in)
{
	const char *net = incus_dev_key(&in->expanded_devices, CONTRACT_NIC,
	    "network");
	struct box_err e;

	if (net == NULL || strlen(net) >= 32)
		return;
	if (remote_active()) {
		life_say("WARNING: a VM door needs route_localnet on %s in the "
		    "remote host's kernel, which box does not reach from here: "
		    "run box expose on that host", net);
		return;
	}
	err_clear(&e);
	if (fw_route_localnet_set(net, 1, &e) < 0)
		life_say("WARNING: route_localnet could not be turned on for "
		    "%s (%s), so this door will not answer: run box expose "
		    "as root", net, e.msg);
	else
		life_say("route_localnet is on on %s for this VM door (the "
		    "host firewall drops box traffic to 127/8 regardless)",
		    net);
}

/* The door is open: where it leads, and what the server must listen on. */
static void
opened(const struct incus_instance *in, const char *box, int port, int hport,
    int vm, const char *addr)
{
	printf("127.0.0.1:%d → %s:%d\n", hport, box, port);
	if (vm) {
		life_say("the server in the box must listen on 0.0.0.0 (or "
		    "%s) port %d", addr, port);
		route_localnet_for_door(in);
	} else {
		life_say("the server in the box may listen on 127.0.0.1 or "
		    "0.0.0.0 port %d", port);
	}
}

int
cmd_expose(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_instance in;
	struct box_info bi;
	struct incus c;
	const char *rm_port;
	char addr[64];
	int rc, port = 0, hport = 0, vm, list_doors, json;
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
	else if (rm_port != NULL) {
		if ((rc = door_close(&c, &in, res.pos[0], port, e)) == 0)
			printf("closed the door on port %d\n", port);
	}
	else if (!bi.running && strcmp(bi.type, "virtual-machine") == 0) {
		/* a VM's door needs its address (a container's does not) */
		rc = err_set(e, -ENOTCONN, "%s is not running — a VM's door "
		    "needs its address", res.pos[0]);
		err_fix(e, "box start %s", res.pos[0]);
	} else if ((rc = door_open(&c, &in, res.pos[0], port, hport, &vm,
	    addr, sizeof(addr), e)) == 0)
		opened(&in, res.pos[0], port, hport, vm, addr);
	incus_instance_free(&in);
out:
	incus_close(&c);
	return rc;
}
