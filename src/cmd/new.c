/*
 * box new - mint a box from a template, or clone one: the options read
 * and checked here, the pipeline run by box/mint_run.c (which narrates its
 * stages and removes a half-made box), its result printed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/each.h"
#include "box/egress.h"
#include "box/mint.h"
#include "box/mint_run.h"
#include "cmd/cmd.h"
#include "util/opt.h"

/* --egress: a policy as box/egress.h has it, or a usage error. */
static int
egress_usage(const char *v, struct box_err *e)
{
	struct egress *p = malloc(sizeof(*p));
	char why[200];
	int rc;

	if (p == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = egress_parse(v, p, why, sizeof(why));
	free(p);
	if (rc < 0)
		return err_usage(e, "--egress: %s", why);
	return 0;
}

int
cmd_new(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = {
		{ "--name", NULL, 1, NULL, 0 },
		{ "--template", NULL, 1, NULL, 0 },
		{ "--from", NULL, 1, NULL, 0 },
		{ "--cpu", NULL, 1, NULL, 0 },
		{ "--memory", NULL, 1, NULL, 0 },
		{ "--disk", NULL, 1, NULL, 0 },
		{ "--vm", NULL, 0, NULL, 0 },
		{ "--container", NULL, 0, NULL, 0 },
		{ "--image", NULL, 1, NULL, 0 },
		{ "--egress", NULL, 1, NULL, 0 },
		{ NULL, NULL, 0, NULL, 0 }
	};
	struct opt_result res;
	struct box_mint_req q;
	struct box_mint_out out;
	int rc;

	rc = opt_parse(argc, argv, opts, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos > 0 || res.dashdash)
		return err_usage(e, "new takes no positional arguments (name "
		    "the box with --name)");
	if (!opts[0].seen)
		return err_usage(e, "new needs --name <box>");
	if ((rc = box_new_name_ok(opts[0].value, "", e)) < 0)
		return rc;
	if (opts[6].seen && opts[7].seen)
		return err_usage(e, "--vm and --container contradict each "
		    "other");
	if (opts[2].seen) {
		if (opts[1].seen)
			return err_usage(e, "--from clones an existing box; "
			    "its template rides along (drop --template)");
		if (opts[3].seen || opts[4].seen || opts[5].seen)
			return err_usage(e, "--cpu/--memory/--disk shape a "
			    "fresh mint; a clone carries its source's "
			    "resources (change them later with: box incus "
			    "<box> -- config set {} limits.cpu=N)");
		if (opts[6].seen || opts[7].seen)
			return err_usage(e, "a clone is the same kind of "
			    "instance as its source (drop --vm/--container)");
		if (opts[8].seen)
			return err_usage(e, "a clone's disk comes from its "
			    "source, not an image (drop --image)");
	}
	if (opts[9].seen && (rc = egress_usage(opts[9].value, e)) < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	q.name = opts[0].value;
	q.from = opts[2].seen ? opts[2].value : NULL;
	q.template_ = opts[1].seen ? opts[1].value : NULL;
	q.cpu = opts[3].value;
	q.memory = opts[4].value;
	q.disk = opts[5].value;
	q.image = opts[8].value;
	q.egress = opts[9].seen ? opts[9].value : NULL;
	q.mode = opts[6].seen ? MINT_VM : opts[7].seen ? MINT_CT : MINT_AUTO;
	if ((rc = box_mint(&q, &out, e)) < 0)
		return rc;
	printf("%s\n", out.ready);
	if (out.note[0] != '\0')
		printf("%s\n", out.note);
	return 0;
}
