/*
 * box snapshot <box> [<label>] - a stateless snapshot of the box's disk.
 * The label defaults to manual-<unix time>; it is printed on stdout.
 * POST /1.0/instances/<box>/snapshots.  A label already taken is refused
 * by name (the daemon's own answer is a database constraint error).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box/box.h"
#include "box/life.h"
#include "cmd/cmd.h"
#include "incus/api.h"
#include "incus/instance.h"
#include "util/opt.h"

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

int
cmd_snapshot(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<label>", 0, 1, OC_NONE, NULL),
		OPT_END
	};
	struct opt_result res;
	struct incus_snapshot snap;
	struct incus c;
	char label[64];
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos == 2)
		snprintf(label, sizeof(label), "%s", res.pos[1]);
	else
		snprintf(label, sizeof(label), "manual-%lld",
		    (long long)time(NULL));
	if (res.npos == 2 && !label_ok(res.pos[1]))
		return err_usage(e, "'%s' is not a snapshot label (1 to 63 "
		    "printable characters, no '/' or spaces)", res.pos[1]);
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = box_resolve(&c, res.pos[0], NULL, e);
	if (rc == 0) {
		rc = incus_snapshot_get(&c, res.pos[0], label, &snap, e);
		if (rc == 0) {
			rc = err_set(e, -EEXIST, "%s already has a snapshot "
			    "'%s'", res.pos[0], label);
			err_fix(e, "pick another label (box info %s lists "
			    "them)", res.pos[0]);
		} else if (rc == -ENOENT) {
			err_clear(e);
			rc = life_snapshot(&c, res.pos[0], label, e);
		}
	}
	if (rc == 0)
		printf("%s\n", label);
	incus_close(&c);
	return rc;
}
