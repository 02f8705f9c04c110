/*
 * box info <box> - one box in full: the instance (config and devices, no
 * runtime state), its address from the host's DHCP records, its
 * snapshots.  --json prints box's model of it (model.h); --json=raw the
 * daemon's whole object (with its state and snapshots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/egress/egress.h"
#include "box/egress/egress_sync.h"
#include "box/where.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "box/remote/remote.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/text.h"

#define LABEL "%-11s"

struct view {
	const struct incus_instance *in;
	struct incus_snapshot_list snaps;
	char addr[64];
	char why[256];			/* why no address, or "" */
	char disk[160];			/* its root disk against its limit */
};

static const char *
cfg(const struct view *v, const char *key)
{
	return incus_kv_get(&v->in->config, key);
}

/* "2026-11-30T13:03:53.51Z" -> "2026-11-30 13:03:53 UTC" */
static void
human_time(const char *iso, char *buf, size_t cap)
{
	if (strlen(iso) >= 19 && iso[10] == 'T')
		snprintf(buf, cap, "%.10s %.8s UTC", iso, iso + 11);
	else
		snprintf(buf, cap, "%s", iso);
}

static void
print_exposures(const struct view *v)
{
	size_t k;

	for (k = 0; k < v->in->devices.n; k++) {
		const struct incus_device *dev = &v->in->devices.v[k];
		const char *port, *l, *c;

		if (strncmp(dev->name, "expose-", 7) != 0)
			continue;
		l = incus_kv_or(&dev->kv, "listen", "?");
		c = incus_kv_or(&dev->kv, "connect", "?");
		if (strncmp(l, "tcp:", 4) == 0)
			l += 4;
		port = strrchr(c, ':');
		printf(LABEL "%s → port %s\n", "EXPOSED", l, port ? port + 1 : c);
	}
}

static void
print_minted(const struct view *v)
{
	const char *c = cfg(v, "user.box.created");
	const char *ver = cfg(v, "user.box.version");

	if (c == NULL && ver == NULL)
		printf(LABEL "(not recorded — this box predates the mint "
		    "stamp)\n", "MINTED");
	else
		printf(LABEL "%s by box %s\n", "MINTED",
		    c ? c : "(time not recorded)", ver ? ver : "unknown");
}

static void
print_imported(const struct view *v)
{
	const char *f = cfg(v, "user.box.imported");
	const char *l = cfg(v, "user.box.imported.last");
	const char *b = cfg(v, "user.box.imported.by");
	const char *lb = cfg(v, "user.box.imported.last.by");
	const char *n = cfg(v, "user.box.imported.count");

	if (f == NULL && l == NULL)
		return;
	printf(LABEL "%s by box %s (the mint above predates it)\n", "IMPORTED",
	    l ? l : f, lb ? lb : b ? b : "unknown");
	if (f != NULL && l != NULL && strcmp(f, l) != 0)
		printf(LABEL "import %s — the first was %s by box %s\n", "",
		    n ? n : "?", f, b ? b : "unknown");
	/* what the file said of itself (box/import/import.c): a claim, no more */
	f = cfg(v, "user.box.claimed.origin");
	l = cfg(v, "user.box.claimed.created");
	b = cfg(v, "user.box.claimed.origin.from");
	if (f != NULL || l != NULL)
		printf(LABEL "the file claimed: %s%s%s, made %s\n", "", f ? f :
		    "origin unknown", b ? " of " : "", b ? b : "", l ? l :
		    "(no time)");
}

