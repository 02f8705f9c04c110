/*
 * box list - the boxes on this host, from cheap reads:
 *   GET /1.0/instances?recursion=1         every box and its status
 *   GET /1.0/storage-pools/<p>/volumes     every volume's URL, snapshots
 *                                          included (".../container/<box>/
 *                                          snapshots/<snap>"), per pool
 *   the network's DHCP records on the host  a running box's address
 *                                          (box/where.h)
 * recursion=2 would make the daemon collect runtime state for every
 * instance, one worker at a time; that is the fallback, taken (and said
 * once on stderr) only where a cheap read cannot answer, and what
 * --json=full prints (the daemon's own objects, as box list --json did
 * before it had its own schema).  The daemon filters to tagged instances; the tag is checked
 * again here, because the filter is a convenience and the tag is the
 * boundary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/egress/egress_sync.h"
#include "box/life/idle.h"
#include "box/box.h"
#include "box/egress/egress.h"
#include "box/egress/refusals.h"
#include "box/place.h"
#include "box/where.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "box/remote/remote.h"
#include "incus/api.h"
#include "incus/storage.h"
#include "util/opt.h"
#include "util/table.h"
#include "util/text.h"

#define MAX_POOLS 8

enum { OUT_TABLE, OUT_JSON, OUT_FULL, OUT_CSV, OUT_NAMES };

struct row {
	struct box_info bi;
	char addr[64];
	char pool[64];
	int snaps;
	char *egress;		/* the effective policy (heap) */
	long refused;		/* destinations its log holds; <0 unknown */
};

struct roster {
	struct row *v;
	int n;
};

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
row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->bi.name,
	    ((const struct row *)b)->bi.name);
}

/* The pool of the instance's root disk, or "". */
static void
root_pool(const struct incus_instance *in, char *buf, size_t cap)
{
	size_t k;

	buf[0] = '\0';
	for (k = 0; k < in->expanded_devices.n; k++) {
		const struct incus_kvs *dev = &in->expanded_devices.v[k].kv;

		if (strcmp(incus_kv_or(dev, "type", ""), "disk") == 0 &&
		    strcmp(incus_kv_or(dev, "path", ""), "/") == 0) {
			snprintf(buf, cap, "%s", incus_kv_or(dev, "pool", ""));
			return;
		}
	}
}

/* The tagged instances of the list as rows (addresses not yet). */
static int
roster_from(const struct incus_instance_list *l, struct roster *ro,
    struct box_err *e)
{
	size_t i;

	ro->n = 0;
	ro->v = calloc(l->n > 0 ? l->n : 1, sizeof(*ro->v));
	if (ro->v == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		struct row *r = &ro->v[ro->n];
		const struct incus_instance *in = &l->v[i];

		if (!box_tagged(in, NULL))
			continue;
		box_info_of(in, &r->bi);
		snprintf(r->addr, sizeof(r->addr), "-");
		root_pool(in, r->pool, sizeof(r->pool));
		r->snaps = in->nsnapshots;
		if ((r->egress = malloc(EGRESS_TEXTMAX + 32)) != NULL)
			egress_effective_of(in, r->egress, EGRESS_TEXTMAX + 32);
		ro->n++;
	}
	return 0;
}

static void
rows_free(struct roster *ro)
{
	int i;

	for (i = 0; ro->v != NULL && i < ro->n; i++)
		free(ro->v[i].egress);
	free(ro->v);
}

/* Count each box's snapshots from its pool's volume list. */
static int
count_snapshots(struct incus *c, struct roster *ro, char *why, size_t wcap,
    struct box_err *e)
{
	char pools[MAX_POOLS][64];
	int np = 0, i, p, rc;

