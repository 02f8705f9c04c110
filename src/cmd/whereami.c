/*
 * box whereami - on a host, inside an Incus instance, or inside a box?
 *
 * It reports and never refuses: exit 0 whatever the answer.  The installer
 * runs the binary it just downloaded with --json before it installs
 * anything, and refuses inside a box (see host/install/nested.h for why).
 * The JSON is one flat object on one line, so a POSIX shell can pick
 * fields out of it with sed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/model.h"
#include "host/install/nested.h"
#include "host/install/presence.h"
#include "host/stack/subnet.h"
#include "incus/json.h"
#include "model/names.h"
#include "util/opt.h"

static const char *const weight_name[] = { "info", "network", "instance",
    "box" };

struct pin {
	const char *value;	/* BOX_SUBNET, or NULL */
	int valid;		/* 1; 0 not a.b.c.0/24; -1 not RFC 1918 */
	int free;
	char claimant[160];
};

static void
check_pin(const struct nested_facts *f, struct pin *p)
{
	struct subnet_host *h;
	uint32_t net;
	int i;

	memset(p, 0, sizeof(*p));
	p->value = getenv("BOX_SUBNET");
	if (p->value == NULL || *p->value == '\0') {
		p->value = NULL;
		return;
	}
	/* The same judgement as setup-host's: a refused pin is never free. */
	switch (subnet_pin(p->value, &net, NULL)) {
	case 0:
		break;
	case -EDOM:
		p->valid = -1;
		return;
	default:
		return;
	}
	p->valid = 1;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return;
	for (i = 0; i < f->naddr && i < SUBNET_MAX_ADDRS; i++) {
		snprintf(h->addr[i].ifname, sizeof(h->addr[i].ifname), "%s",
		    f->addr[i].ifname);
		h->addr[i].addr = f->addr[i].addr;
		h->addr[i].plen = f->addr[i].plen;
	}
	h->naddr = i;
	h->has_gw = f->has_gw;
	h->gw = f->gw;
	snprintf(h->gw_dev, sizeof(h->gw_dev), "%s", f->gw_dev);
	p->free = f->net_read && !subnet_claimant(h, net, p->claimant,
	    sizeof(p->claimant));
	free(h);
}

static const char *
daemon_word(int d)
{
	return d == PRES_ANSWERED ? "answered" : d == PRES_NO_DAEMON ?
	    "none" : "unknown";
}

static const char *
tri(int v, const char *yes, const char *no)
{
	return v > 0 ? yes : v == 0 ? no : "unknown";
}