static void
print_lineage(const struct view *v, const struct box_info *bi)
{
	const char *s, *image;

	if (bi->template_[0] != '\0') {
		const char *r = cfg(v, "user.box.role");
		int has_user = bi->legacy || cfg(v, "user.box.user") != NULL;

		printf(LABEL "%s", "TEMPLATE", bi->template_);
		if (has_user && r != NULL)
			printf(" (user %s, role %s)", bi->user, r);
		else if (has_user)
			printf(" (user %s)", bi->user);
		else if (r != NULL)
			printf(" (role %s)", r);
		putchar('\n');
	}
	if ((image = cfg(v, "user.box.image")) != NULL) {
		printf(LABEL "%s", "IMAGE", image);
		if ((s = cfg(v, "user.box.image.fingerprint")) != NULL)
			printf(" @ %.12s…", s);
		putchar('\n');
	}
	if ((image = cfg(v, "user.box.mode.asked")) != NULL) {
		s = cfg(v, "user.box.mode");
		printf(LABEL "%s (asked: %s)\n", "MODE", s ? s : "?", image);
	}
	if ((image = cfg(v, "user.box.rig.repo")) != NULL) {
		s = cfg(v, "user.box.rig.ref");
		printf(LABEL "%s@%s\n", "RIG", image, s ? s : "?");
	}
	if ((image = cfg(v, "user.box.origin")) != NULL) {
		printf(LABEL "%s", "ORIGIN", image);
		if ((s = cfg(v, "user.box.origin.from")) != NULL)
			printf(" of %s", s);
		putchar('\n');
	}
	s = cfg(v, "user.box.schema");
	if (s != NULL && (strspn(s, "0123456789") != strlen(s) || *s == '\0' ||
	    strtol(s, NULL, 10) > 1))
		printf(LABEL "stamp schema %s is newer than this box reads — "
		    "showing what it understands\n", "NOTE", s);
}

static void
print_snapshots(const struct view *v, const char *box)
{
	char human[64], firstname[256] = "";
	size_t s;
	int width = 14;

	if (v->snaps.n == 0) {
		printf(LABEL "(none)\n\nTake one:   box snapshot %s <label>\n",
		    "SNAPSHOTS", box);
		return;
	}
	/* the label column as wide as the longest label (manual-<time> is
	 * 17 characters: a fixed column ran it into its time) */
	for (s = 0; s < v->snaps.n; s++) {
		const char *n = v->snaps.v[s].name;
		const char *slash = strrchr(n, '/');
		int len = (int)strlen(slash != NULL ? slash + 1 : n);

		if (len + 2 > width)
			width = len + 2 > 66 ? 66 : len + 2;
	}
	printf("SNAPSHOTS\n");
	for (s = 0; s < v->snaps.n; s++) {
		const struct incus_snapshot *sn = &v->snaps.v[s];
		const char *n = sn->name[0] ? sn->name : "?";
		const char *slash = strrchr(n, '/');

		if (slash != NULL)
			n = slash + 1;
		human_time(sn->created_at[0] ? sn->created_at : "?", human,
		    sizeof(human));
		printf("  %-*s%s\n", width, n, human);
		if (firstname[0] == '\0')
			snprintf(firstname, sizeof(firstname), "%s", n);
	}
	printf("\nClone one:  box new --name <new> --from %s/%s\n", box,
	    firstname);
}

/* The effective egress policy (box egress <box> shows what the kernel
 * holds of it). */
static void
print_egress(const struct view *v)
{
	char *text = malloc(EGRESS_TEXTMAX + 32);

	if (text == NULL)
		return;
	egress_effective_of(v->in, text, EGRESS_TEXTMAX + 32);
	printf(LABEL "%s\n", "EGRESS", text);
	free(text);
}

/* s when it is only name characters (a daemon's string), else "?". */
static const char *
plain(const char *s)
{
	return s != NULL && s[0] != '\0' && strlen(s) < 64 && strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	    "-_.") == strlen(s) ? s : "?";
}

/* The root disk's use against its size (one state read, only then). */
static void
disk_line(struct incus *c, const struct incus_instance *in, char *buf,
    size_t cap)
{
	const char *pool = plain(incus_dev_key(&in->expanded_devices, "root",
	    "pool"));
	const char *size = incus_dev_key(&in->expanded_devices, "root",
	    "size");
	struct incus_inst_state st;
	struct box_err le;

	if (size == NULL) {
		snprintf(buf, cap, "no limit (pool %s)", pool);
		return;
	}
	memset(&st, 0, sizeof(st));
	err_clear(&le);
	if (incus_instance_state(c, in->name, &st, &le) == 0 && st.has_disk)
		snprintf(buf, cap, "%.1f MiB used of %s (pool %s)",
		    (double)st.disk_used / 1048576, plain(size), pool);
	else
		snprintf(buf, cap, "limit %s (pool %s; use not reported)",
		    plain(size), pool);
	incus_state_free(&st);
}