	for (i = 0; i < ro->n; i++) {
		for (p = 0; p < np && strcmp(pools[p], ro->v[i].pool) != 0; p++)
			;
		if (ro->v[i].pool[0] == '\0') {
			snprintf(why, wcap, "%.64s has no root disk pool",
			    ro->v[i].bi.name);
			return -ENOTSUP;
		}
		if (p == np) {
			if (np == MAX_POOLS) {
				snprintf(why, wcap, "boxes on more than %d "
				    "pools", MAX_POOLS);
				return -E2BIG;
			}
			snprintf(pools[np++], sizeof(pools[0]), "%s",
			    ro->v[i].pool);
		}
	}
	for (p = 0; p < np; p++) {
		struct incus_volume_refs l;
		struct box_err ve = { 0 };
		size_t v;

		/* Names only: recursion=1 would render every volume. */
		rc = incus_pool_volumes(c, pools[p], NULL, &l, &ve);
		if (rc < 0) {
			snprintf(why, wcap, "pool %.60s's volume list: %.600s",
			    pools[p], ve.msg);
			return rc;
		}
		for (v = 0; v < l.n; v++) {
			if (l.v[v].snapshot == NULL)
				continue;
			for (i = 0; i < ro->n; i++)
				if (strcmp(ro->v[i].pool, pools[p]) == 0 &&
				    strcmp(ro->v[i].bi.name, l.v[v].name) == 0 &&
				    strcmp(ro->v[i].bi.type, l.v[v].type) == 0)
					ro->v[i].snaps++;
		}
		incus_volume_refs_free(&l);
	}
	(void)e;
	return 0;
}

/*
 * The cheap reads.  0 with ro filled; < 0 with why when they cannot answer
 * (the caller asks the daemon for everything instead); other errors in e.
 */
static int
list_fast(struct incus *c, struct roster *ro, char *why, size_t wcap,
    struct box_err *e)
{
	struct incus_instance_list l;
	struct box_where w;
	size_t i;
	int k, rc;

	rc = incus_instance_list(c, BOX_FILTER, INCUS_INST_RAW, &l, e);
	if (rc < 0)
		return err_context(e, "listing boxes"), rc;
	rc = roster_from(&l, ro, e);
	where_init(&w);
	/* Addresses: the list's tagged instances are the roster's, in order. */
	for (i = 0, k = 0; rc == 0 && i < l.n; i++) {
		char whyone[256];

		if (!box_tagged(&l.v[i], NULL))
			continue;
		/* on a cluster each member's leases are its own: the
		 * daemon answers for every member's boxes */
		if (ro->v[k].bi.member[0] != '\0')
			rc = 2;
		else if (where_address(&w, &l.v[i], ro->v[k].addr,
		    sizeof(ro->v[k].addr), whyone, sizeof(whyone)) < 0) {
			snprintf(why, wcap, "%s", whyone);
			rc = 1;
		}
		k++;
	}
	where_free(&w);
	incus_instance_list_free(&l);
	if (rc == 0)
		rc = count_snapshots(c, ro, why, wcap, e);
	if (rc > 0)
		rc = rc == 2 ? -EREMOTE : -ENOTSUP;
	if (rc < 0) {
		rows_free(ro);
		ro->v = NULL;
		ro->n = 0;
	}
	return rc;
}

/* The daemon's full objects: for --json=full and as the fallback. */
static int
list_full(struct incus *c, struct incus_instance_list *l, struct box_err *e)
{
	int rc = incus_instance_list(c, BOX_FILTER, INCUS_INST_STATE |
	    INCUS_INST_RAW, l, e);

	if (rc < 0)
		err_context(e, "listing boxes");
	return rc;
}

static int
roster_full(const struct incus_instance_list *l, struct roster *ro,
    struct box_err *e)
{
	struct box_subnets sn;
	size_t i;
	int k = 0, rc;

	rc = roster_from(l, ro, e);
	if (rc < 0)
		return rc;
	box_subnets_read(&sn);
	for (i = 0; i < l->n; i++)
		if (box_tagged(&l->v[i], NULL))
			box_address_of(&l->v[i], &sn, ro->v[k++].addr,
			    sizeof(ro->v[0].addr));
	return 0;
}

/* --json=full: the daemon's own bytes of every box. */
static void
print_raw(const struct incus_instance_list *l)
{
	size_t i;
	int first = 1;

	putchar('[');
	for (i = 0; i < l->n; i++) {
		if (!box_tagged(&l->v[i], NULL))
			continue;
		if (!first)
			putchar(',');
		fwrite(l->v[i].raw, 1, l->v[i].raw_len, stdout);
		first = 0;
	}
	puts("]");
}

/* An allow box's count of refused destinations (the kernel's log: root
 * reads it; anyone else gets "unknown", < 0).  An open box has no log. */
static long
refused_of(const struct row *r)
{
	if (r->egress == NULL || strncmp(r->egress, "allow", 5) != 0)
		return 0;
	return refusals_count(r->bi.name);
}

