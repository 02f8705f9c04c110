/*
 * box info <box> - one box in full: GET /1.0/instances/<box> (config and
 * devices, no runtime state), its address from the host's DHCP records,
 * GET .../snapshots?recursion=1.  --json prints the daemon's whole object
 * (GET /1.0/instances/<box>?recursion=1: state and snapshots included).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/where.h"
#include "box/egress.h"
#include "cmd/cmd.h"
#include "host/egress_host.h"
#include "incus/api.h"
#include "util/opt.h"

#define LABEL "%-11s"

struct view {
	const struct json_doc *d;
	int inst;
	const struct json_doc *sd;	/* the snapshot list's reply */
	int snaps;
	char addr[64];
	char why[256];			/* why no address, or "" */
};

static const char *
cfg(const struct view *v, const char *key, char *buf, size_t cap)
{
	return box_config(v->d, v->inst, key, buf, cap, NULL);
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
	const struct json_doc *d = v->d;
	int devs = json_get(d, v->inst, "devices"), k;
	char listen[128], connect[128];

	for (k = json_child(d, devs); k >= 0; k = json_next(d, json_next(d, k))) {
		int dev = json_next(d, k);
		const char *port, *l, *c;
		char name[64];

		if (json_str(d, k, name, sizeof(name)) < 0 ||
		    strncmp(name, "expose-", 7) != 0)
			continue;
		l = json_gets(d, dev, "listen", listen, sizeof(listen), "?");
		c = json_gets(d, dev, "connect", connect, sizeof(connect), "?");
		if (strncmp(l, "tcp:", 4) == 0)
			l += 4;
		port = strrchr(c, ':');
		printf(LABEL "%s → port %s\n", "EXPOSED", l, port ? port + 1 : c);
	}
}

static void
print_minted(const struct view *v)
{
	char created[64], version[64];
	const char *c = cfg(v, "user.box.created", created, sizeof(created));
	const char *ver = cfg(v, "user.box.version", version, sizeof(version));

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
	char first[64], by[64], last[64], lastby[64], count[32];
	const char *f = cfg(v, "user.box.imported", first, sizeof(first));
	const char *l = cfg(v, "user.box.imported.last", last, sizeof(last));
	const char *b = cfg(v, "user.box.imported.by", by, sizeof(by));
	const char *lb = cfg(v, "user.box.imported.last.by", lastby,
	    sizeof(lastby));
	const char *n = cfg(v, "user.box.imported.count", count, sizeof(count));

	if (f == NULL && l == NULL)
		return;
	printf(LABEL "%s by box %s (the mint above predates it)\n", "IMPORTED",
	    l ? l : f, lb ? lb : b ? b : "unknown");
	if (f != NULL && l != NULL && strcmp(f, l) != 0)
		printf(LABEL "import %s — the first was %s by box %s\n", "",
		    n ? n : "?", f, b ? b : "unknown");
}

static void
print_lineage(const struct view *v, const struct box_info *bi)
{
	char image[256], fp[128], mode[32], asked[32], repo[128], ref[128];
	char origin[64], from[128], role[64], schema[32];
	const char *s;

	if (bi->template_[0] != '\0') {
		const char *r = cfg(v, "user.box.role", role, sizeof(role));
		int has_user = bi->legacy || cfg(v, "user.box.user", image,
		    sizeof(image)) != NULL;

		printf(LABEL "%s", "TEMPLATE", bi->template_);
		if (has_user && r != NULL)
			printf(" (user %s, role %s)", bi->user, r);
		else if (has_user)
			printf(" (user %s)", bi->user);
		else if (r != NULL)
			printf(" (role %s)", r);
		putchar('\n');
	}
	if (cfg(v, "user.box.image", image, sizeof(image)) != NULL) {
		printf(LABEL "%s", "IMAGE", image);
		if (cfg(v, "user.box.image.fingerprint", fp, sizeof(fp)))
			printf(" @ %.12s…", fp);
		putchar('\n');
	}
	if (cfg(v, "user.box.mode.asked", asked, sizeof(asked)) != NULL) {
		s = cfg(v, "user.box.mode", mode, sizeof(mode));
		printf(LABEL "%s (asked: %s)\n", "MODE", s ? s : "?", asked);
	}
	if (cfg(v, "user.box.rig.repo", repo, sizeof(repo)) != NULL) {
		s = cfg(v, "user.box.rig.ref", ref, sizeof(ref));
		printf(LABEL "%s@%s\n", "RIG", repo, s ? s : "?");
	}
	if (cfg(v, "user.box.origin", origin, sizeof(origin)) != NULL) {
		printf(LABEL "%s", "ORIGIN", origin);
		if (cfg(v, "user.box.origin.from", from, sizeof(from)))
			printf(" of %s", from);
		putchar('\n');
	}
	s = cfg(v, "user.box.schema", schema, sizeof(schema));
	if (s != NULL && (strspn(s, "0123456789") != strlen(s) || *s == '\0' ||
	    strtol(s, NULL, 10) > 1))
		printf(LABEL "stamp schema %s is newer than this box reads — "
		    "showing what it understands\n", "NOTE", s);
}