/* A heap string as util/text.h shows it (left as it was: no memory). */
static void
shown(char **s)
{
	char *t;

	if (*s == NULL || text_plain(*s) || (t = text_shown_dup(*s)) == NULL)
		return;
	free(*s);
	*s = t;
}

static void
shown_kvs(struct incus_kvs *kv)
{
	size_t i;

	for (i = 0; i < kv->n; i++) {
		shown(&kv->v[i].key);
		shown(&kv->v[i].value);
	}
}

#define SHOWN_ARRAY(a) do {						\
	char t_[sizeof(a)];						\
	text_shown((a), strlen(a), t_, sizeof(t_));			\
	memcpy((a), t_, sizeof(t_));					\
} while (0)

/*
 * Everything print_info shows came from the daemon, and through it from
 * a box or a file: shown (util/text.h) before any of it is printed.
 */
static void
view_shown(struct incus_instance *in, struct incus_snapshot_list *sn,
    struct box_info *bi)
{
	size_t i;

	shown_kvs(&in->config);
	for (i = 0; i < in->devices.n; i++) {
		shown(&in->devices.v[i].name);
		shown_kvs(&in->devices.v[i].kv);
	}
	for (i = 0; i < sn->n; i++) {
		SHOWN_ARRAY(sn->v[i].name);
		SHOWN_ARRAY(sn->v[i].created_at);
	}
	SHOWN_ARRAY(bi->name);
	SHOWN_ARRAY(bi->user);
	SHOWN_ARRAY(bi->template_);
	SHOWN_ARRAY(bi->status);
	SHOWN_ARRAY(bi->type);
}

static void
print_info(const struct view *v, const struct box_info *bi)
{
	char status[32];
	size_t i;

	snprintf(status, sizeof(status), "%s", bi->status[0] ? bi->status : "-");
	for (i = 0; status[i] != '\0'; i++)
		if (status[i] >= 'a' && status[i] <= 'z')
			status[i] = (char)(status[i] - 'a' + 'A');
	printf(LABEL "%s\n" LABEL "%s\n" LABEL "%s\n" LABEL "%s\n",
	    "NAME", bi->name, "STATE", status, "TYPE",
	    strcmp(bi->type, "virtual-machine") == 0 ? "VM" :
	    strcmp(bi->type, "container") == 0 ? "CT" : bi->type,
	    "ADDRESS", v->addr);
	if (v->why[0] != '\0')
		printf(LABEL "no address shown: %s\n", "", v->why);
	printf(LABEL "%s\n", "DISK", v->disk);
	print_exposures(v);
	print_egress(v);
	putchar('\n');
	print_minted(v);
	print_imported(v);
	print_lineage(v, bi);
	putchar('\n');
	print_snapshots(v, bi->name);
}

/*
 * The cheap way: the instance without its runtime state, its address from
 * the host's DHCP records (box/where.h), its snapshots in one more call.
 * Where the records cannot answer, the instance with its state (said on
 * stderr).
 */
static int
show(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_instance in, full;
	struct box_where w;
	struct box_info bi;
	struct view v;
	int rc, got;

	memset(&v, 0, sizeof(v));
	memset(&full, 0, sizeof(full));
	rc = box_get(c, name, 0, &in, &bi, e);
	if (rc < 0)
		return rc;
	v.in = &in;
	where_init(&w);
	got = where_address(&w, &in, v.addr, sizeof(v.addr), v.why,
	    sizeof(v.why));
	where_free(&w);
	SHOWN_ARRAY(v.addr);
	SHOWN_ARRAY(v.why);
	if (got < 0) {
		struct box_subnets sn;

		if (!remote_active())
			fprintf(stderr, "box: %s — asking the daemon for its "
			    "full state instead\n", v.why);
		v.why[0] = '\0';
		rc = box_get(c, name, INCUS_INST_STATE, &full, NULL, e);
		if (rc < 0)
			goto out;
		box_subnets_read(&sn);
		box_address_of(&full, &sn, v.addr, sizeof(v.addr));
	} else if (got == 0 && !bi.running) {
		v.why[0] = '\0';	/* a stopped box has none: nothing to say */
	}
	rc = incus_snapshot_list(c, bi.name, &v.snaps, e);
	if (rc < 0) {
		err_context(e, "listing the snapshots of %s", bi.name);
		goto out;
	}
	disk_line(c, &in, v.disk, sizeof(v.disk));
	view_shown(&in, &v.snaps, &bi);
	print_info(&v, &bi);
out:
	incus_snapshot_list_free(&v.snaps);
	incus_instance_free(&full);
	incus_instance_free(&in);
	return rc;
}

