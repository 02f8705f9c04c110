/*
 * box use <version> - make an installed version the default.
 *
 * Refused while any box exists: a box minted by one version must not be
 * driven by another behind its owner's back.  The flip is one rename(2)
 * of a fresh symlink over `current`, then checked: `current` must name the
 * version and its binary must say it is that version.
 *
 * Decision: asking for the version that is already the default is a
 * no-op that succeeds even while boxes exist (nothing would change under
 * them); the original refused it too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "host/install/install.h"
#include "host/install/presence.h"
#include "util/opt.h"

/* Point the PATH links that lead into this install at <root>/current/box. */
static int
relink_path(const struct inst *in, struct box_err *e)
{
	char links[4][PATH_MAX], want[PATH_MAX + 16], have[PATH_MAX];
	int n, i, rc;
	ssize_t k;

	snprintf(want, sizeof(want), "%s/current/box", in->root);
	n = inst_links(in, NULL, links, 4);
	for (i = 0; i < n; i++) {
		k = readlink(links[i], have, sizeof(have) - 1);
		if (k > 0) {
			have[k] = '\0';
			if (strcmp(have, want) == 0)
				continue;
		}
		rc = inst_relink(links[i], want);
		if (rc < 0)
			return err_set(e, rc, "pointing %s at %s: %s", links[i],
			    want, err_str(rc));
		fprintf(stderr, "box: %s -> %s\n", links[i], want);
	}
	return 0;
}

static int
verify(const struct inst *in, const char *v, struct box_err *e)
{
	char cur[PATH_MAX], bin[PATH_MAX + 16];

	if (inst_current(in, cur, sizeof(cur)) != 0 || strcmp(cur, v) != 0)
		return err_set(e, -EIO, "after the switch %s/current names "
		    "'%s', not %s", in->root, cur, v);
	snprintf(bin, sizeof(bin), "%s/current/box", in->root);
	return inst_check_binary(bin, v, e);
}

static int
use(const char *v, struct box_err *e)
{
	struct presence p;
	struct inst in;
	char cur[PATH_MAX];
	int rc;

	if (!inst_version_ok(v))
		return err_set(e, -EINVAL, "'%s' is not a version name", v);
	rc = inst_locate(&in, 0, e);
	if (rc < 0)
		return rc;
	if (!inst_has(&in, v)) {
		err_set(e, -ENOENT, "no such version: %s (in %s)", v, in.root);
		err_fix(e, "see: box versions");
		return -ENOENT;
	}
	if (inst_current(&in, cur, sizeof(cur)) == 0 && strcmp(cur, v) == 0) {
		fprintf(stderr,
		    "box: %s is already the default — nothing to do\n", v);
		return 0;
	}
	presence_probe(&p, 0);
	rc = presence_refuse_boxes(&p, "switch the default version", e);
	if (rc < 0)
		return rc;
	rc = inst_flip(&in, v, e);
	if (rc == 0)
		rc = relink_path(&in, e);
	if (rc == 0)
		rc = verify(&in, v, e);
	if (rc < 0)
		return rc;
	fprintf(stderr, "box: switched to %s (current -> versions/%s)\n", v, v);
	return 0;
}

int
cmd_use(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<version>", 1, 1, OC_NONE, "as box versions lists it"),
		OPT_END
	};
	struct opt_result res;
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	return use(res.pos[0], e);
}
