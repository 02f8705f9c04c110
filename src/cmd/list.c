/*
 * box list - the boxes on this host, from one request:
 * GET /1.0/instances?recursion=2 (state for the address, snapshots for the
 * count).  The daemon filters to tagged instances; the tag is checked again
 * here, because the filter is a convenience and the tag is the boundary.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/box.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/table.h"

#define LIST_PATH "/1.0/instances?recursion=2&filter=" \
	"config.user.box+eq+1+or+config.user.claudebox+eq+1"

static const char *
short_type(const char *t)
{
	if (strcmp(t, "container") == 0)
		return "CT";
	if (strcmp(t, "virtual-machine") == 0)
		return "VM";
	return t;
}

static void
upper(char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

static int
print_json(const struct json_doc *d, int arr)
{
	int i, first = 1;
	size_t n;
	const char *raw;

	putchar('[');
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		if (!box_is_tagged(d, i, NULL))
			continue;
		raw = json_raw(d, i, &n);
		if (!first)
			putchar(',');
		fwrite(raw, 1, n, stdout);
		first = 0;
	}
	puts("]");
	return 0;
}

static int
print_table(const struct json_doc *d, int arr, struct box_err *e)
{
	struct box_subnets sn;
	struct table tb;
	int i, rows = 0, rc;

	box_subnets_read(&sn);
	table_init(&tb, 6);
	table_row(&tb, (const char *[]){ "NAME", "STATE", "TYPE", "ADDRESS",
	    "SNAPSHOTS", "TEMPLATE" });
	for (i = json_child(d, arr); i >= 0; i = json_next(d, i)) {
		struct box_info bi;
		char addr[64], snaps[16];

		if (!box_is_tagged(d, i, NULL))
			continue;
		box_info_from(d, i, &bi);
		upper(bi.status);
		box_address(d, i, &sn, addr, sizeof(addr));
		snprintf(snaps, sizeof(snaps), "%d",
		    json_count(d, json_get(d, i, "snapshots")));
		table_row(&tb, (const char *[]){ bi.name,
		    bi.status[0] ? bi.status : "-", short_type(bi.type), addr,
		    snaps, bi.template_[0] ? bi.template_ : "-" });
		rows++;
	}
	if (rows == 0) {
		table_free(&tb);
		fprintf(stderr, "box: no boxes yet — mint one: "
		    "box new --name work\n");
		return 0;
	}
	table_sort(&tb);
	rc = table_print(&tb, stdout);
	table_free(&tb);
	return rc < 0 ? err_set(e, rc, "out of memory") : 0;
}

static int
list(int json, struct box_err *e)
{
	struct incus c;
	struct incus_reply r;
	int rc;

	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	rc = incus_call(&c, "GET", LIST_PATH, NULL, &r, e);
	if (rc < 0) {
		err_context(e, "listing boxes");
		incus_close(&c);
		return rc;
	}
	if (json_type(&r.doc, r.metadata) != JSON_ARRAY)
		rc = err_set(e, -EBOX_PROTO, "listing boxes: the daemon sent "
		    "no instance list");
	else if (json)
		rc = print_json(&r.doc, r.metadata);
	else
		rc = print_table(&r.doc, r.metadata, e);
	incus_reply_free(&r);
	incus_close(&c);
	return rc;
}

int
cmd_list(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = {
		{ "--json", NULL, 0, NULL, 0 },
		{ NULL, NULL, 0, NULL, 0 }
	};
	struct opt_result res;
	int rc;

	rc = opt_parse(argc, argv, opts, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos > 0) {
		err_usage(e, "list takes no box");
		err_fix(e, "for one box: box info %s", res.pos[0]);
		return -EINVAL;
	}
	return list(opts[0].seen, e);
}

/* Kept for old scripts; says so once, on stderr. */
int
cmd_status(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = { { NULL, NULL, 0, NULL, 0 } };
	struct opt_result res;
	int rc = opt_parse(argc, argv, opts, &res, e);

	if (rc < 0)
		return rc;
	if (res.npos > 0 || res.dashdash)
		return err_usage(e, "status takes no arguments");
	fprintf(stderr, "box: 'status' is deprecated — use 'box list'.\n");
	return list(0, e);
}
