/*
 * box prune [<pattern>...] [--older-than D] [--force] [--json] - remove the
 * stopped
 * boxes: each said, then asked about once (no terminal: --force, else
 * exit 2).  As root every stopped box; anyone else, the boxes they
 * minted (user.box.owner).  Runs the idle check first (box/life/idle.h), so a
 * box it stops is not yet among them: it is still stopping.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/box.h"
#include "box/life/discard.h"
#include "box/each.h"
#include "box/life/idle.h"
#include "box/import/import_mark.h"
#include "box/lease.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/remote/tier.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"
#include "util/text.h"

/* Seconds since the box last ran (Incus's last_used_at, else created). */
static long long
idle_for(const struct incus_instance *in, long long now)
{
	long long t = 0, c = 0;

	if (lease_iso_time(in->created_at, &c) < 0)
		c = 0;
	if (lease_iso_time(in->last_used_at, &t) < 0 || t < c)
		t = c;
	return t > 0 && t <= now ? now - t : 0;
}

int
cmd_prune(int argc, char **argv, struct box_err *e)
{
	struct incus_instance_list l;
	struct opt_result res;
	struct box_pick p = { NULL, 0, 1 };
	struct incus c;
	const char *older = NULL;
	char why[80];
	long min_s = 0;
	long long now = (long long)time(NULL), age;
	size_t i;
	int rc, force, json, shown = 0, k;
	const struct opt rows[] = {
		OPT_ARG("<pattern>", 0, OPT_ANY, OC_BOX, "only boxes whose "
		    "names match ('test-*'); default every stopped box"),
		OPT_STR("--older-than", "<duration>", &older, OC_NONE, "only "
		    "boxes that last ran longer ago than this (90s, 30m, 2h, "
		    "1d)"),
		OPT_FLAG("--force", "-f", &force, "remove them without asking "
		    "(needed without a terminal)"),
		OPT_FLAG("--json", NULL, &json, "[{name}] of the boxes removed, "
		    "on stdout"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (older != NULL && idle_duration(older, &min_s, why,
	    sizeof(why)) < 0)
		return err_usage(e, "--older-than: %s", why);
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	box_idle_sweep(&c);
	if (tier_get() == TIER_RESTRICTED)
		import_sweep(&c);	/* images killed imports left */
	if ((rc = incus_instance_list(&c, BOX_FILTER, 0, &l, e)) < 0)
		goto out;
	p.v = calloc(l.n + 1, sizeof(*p.v));
	if (p.v == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto free;
	}
	for (i = 0; i < l.n; i++) {
		struct box_info bi;

		box_info_of(&l.v[i], &bi);
		if (box_runs(&l.v[i]) || strcmp(l.v[i].status, "Stopped") != 0)
			continue;
		if (geteuid() != 0 && bi.owner != (long)getuid())
			continue;	/* not yours: as box down all */
		for (k = 0; k < res.npos && !box_glob(res.pos[k], bi.name); k++)
			;
		if (res.npos > 0 && k == res.npos)
			continue;
		age = idle_for(&l.v[i], now);
		if (age < min_s)
			continue;
		p.v[p.n++] = bi;
		life_say("stopped, last ran %lldh%02lldm ago: %s", age / 3600,
		    age % 3600 / 60, bi.name);
	}
	if (p.n == 0) {
		life_say("no stopped box%s to prune", older ? " that old" : "");
		if (json)
			puts("[]");
		goto free;
	}
	rc = box_remove_picked(&c, &p, "remove (with their snapshots)", force,
	    1, e);
	if (rc == 0 && json) {
		fputs("[", stdout);
		for (i = 0; i < (size_t)p.n; i++)
			printf("%s{\"name\":\"%s\"}", shown++ ? "," : "",
			    p.v[i].name);
		puts("]");
	}
free:
	free(p.v);
	incus_instance_list_free(&l);
out:
	incus_close(&c);
	return rc;
}
