/*
 * box verify <box> [--json] - the isolation contract probed live from
 * inside one box (see box/verify/verify.h).  Exit 0 when every probe held, 1 on
 * any breach, failure or unjudged probe.
 *
 * `verify --inside` is the hidden in-box half: the host that pushed this
 * binary in runs it with BOX_VERIFY_INSIDE=1 and the plan in
 * BOX_VERIFY_PLAN.
 */
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/bridge.h"
#include "box/verify/verify.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

int
cmd_verify(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	const char *in = getenv("BOX_VERIFY_INSIDE");
	struct incus c;
	struct box_err quiet;
	uint32_t net = 0;
	int rc, json, inside;
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_FLAG("--json", NULL, &json, "the verdicts as one JSON "
		    "object"),
		OPT_SECRET("--inside", &inside),	/* the in-box half */
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (inside) {
		if (in == NULL || strcmp(in, "1") != 0 || res.npos > 0)
			return err_usage(e, "verify --inside is the in-box half "
			    "of box verify: run `box verify <box>` on the host");
		return verify_inside_main(e);
	}
	if ((rc = box_name_check(res.pos[0], "", e)) < 0)
		return rc;
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	err_clear(&quiet);
	if (bridge_net(&c, &net, &quiet) <= 0)
		net = 0;
	rc = verify_box(&c, res.pos[0], bridge_name_server(&c, net), json, e);
	incus_close(&c);
	return rc;
}
