/*
 * box firewall [apply|show] [--json] - the host firewall alone.  `apply`
 * is what the boot unit runs: it needs no daemon (Incus may not be up
 * yet), only the kernel; the subnet comes from the bridge interface.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "host/firewall.h"
#include "host/hostinfo.h"
#include "host/stack.h"
#include "incus/json.h"
#include "util/opt.h"

static const char *
sibling_name(int m)
{
	return m == FW_SIBLING_BRNAME ? "brname" :
	    m == FW_SIBLING_SUBNET ? "subnet" : "absent";
}

static void
show_text(const struct fw_status *st)
{
	printf("inet box     %s (input: %u rules%s, expose-snat: %u%s)\n",
	    st->inet_table ? "present" : "ABSENT", st->input_rules,
	    st->input_ok ? "" : " — NOT as box sets it", st->snat_rules,
	    st->snat_ok ? "" : " — NOT as box sets it");
	printf("bridge box   %s (forward: %u rules, sibling drop: %s)\n",
	    st->bridge_table ? "present" : "ABSENT", st->forward_rules,
	    sibling_name(st->sibling));
	if (st->sibling_note[0] != '\0')
		printf("             %s\n", st->sibling_note);
	printf("route_localnet on %s: %s\n", STACK_BRIDGE,
	    st->route_localnet < 0 ? "no such interface" :
	    st->route_localnet ? "on" : "off");
}

static void
show_json(const struct fw_status *st)
{
	struct json_w w;
	char *out;

	json_w_init(&w, 4096);
	json_w_obj(&w);
	json_w_key(&w, "inet_table");
	json_w_bool(&w, st->inet_table);
	json_w_key(&w, "input_rules");
	json_w_int(&w, st->input_rules);
	json_w_key(&w, "input_ok");
	json_w_bool(&w, st->input_ok);
	json_w_key(&w, "snat_rules");
	json_w_int(&w, st->snat_rules);
	json_w_key(&w, "snat_ok");
	json_w_bool(&w, st->snat_ok);
	json_w_key(&w, "bridge_table");
	json_w_bool(&w, st->bridge_table);
	json_w_key(&w, "forward_rules");
	json_w_int(&w, st->forward_rules);
	json_w_key(&w, "sibling_drop");
	json_w_str(&w, sibling_name(st->sibling));
	json_w_key(&w, "route_localnet");
	if (st->route_localnet < 0)
		json_w_null(&w);
	else
		json_w_bool(&w, st->route_localnet);
	json_w_end(&w, '}');
	if (json_w_finish(&w, &out, NULL) == 0) {
		puts(out);
		free(out);
	}
}

int
cmd_firewall(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = {
		{ "--json", NULL, 0, NULL, 0 },
		{ NULL, NULL, 0, NULL, 0 }
	};
	struct opt_result res;
	struct subnet_host h;
	struct fw_status st;
	const char *what;
	int rc;

	rc = opt_parse(argc, argv, opts, &res, e);
	if (rc < 0)
		return rc;
	what = res.npos > 0 ? res.pos[0] : "show";
	if (res.npos > 1 || (strcmp(what, "apply") != 0 &&
	    strcmp(what, "show") != 0))
		return err_usage(e, "usage: box firewall [apply|show] [--json]");
	if (strcmp(what, "show") == 0) {
		rc = fw_read(STACK_BRIDGE, &st, e);
	} else {
		if (geteuid() != 0) {
			err_set(e, -EPERM, "applying the firewall needs root");
			err_fix(e, "sudo box firewall apply");
			return -EPERM;
		}
		rc = host_read(NULL, &h, e);
		if (rc == 0)
			rc = fw_apply(STACK_BRIDGE, host_iface_net(&h,
			    STACK_BRIDGE), &st, e);
	}
	if (rc < 0)
		return rc;
	if (opts[0].seen)
		show_json(&st);
	else
		show_text(&st);
	return 0;
}
