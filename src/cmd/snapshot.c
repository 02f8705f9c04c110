/*
 * box snapshot <box> [<label>] - a stateless snapshot of the box's disk.
 * The label defaults to manual-<unix time>; it is printed on stdout.
 * POST /1.0/instances/<box>/snapshots.  A label already taken is refused
 * by name (the daemon's own answer is a database constraint error).
 * --list shows the box's snapshots (name, when, size where the pool
 * counts it); --delete <label> removes one, asking first.  A label that
 * is one of the sub-verbs other tools have (incus snapshot list) is
 * refused with the form box spells it in, so `box snapshot b list` never
 * makes a snapshot named "list".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/life/life.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "incus/json.h"
#include "util/opt.h"
#include "util/prompt.h"
#include "util/table.h"

static int
label_ok(const char *s)
{
	size_t n = strlen(s);

	/* Incus forbids '/' (the snapshot separator); box also keeps the
	 * label printable and short, since it ends up in URLs and tables. */
	if (n == 0 || n > 63)
		return 0;
	for (; *s != '\0'; s++)
		if (*s == '/' || (unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* The words other tools take as a snapshot sub-verb, and box's form. */
static const struct {
	const char *word, *form;
} subverbs[] = {
	{ "list", "box snapshot %s --list" },
	{ "ls", "box snapshot %s --list" },
	{ "show", "box snapshot %s --list" },
	{ "info", "box snapshot %s --list" },
	{ "delete", "box snapshot %s --delete <label>" },
	{ "rm", "box snapshot %s --delete <label>" },
	{ "remove", "box snapshot %s --delete <label>" },
	{ "restore", "box restore %s <label>" },
	{ "create", "box snapshot %s <label>" },
	{ "rename", "box snapshot %s <label> (a new one; Incus keeps the "
	  "old name)" },
	{ NULL, NULL }
};

static int
label_is_subverb(const char *box, const char *label, struct box_err *e)
{
	int i;

	for (i = 0; subverbs[i].word != NULL; i++)
		if (strcmp(subverbs[i].word, label) == 0) {
			err_usage(e, "'%s' reads as a command, not a snapshot "
			    "label: no snapshot was made", label);
			err_fix(e, subverbs[i].form, box);
			return -EINVAL;
		}
	return 0;
}

/* "2026-11-30T13:03:53.51Z" -> "2026-11-30 13:03:53 UTC" */
static void
human_time(const char *iso, char *buf, size_t cap)
{
	if (strlen(iso) >= 19 && iso[10] == 'T')
		snprintf(buf, cap, "%.10s %.8s UTC", iso, iso + 11);
	else
		snprintf(buf, cap, "%s", iso[0] ? iso : "-");
}

static void
human_size(long long n, char *buf, size_t cap)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int i = 0;

	if (n < 0) {
		snprintf(buf, cap, "-");
		return;
	}
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%lldB", n);
	else
		snprintf(buf, cap, "%.1f%s", v, u[i]);
}

static const char *
base(const char *n)
{
	const char *slash = strrchr(n, '/');

	return slash != NULL ? slash + 1 : n;
}

/* A snapshot in box's model: {name, box, created, size}. */
static void
snap_json(struct json_w *w, const char *box, const struct incus_snapshot *s)
{
	json_w_obj(w);
	json_w_key(w, "name");
	json_w_str(w, base(s->name));
	json_w_key(w, "box");
	json_w_str(w, box);
	json_w_key(w, "created");
	json_w_str(w, s->created_at);
	json_w_key(w, "size");
	if (s->size < 0)
		json_w_null(w);
	else
		json_w_int(w, s->size);
	json_w_end(w, '}');
}

static int
print_list(const char *box, const struct incus_snapshot_list *l, int json,
    struct box_err *e)
{
	struct table tb;
	size_t i;
	int rc;

	if (json) {
		struct json_w w;

		json_w_init(&w, 4u << 20);
		json_w_arr(&w);
		for (i = 0; i < l->n; i++)
			snap_json(&w, box, &l->v[i]);
		json_w_end(&w, ']');
		return model_flush(&w, e);
	}
	if (l->n == 0) {
		fprintf(stderr, "box: %s has no snapshots — take one: box "
		    "snapshot %s <label>\n", box, box);
		return 0;
	}
	table_init(&tb, 3);
	table_row(&tb, (const char *[]){ "SNAPSHOT", "CREATED", "SIZE" });
	for (i = 0; i < l->n; i++) {
		char when[80], size[32];

		human_time(l->v[i].created_at, when, sizeof(when));
		human_size(l->v[i].size, size, sizeof(size));
		table_row(&tb, (const char *[]){ base(l->v[i].name), when,
		    size });
	}
	rc = table_print(&tb, stdout);
	table_free(&tb);
	return rc < 0 ? err_set(e, rc, "out of memory") : 0;
}

static int
snap_delete(struct incus *c, const char *box, const char *label, int force,
    struct box_err *e)
{
	struct incus_snapshot snap;
	char q[200];
	int rc;

	rc = incus_snapshot_get(c, box, label, &snap, e);
	if (rc == -ENOENT) {
		err_clear(e);
		err_set(e, -ENOENT, "%s has no snapshot '%s'", box, label);
		err_fix(e, "box snapshot %s --list", box);
		return -ENOENT;
	}
	if (rc < 0)
		return rc;
	snprintf(q, sizeof(q), "delete snapshot %s of %s", label, box);
	if ((rc = consent_or_force(q, force, "--force", e)) < 0)
		return rc;
	if ((rc = incus_snapshot_delete(c, box, label, 120, e)) < 0)
		return rc;
	fprintf(stderr, "box: deleted snapshot %s of %s\n", label, box);
	return 0;
}

int
cmd_snapshot(int argc, char **argv, struct box_err *e)
{
	const char *del;
	int list, json, force;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<label>", 0, 1, OC_NONE, "the new snapshot's label "
		    "(default manual-<unix time>)"),
		OPT_FLAG("--list", "-l", &list, "list the box's snapshots: "
		    "label, when, size (where the pool counts it)"),
		OPT_STR("--delete", "<label>", &del, OC_NONE, "delete one "
		    "snapshot (asks on a terminal; --force without one)"),
		OPT_FLAG("--force", "-f", &force, "--delete without asking"),
		OPT_FLAG("--json", NULL, &json, "--list as an array of {name, "
		    "box, created, size (bytes or null)}; a new snapshot as "
		    "one such object"),
		OPT_END
	};
	struct opt_result res;
	struct incus_snapshot snap;
	struct incus_snapshot_list l;
	struct incus c;
	char label[64];
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((list || del != NULL) && res.npos == 2)
		return err_usage(e, "--list and --delete take no new label "
		    "('%s')", res.pos[1]);
	if (list && del != NULL)
		return err_usage(e, "--list or --delete, not both");
	if (force && del == NULL)
		return err_usage(e, "--force goes with --delete");
	if (res.npos == 2 && (rc = label_is_subverb(res.pos[0], res.pos[1],
	    e)) < 0)
		return rc;
	if (res.npos == 2)
		snprintf(label, sizeof(label), "%s", res.pos[1]);
	else
		snprintf(label, sizeof(label), "manual-%lld",
		    (long long)time(NULL));
	if (res.npos == 2 && !label_ok(res.pos[1]))
		return err_usage(e, "'%s' is not a snapshot label (1 to 63 "
		    "printable characters, no '/' or spaces)", res.pos[1]);
	if (del != NULL && !label_ok(del))
		return err_usage(e, "'%s' is not a snapshot label", del);
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = box_resolve(&c, res.pos[0], NULL, e);
	if (rc == 0 && list) {
		if ((rc = incus_snapshot_list(&c, res.pos[0], &l, e)) == 0)
			rc = print_list(res.pos[0], &l, json, e);
		incus_snapshot_list_free(&l);
		goto out;
	}
	if (rc == 0 && del != NULL) {
		rc = snap_delete(&c, res.pos[0], del, force, e);
		goto out;
	}
	if (rc == 0) {
		rc = incus_snapshot_get(&c, res.pos[0], label, &snap, e);
		if (rc == 0) {
			rc = err_set(e, -EEXIST, "%s already has a snapshot "
			    "'%s'", res.pos[0], label);
			err_fix(e, "pick another label (box snapshot %s "
			    "--list lists them)", res.pos[0]);
		} else if (rc == -ENOENT) {
			err_clear(e);
			rc = life_snapshot(&c, res.pos[0], label, e);
		}
	}
	if (rc == 0 && json) {
		struct json_w w;

		if (incus_snapshot_get(&c, res.pos[0], label, &snap, e) < 0) {
			err_clear(e);	/* taken; its details unread */
			memset(&snap, 0, sizeof(snap));
			snprintf(snap.name, sizeof(snap.name), "%s", label);
			snap.size = -1;
		}
		json_w_init(&w, 1u << 16);
		snap_json(&w, res.pos[0], &snap);
		rc = model_flush(&w, e);
	} else if (rc == 0)
		printf("%s\n", label);
out:
	incus_close(&c);
	return rc;
}
