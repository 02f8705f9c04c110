/*
 * box export <box> [<file>] [--instance-only] [--force]
 *
 * The options read and checked here, the pipeline run by box/import/export.c
 * (a backup made on the daemon, streamed to a file written whole or not
 * at all, its SHA-256 beside it), its result printed here.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box/import/export.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "cmd/cmd.h"
#include "util/opt.h"
#include "util/progress.h"
#include "util/text.h"

int
cmd_export(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_export_req q;
	struct box_export_out out;
	char file[PATH_MAX], stamp[32], size[32];
	int rc, instance_only, force;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<file>", 0, 1, OC_FILE, "default <box>-<UTC "
		    "time>.tar.gz; its SHA-256 goes to <file>.sha256"),
		OPT_FLAG("--instance-only", NULL, &instance_only, "leave the "
		    "snapshots out"),
		OPT_FLAG("--force", "-f", &force, "replace an existing file"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	text_utc_compact(stamp, sizeof(stamp), time(NULL));
	if (res.npos == 2)
		snprintf(file, sizeof(file), "%s", res.pos[1]);
	else
		snprintf(file, sizeof(file), "%s-%s.tar.gz", res.pos[0], stamp);
	if (file[0] == '\0' || file[strlen(file) - 1] == '/')
		return err_usage(e, "'%s' is not a file name", file);
	memset(&q, 0, sizeof(q));
	q.box = res.pos[0];
	q.file = file;
	q.stamp = stamp;
	q.instance_only = instance_only;
	q.force = force;
	if ((rc = box_export(&q, &out, e)) < 0)
		return rc;
	progress_bytes(size, sizeof(size), out.bytes);
	life_say("exported %s → %s (%s, sha256 %.16s…, recorded in %s.sha256)",
	    res.pos[0], file, size, out.sha256, file);
	if (!instance_only)
		life_say("snapshots included — box import brings them back "
		    "too");
	life_say("WARNING: this file is the box's whole disk — agent logins, "
	    "git credentials, SSH keys, shell history.  Nothing was "
	    "scrubbed.  Treat it like a credential.");
	printf("%s\n", file);
	return 0;
}