static int
emit_json(const struct nested_facts *f, const struct nested_report *r,
    const struct presence *p, const struct pin *pin, struct box_err *e)
{
	struct json_w w;
	int i;

	json_w_init(&w, 1u << 20);
	json_w_obj(&w);
	json_w_key(&w, "verdict");
	json_w_str(&w, nested_verdict_name(r->verdict));
	json_w_key(&w, "text");
	json_w_str(&w, nested_verdict_text(r->verdict));
	json_w_key(&w, "instance_type");
	json_w_str(&w, f->instance_type);
	json_w_key(&w, "location");
	json_w_str(&w, f->location);
	json_w_key(&w, "stamp");
	json_w_str(&w, f->stamp == 1 ? BOX_TAG : f->stamp == 2 ?
	    CONTRACT_LEGACY_TAG : f->stamp < 0 && f->gapi == GAPI_INCUS ?
	    "unknown" : "");
	json_w_key(&w, "evidence");
	json_w_arr(&w);
	for (i = 0; i < r->n; i++) {
		json_w_obj(&w);
		json_w_key(&w, "signal");
		json_w_str(&w, r->ev[i].signal);
		json_w_key(&w, "weight");
		json_w_str(&w, weight_name[r->ev[i].weight]);
		json_w_key(&w, "text");
		json_w_str(&w, r->ev[i].text);
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_key(&w, "daemon");
	json_w_str(&w, daemon_word(p->daemon));
	json_w_key(&w, "daemon_detail");
	json_w_str(&w, p->why);
	json_w_key(&w, "boxes");
	json_w_int(&w, p->boxes);
	json_w_key(&w, "box_names");
	json_w_arr(&w);
	for (i = 0; i < p->nnames; i++)
		json_w_str(&w, p->names[i]);
	json_w_end(&w, ']');
	json_w_key(&w, "stack");
	json_w_str(&w, tri(p->stack, "present", "absent"));
	json_w_key(&w, "stack_what");
	json_w_str(&w, p->stack_what);
	json_w_key(&w, "box_subnet");
	if (pin->value != NULL)
		json_w_str(&w, pin->value);
	else
		json_w_null(&w);
	json_w_key(&w, "box_subnet_free");
	json_w_bool(&w, pin->value != NULL && pin->valid == 1 && pin->free);
	json_w_key(&w, "box_subnet_claimant");
	json_w_str(&w, pin->claimant);
	json_w_end(&w, '}');
	return model_flush(&w, e);
}

static void
print_incus(const struct presence *p)
{
	int i;

	if (p->daemon == PRES_NO_DAEMON) {
		printf("  %-10s no Incus daemon reachable (%s)\n", "incus",
		    p->why);
		return;
	}
	if (p->daemon != PRES_ANSWERED) {
		printf("  %-10s cannot tell: %s\n", "incus", p->why);
		return;
	}
	printf("  %-10s the daemon answers: %d box%s", "incus", p->boxes,
	    p->boxes == 1 ? "" : "es");
	for (i = 0; i < p->nnames && i < 8; i++)
		printf("%s%s", i ? ", " : " (", p->names[i]);
	printf("%s%s\n", p->boxes > 8 ? ", …" : "", p->nnames ? ")" : "");
	if (p->stack > 0)
		printf("  %-10s box host stack present: %s\n", "stack",
		    p->stack_what);
	else
		printf("  %-10s %s\n", "stack", p->stack == 0 ? "no box host "
		    "stack (no boxnet, no box-net profile)" : "cannot tell "
		    "whether the box host stack exists");
}

static void
emit_text(const struct nested_report *r, const struct presence *p,
    const struct pin *pin)
{
	int i;

	printf("box whereami: %s\n", nested_verdict_text(r->verdict));
	for (i = 0; i < r->n; i++)
		printf("  %-10s %s\n", r->ev[i].signal, r->ev[i].text);
	print_incus(p);
	if (pin->value != NULL)
		printf("  %-10s BOX_SUBNET=%s %s%s\n", "pin", pin->value,
		    pin->valid == 0 ? "is not of the form a.b.c.0/24" :
		    pin->valid < 0 ? "is not a private (RFC 1918) /24: "
		    "setup-host refuses it" :
		    pin->free ? "is claimed by nothing here" : "is claimed by ",
		    pin->valid == 1 && !pin->free ? pin->claimant : "");
	if (r->verdict == NESTED_BOX)
		printf("\nDo not build a box host stack here: a box bridge "
		    "inside a box takes over\nthe guest's own uplink subnet "
		    "and gateway address (the #80 outage).\nSo the installer, "
		    "setup-host, teardown-host, firewall apply and uninstall\n"
		    "--purge-host refuse here; setup-host --dry-run says it "
		    "would.  BOX_ALLOW_NESTED=1\noverrides them: the installer "
		    "then puts the CLI alone, and setup-host builds\non a "
		    "subnet nothing here claims.\n");
}

int
cmd_whereami(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct nested_facts *f;
	struct nested_report *r;
	struct presence p;
	struct pin pin;
	int rc, json;
	const struct opt rows[] = {
		OPT_FLAG("--json", NULL, &json, "one flat JSON object on one "
		    "line (the installer reads it)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	f = calloc(1, sizeof(*f));
	r = calloc(1, sizeof(*r));
	if (f == NULL || r == NULL) {
		free(f);
		free(r);
		return err_set(e, -ENOMEM, "out of memory");
	}
	nested_probe(f, NESTED_GUESTAPI);
	nested_classify(f, r);
	presence_probe(&p, 1);
	check_pin(f, &pin);
	if (json)
		rc = emit_json(f, r, &p, &pin, e);
	else
		emit_text(r, &p, &pin);
	free(f);
	free(r);
	return rc;
}
