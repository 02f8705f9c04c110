/*
 * box verify <box> [--json] - the isolation contract probed live from
 * inside one box (see box/verify.h).  Exit 0 when every probe held, 1 on
 * any breach, failure or unjudged probe.
 *
 * `verify --inside` is the hidden in-box half: the host that pushed this
 * binary in runs it with BOX_VERIFY_INSIDE=1 and the plan in
 * BOX_VERIFY_PLAN.
 */
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/verify.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "util/opt.h"

int
cmd_verify(int argc, char **argv, struct box_err *e)
{
	struct opt opts[] = {
		{ "--json", NULL, 0, NULL, 0 },
		{ "--inside", NULL, 0, NULL, 0 },
		{ NULL, NULL, 0, NULL, 0 }
	};
	struct opt_result res;
	const char *in = getenv("BOX_VERIFY_INSIDE");
	struct incus c;
	int rc;

	if ((rc = opt_parse(argc, argv, opts, &res, e)) < 0)
		return rc;
	if (opts[1].seen) {
		if (in == NULL || strcmp(in, "1") != 0 || res.npos > 0)
			return err_usage(e, "verify --inside is the in-box half "
			    "of box verify: run `box verify <box>` on the host");
		return verify_inside_main(e);
	}
	if (res.npos != 1 || res.dashdash)
		return err_usage(e, "usage: box verify <box> [--json]");
	if (!box_name_ok(res.pos[0]))
		return err_usage(e, "not a box name: %s", res.pos[0]);
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = verify_box(&c, res.pos[0], opts[0].seen, e);
	incus_close(&c);
	return rc;
}
