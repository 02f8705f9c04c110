/*
 * box import <file> [--name <box>] [--force]
 *
 * The options read here, the pipeline run by box/import/import.c (the file
 * checked against its SHA-256 and vetted against box's allowlist, uploaded,
 * re-homed on this host's terms, vetted again as the daemon holds it,
 * booted; a half-imported box removed), its result printed here.
 */
#include <stdio.h>
#include <string.h>

#include "box/import/import.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "util/opt.h"

int
cmd_import(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_import_req q;
	struct box_import_out out;
	int rc, force, json;
	const char *as_name;
	const struct opt rows[] = {
		OPT_ARG("<file>", 1, 1, OC_FILE, "an export of box export, "
		    "beside its <file>.sha256"),
		OPT_STR("--name", "<box>", &as_name, OC_NONE, "the box's name "
		    "(default: the name recorded inside)"),
		OPT_FLAG("--force", "-f", &force, "replace the box of that "
		    "name, after a yes on a terminal (no terminal: refused, "
		    "exit 2; BOX_YES is not read).  The new one is imported "
		    "and booted under a temporary name first; the old one is "
		    "deleted only then, so a failed import loses nothing"),
		OPT_FLAG("--json", NULL, &json, "the box as box list --json "
		    "shows it, on stdout"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	q.file = res.pos[0];
	q.name = as_name;
	q.force = force;
	if ((rc = box_import(&q, &out, e)) < 0)
		return rc;
	/* the name on stdout (b=$(box import f)); the sentence for people */
	fprintf(stderr, "ready — 'box shell %s'.\n", out.name);
	if (json)
		return model_print(out.name, e);
	printf("%s\n", out.name);
	return 0;
}