/* One box in box's own schema (see docs/json.md): the list entry. */
static void
model_write(struct json_w *w, const struct row *r)
{
	json_w_obj(w);
	json_w_key(w, "name");
	json_w_str(w, r->bi.name);
	json_w_key(w, "state");
	json_w_str(w, r->bi.status);
	json_w_key(w, "type");
	json_w_str(w, r->bi.type);
	json_w_key(w, "address");
	if (strcmp(r->addr, "-") == 0)
		json_w_null(w);
	else
		json_w_str(w, r->addr);
	json_w_key(w, "snapshots");
	json_w_int(w, r->snaps);
	json_w_key(w, "template");
	if (r->bi.template_[0] == '\0')
		json_w_null(w);
	else
		json_w_str(w, r->bi.template_);
	json_w_key(w, "legacy");
	json_w_bool(w, r->bi.legacy);
	json_w_key(w, "egress");
	json_w_str(w, r->egress != NULL ? r->egress : "open");
	if (r->bi.member[0] != '\0') {
		json_w_key(w, "location");
		json_w_str(w, r->bi.member);
	}
}

/* box's own schema; see box help list. */
static int
print_json(const struct roster *ro, struct box_err *e)
{
	struct json_w w;
	int i;

	json_w_init(&w, 16u << 20);
	json_w_arr(&w);
	for (i = 0; i < ro->n; i++) {
		model_write(&w, &ro->v[i]);
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	return model_flush(&w, e);
}

int
model_open(struct incus *c, const struct incus_instance *in,
    struct json_w *w, struct box_err *e)
{
	struct incus_snapshot_list sl;
	struct box_where wh;
	struct row r;
	char why[256];
	int rc;

	memset(&r, 0, sizeof(r));
	box_info_of(in, &r.bi);
	snprintf(r.addr, sizeof(r.addr), "-");
	where_init(&wh);
	rc = where_address(&wh, in, r.addr, sizeof(r.addr), why, sizeof(why));
	where_free(&wh);
	if (rc <= 0 || r.addr[0] == '\0')
		snprintf(r.addr, sizeof(r.addr), "-");
	if ((rc = incus_snapshot_list(c, r.bi.name, &sl, e)) < 0)
		return rc;
	r.snaps = (int)sl.n;
	incus_snapshot_list_free(&sl);
	if ((r.egress = malloc(EGRESS_TEXTMAX + 32)) != NULL)
		egress_effective_of(in, r.egress, EGRESS_TEXTMAX + 32);
	model_write(w, &r);
	free(r.egress);
	return 0;
}

void
model_doors(struct json_w *w, const struct incus_instance *in)
{
	size_t k;

	json_w_key(w, "doors");
	json_w_arr(w);
	for (k = 0; k < in->devices.n; k++) {
		const struct incus_device *dev = &in->devices.v[k];
		const char *l = incus_kv_or(&dev->kv, "listen", "");
		const char *c = incus_kv_or(&dev->kv, "connect", "");
		const char *port;

		if (strncmp(dev->name, "expose-", 7) != 0)
			continue;
		port = strrchr(c, ':');
		json_w_obj(w);
		json_w_key(w, "port");
		json_w_int(w, port != NULL ? atoi(port + 1) : 0);
		json_w_key(w, "listen");
		json_w_str(w, strncmp(l, "tcp:", 4) == 0 ? l + 4 : l);
		json_w_key(w, "connect");
		json_w_str(w, strncmp(c, "tcp:", 4) == 0 ? c + 4 : c);
		json_w_end(w, '}');
	}
	json_w_end(w, ']');
}

int
model_flush(struct json_w *w, struct box_err *e)
{
	char *out;
	size_t len;

	if (json_w_finish(w, &out, &len) < 0)
		return err_set(e, -ENOMEM, "out of memory");
	fwrite(out, 1, len, stdout);
	putchar('\n');
	free(out);
	return 0;
}


int
model_print(const char *name, struct box_err *e)
{
	struct incus_instance in;
	struct json_w w;
	struct incus c;
	int rc;

	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_get(&c, name, 0, &in, NULL, e)) == 0) {
		json_w_init(&w, 1u << 20);
		rc = model_open(&c, &in, &w, e);
		json_w_end(&w, '}');
		if (rc == 0)
			rc = model_flush(&w, e);
		else
			json_w_free(&w);
		incus_instance_free(&in);
	}
	incus_close(&c);
	return rc;
}