static void
print_snapshots(const struct view *v, const char *box)
{
	const struct json_doc *d = v->sd;
	int snaps = v->snaps, s;
	char name[128], when[64], human[64], firstname[128] = "";

	if (json_count(d, snaps) == 0) {
		printf(LABEL "(none)\n\nTake one:   box snapshot %s <label>\n",
		    "SNAPSHOTS", box);
		return;
	}
	printf("SNAPSHOTS\n");
	for (s = json_child(d, snaps); s >= 0; s = json_next(d, s)) {
		const char *n = json_gets(d, s, "name", name, sizeof(name), "?");
		const char *slash = strrchr(n, '/');

		if (slash != NULL)
			n = slash + 1;
		human_time(json_gets(d, s, "created_at", when, sizeof(when),
		    "?"), human, sizeof(human));
		printf("  %-14s%s\n", n, human);
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
	egress_effective(v->d, v->inst, text, EGRESS_TEXTMAX + 32);
	printf(LABEL "%s\n", "EGRESS", text);
	free(text);
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
	struct incus_reply r, sr, fr;
	struct box_where w;
	struct box_info bi;
	struct view v;
	char path[160];
	int rc, got;

	memset(&v, 0, sizeof(v));
	rc = box_fetch(c, name, 0, &r, &bi, e);
	if (rc < 0)
		return rc;
	v.d = &r.doc;
	v.inst = r.metadata;
	where_init(&w);
	got = where_address(&w, &r.doc, r.metadata, v.addr, sizeof(v.addr),
	    v.why, sizeof(v.why));
	where_free(&w);
	fr.body = NULL;
	if (got < 0) {
		struct box_subnets sn;

		fprintf(stderr, "box: %s — asking the daemon for its full "
		    "state instead\n", v.why);
		v.why[0] = '\0';
		rc = box_fetch(c, name, 1, &fr, NULL, e);
		if (rc < 0)
			goto out;
		box_subnets_read(&sn);
		box_address(&fr.doc, fr.metadata, &sn, v.addr, sizeof(v.addr));
	} else if (got == 0 && !bi.running) {
		v.why[0] = '\0';	/* a stopped box has none: nothing to say */
	}
	snprintf(path, sizeof(path), "/1.0/instances/%s/snapshots?recursion=1",
	    bi.name);
	rc = incus_call(c, "GET", path, NULL, &sr, e);
	if (rc < 0) {
		err_context(e, "listing the snapshots of %s", bi.name);
		goto out;
	}
	v.sd = &sr.doc;
	v.snaps = sr.metadata;
	print_info(&v, &bi);
	incus_reply_free(&sr);
out:
	if (fr.body != NULL)
		incus_reply_free(&fr);
	incus_reply_free(&r);
	return rc;
}

int
cmd_info(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct incus_reply r;
	struct incus c;
	int rc, json;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_FLAG("--json", NULL, &json, "the daemon's instance object "
		    "with state and snapshots"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	rc = incus_init(&c, e);
	if (rc < 0)
		return rc;
	if (!json) {
		rc = show(&c, res.pos[0], e);
	} else if ((rc = box_fetch(&c, res.pos[0], 1, &r, NULL, e)) == 0) {
		/* The daemon's own object, state and snapshots included. */
		size_t n;
		const char *raw = json_raw(&r.doc, r.metadata, &n);

		fwrite(raw, 1, n, stdout);
		putchar('\n');
		incus_reply_free(&r);
	}
	incus_close(&c);
	return rc;
}