/* A stamp as a key of the model: the value, or null when not stamped. */
static void
stamp(struct json_w *w, const struct incus_instance *in, const char *key,
    const char *cfgkey)
{
	const char *v = incus_kv_get(&in->config, cfgkey);

	json_w_key(w, key);
	if (v == NULL)
		json_w_null(w);
	else
		json_w_str(w, v);
}

/*
 * box's model of one box: its list entry (model.h), then what info adds:
 * the user, the provenance stamps, the doors and the snapshots.
 */
static int
show_json(struct incus *c, const char *name, struct box_err *e)
{
	struct incus_snapshot_list sl;
	struct incus_instance in;
	struct box_info bi;
	struct json_w w;
	size_t i;
	int rc;

	if ((rc = box_get(c, name, 0, &in, &bi, e)) < 0)
		return rc;
	memset(&sl, 0, sizeof(sl));
	json_w_init(&w, 4u << 20);
	if ((rc = model_open(c, &in, &w, e)) < 0 ||
	    (rc = incus_snapshot_list(c, bi.name, &sl, e)) < 0) {
		json_w_free(&w);
		goto out;
	}
	json_w_key(&w, "user");
	json_w_str(&w, bi.user);
	stamp(&w, &in, "image", "user.box.image");
	stamp(&w, &in, "fingerprint", "user.box.image.fingerprint");
	stamp(&w, &in, "mode", "user.box.mode");
	stamp(&w, &in, "created", "user.box.created");
	stamp(&w, &in, "version", "user.box.version");
	stamp(&w, &in, "origin", "user.box.origin");
	stamp(&w, &in, "origin_from", "user.box.origin.from");
	stamp(&w, &in, "imported", "user.box.imported");
	stamp(&w, &in, "owner", "user.box.owner");
	model_doors(&w, &in);
	json_w_key(&w, "snapshot_list");
	json_w_arr(&w);
	for (i = 0; i < sl.n; i++) {
		const char *n = strrchr(sl.v[i].name, '/');

		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, n != NULL ? n + 1 : sl.v[i].name);
		json_w_key(&w, "box");
		json_w_str(&w, bi.name);
		json_w_key(&w, "created");
		json_w_str(&w, sl.v[i].created_at);
		json_w_key(&w, "size");
		if (sl.v[i].size < 0)
			json_w_null(&w);
		else
			json_w_int(&w, sl.v[i].size);
		json_w_end(&w, '}');
	}
	json_w_end(&w, ']');
	json_w_end(&w, '}');
	rc = model_flush(&w, e);
out:
	incus_snapshot_list_free(&sl);
	incus_instance_free(&in);
	return rc;
}

int
cmd_info(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_instance in;
	struct incus c;
	const char *json;
	int rc;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_OPTVAL("--json", "raw", &json, "raw", "box's model of the "
		    "box: its box list --json entry plus user, image, "
		    "fingerprint, mode, created, version, origin, "
		    "origin_from, imported, owner (stamps, or null), doors "
		    "and snapshot_list; --json=raw: the daemon's instance "
		    "object with state and snapshots"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (json != NULL && json[0] != '\0' && strcmp(json, "raw") != 0)
		return err_usage(e, "--json takes no value or =raw, not '%s'",
		    json);
	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	if (json == NULL) {
		rc = show(&c, res.pos[0], e);
	} else if (json[0] == '\0') {
		rc = show_json(&c, res.pos[0], e);
	} else if ((rc = box_get(&c, res.pos[0], INCUS_INST_STATE |
	    INCUS_INST_RAW, &in, NULL, e)) == 0) {
		/* The daemon's own object, state and snapshots included. */
		fwrite(in.raw, 1, in.raw_len, stdout);
		putchar('\n');
		incus_instance_free(&in);
	}
	incus_close(&c);
	return rc;
}