/* A box on a cluster member that is down: named, its state unknown. */
static void
down_row(void *ctx, const char *name, const char *type, const char *member,
    const char *status)
{
	struct roster *ro = ctx;
	struct row *v = realloc(ro->v, (size_t)(ro->n + 1) * sizeof(*v)), *r;

	if (v == NULL)
		return;
	ro->v = v;
	r = memset(&v[ro->n++], 0, sizeof(*r));
	snprintf(r->bi.name, sizeof(r->bi.name), "%s", name);
	snprintf(r->bi.status, sizeof(r->bi.status), "Unreachable");
	snprintf(r->bi.type, sizeof(r->bi.type), "%s", type);
	snprintf(r->bi.member, sizeof(r->bi.member), "%s", member);
	snprintf(r->addr, sizeof(r->addr), "-");
	r->egress = strdup("unknown");
	fprintf(stderr, "box: %s is on cluster member %s, which is %s: not "
	    "reachable until its daemon is back\n", name, member, status);
}

static int
print_table(const struct roster *ro, struct box_err *e)
{
	struct table tb;
	int i, rc, cl = 0;

	if (ro->n == 0) {
		fprintf(stderr, "box: no boxes yet — mint one: "
		    "box new work\n");
		return 0;
	}
	/* on a cluster: one column more, the member each box is on */
	for (i = 0; i < ro->n; i++)
		cl |= ro->v[i].bi.member[0] != '\0';
	table_init(&tb, 7 + cl);
	table_row(&tb, (const char *[]){ "NAME", "STATE", "TYPE", "ADDRESS",
	    "SNAPSHOTS", "TEMPLATE", "EGRESS", "LOCATION" });
	for (i = 0; i < ro->n; i++) {
		const struct row *r = &ro->v[i];
		char status[32], snaps[16], pol[48], eg[80];

		snprintf(status, sizeof(status), "%s",
		    r->bi.status[0] ? r->bi.status : "-");
		upper(status);
		snprintf(snaps, sizeof(snaps), "%d", r->snaps);
		/* a long allowlist is cut: box info shows it whole */
		snprintf(pol, sizeof(pol), "%s", r->egress ? r->egress : "open");
		if (r->egress != NULL && strlen(r->egress) >= sizeof(pol))
			memcpy(pol + sizeof(pol) - 4, "...", 4);
		/* the marker: box egress <box> --log says what and when */
		if (r->refused > 0)
			snprintf(eg, sizeof(eg), "%s (%ld refused)", pol,
			    r->refused);
		else
			snprintf(eg, sizeof(eg), "%s", pol);
		table_row(&tb, (const char *[]){ r->bi.name, status,
		    short_type(r->bi.type), r->addr, snaps,
		    r->bi.template_[0] ? r->bi.template_ : "-", eg,
		    r->bi.member });
	}
	rc = table_print(&tb, stdout);
	table_free(&tb);
	return rc < 0 ? err_set(e, rc, "out of memory") : 0;
}

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or newline. */
static void
csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n") == NULL)
		fputs(s, stdout);
	else {
		putchar('"');
		for (; *s != '\0'; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	}
	putchar(last ? '\n' : ',');
}

/* --format csv: the JSON's keys, in its order; -q: names only. */
static int
print_plain(const struct roster *ro, int out)
{
	int i;

	if (out == OUT_CSV)
		puts("name,state,type,address,snapshots,template,legacy,egress");
	for (i = 0; i < ro->n; i++) {
		const struct row *r = &ro->v[i];
		char snaps[16];

		if (out == OUT_NAMES) {
			puts(r->bi.name);
			continue;
		}
		snprintf(snaps, sizeof(snaps), "%d", r->snaps);
		csv_field(r->bi.name, 0);
		csv_field(r->bi.status, 0);
		csv_field(r->bi.type, 0);
		csv_field(strcmp(r->addr, "-") == 0 ? "" : r->addr, 0);
		csv_field(snaps, 0);
		csv_field(r->bi.template_, 0);
		csv_field(r->bi.legacy ? "true" : "false", 0);
		csv_field(r->egress != NULL ? r->egress : "open", 1);
	}
	return 0;
}

static void
mark_refused(struct roster *ro)
{
	int i;

	for (i = 0; i < ro->n; i++)
		ro->v[i].refused = refused_of(&ro->v[i]);
}

static int
list(int out, struct box_err *e)
{
	struct incus c;
	struct incus_instance_list l;
	struct roster ro = { NULL, 0 };
	char why[1024] = "";
	struct box_err de;
	int rc;

	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	/* remote: the DHCP records are files there, the daemon has the rest */
	if (out != OUT_FULL && !remote_active()) {
		rc = list_fast(&c, &ro, why, sizeof(why), e);
		if (rc < 0 && why[0] == '\0' && rc != -EREMOTE)
			goto done;
	}
	if (out == OUT_FULL || rc < 0 || remote_active()) {
		char shown[4 * sizeof(why)];

		text_shown(why, strlen(why), shown, sizeof(shown));
		if (out != OUT_FULL && rc != -EREMOTE && !remote_active())
			fprintf(stderr, "box: %s — asking the daemon for every "
			    "box's full state instead (slower)\n", shown);
		rc = list_full(&c, &l, e);
		if (rc < 0)
			goto done;
		if (out == OUT_FULL)
			print_raw(&l);
		else
			rc = roster_full(&l, &ro, e);
		incus_instance_list_free(&l);
		if (rc < 0 || out == OUT_FULL)
			goto done;
	}
	err_clear(&de);
	box_place_down(&c, down_row, &ro, &de);
	if (out == OUT_TABLE)
		mark_refused(&ro);
	qsort(ro.v, (size_t)ro.n, sizeof(*ro.v), row_cmp);
	rc = out == OUT_JSON ? print_json(&ro, e) : out == OUT_TABLE ?
	    print_table(&ro, e) : print_plain(&ro, out);
	/* box/life/idle.h: no daemon for it, this; after the list, which it
	 * never delays or changes (a box it stops is shown as it was) */
	if (rc == 0) {
		fflush(stdout);
		box_idle_sweep(&c);
	}
done:
	rows_free(&ro);
	incus_close(&c);
	return rc;
}

int
cmd_list(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	const char *json, *format;
	int rc, out = OUT_TABLE, quiet;
	const struct opt rows[] = {
		OPT_STRAY("<box>"),	/* refused, pointing at box info */
		OPT_OPTVAL("--json", "full", &json, "full", "an array of "
		    "{name, state (Incus's status: \"Running\"), type "
		    "(\"container\" / \"virtual-machine\"), address (dotted "
		    "IPv4 or null), snapshots (a count), template (or null), "
		    "legacy (tagged user.claudebox only), egress (\"open\": "
		    "reserved for the egress policy)}, by name; --json=full: "
		    "the daemon's full instance objects (with state and "
		    "snapshots), what --json printed before it had its own "
		    "schema"),
		{ OK_STR, OC_WORDS, 0, "--format", NULL, "table|json|csv",
		  &format, 0, 0, "table json csv", "table (the default), json "
		  "(as --json) or csv (a header, then the same fields as "
		  "--json, in its order)" },
		{ OK_FLAG, OC_NONE, 0, "--quiet", "-q", NULL, &quiet, 0, 0,
		  NULL, "the names only, one a line" },
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos > 0) {
		err_usage(e, "list takes no box");
		err_fix(e, "for one box: box info %s", res.pos[0]);
		return -EINVAL;
	}
	if (json != NULL) {
		if (json[0] == '\0')
			out = OUT_JSON;
		else if (strcmp(json, "full") == 0)
			out = OUT_FULL;
		else
			return err_usage(e, "--json takes no value or =full "
			    "(the daemon's own objects), not '%s'", json);
	}
	if (format != NULL) {
		if (json != NULL || quiet)
			return err_usage(e, "--format, --json or -q: one of "
			    "them");
		if (strcmp(format, "table") == 0)
			out = OUT_TABLE;
		else if (strcmp(format, "json") == 0)
			out = OUT_JSON;
		else if (strcmp(format, "csv") == 0)
			out = OUT_CSV;
		else
			return err_usage(e, "--format takes table, json or "
			    "csv, not '%s'", format);
	}
	if (quiet) {
		if (json != NULL)
			return err_usage(e, "--json or -q, not both");
		out = OUT_NAMES;
	}
	return list(out, e);
}

/* Kept for old scripts; says so once, on stderr. */
int
cmd_status(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = { OPT_END };
	struct opt_result res;
	int rc = opt_parse(argc, argv, rows, &res, e);

	if (rc < 0)
		return rc;
	fprintf(stderr, "box: 'status' is deprecated — use 'box list'.\n");
	return list(OUT_TABLE, e);
}
