/*
 * box cp <src> <dst> - files between this host and a box (box/import/cp.h): one
 * side is <box>:<path>, the other a local path or "-".
 */
#include <stdio.h>

#include "box/import/cp.h"
#include "cmd/cmd.h"
#include "util/opt.h"

int
cmd_cp(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_cp_req q;
	struct box_cp_out o;
	int rc, json;
	const struct opt rows[] = {
		OPT_ARG("<src>", 1, 1, OC_FILE, "<box>:<path>, a local path, "
		    "or - (a tar on stdin)"),
		OPT_ARG("<dst>", 1, 1, OC_FILE, "the same; - is stdout (the "
		    "box's tar)"),
		OPT_FLAG("--json", NULL, &json, "{name, direction, files, "
		    "bytes} on stdout"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	q.src = res.pos[0];
	q.dst = res.pos[1];
	if ((rc = box_cp(&q, &o, e)) < 0)
		return rc;
	if (json)
		printf("{\"name\":\"%s\",\"direction\":\"%s\",\"files\":%lld,"
		    "\"bytes\":%lld}\n", o.box, o.into ? "in" : "out",
		    o.files, o.bytes);
	else
		fprintf(stderr, "box: copied %lld entr%s, %lld bytes %s %s\n",
		    o.files, o.files == 1 ? "y" : "ies", o.bytes, o.into ?
		    "into" : "out of", o.box);
	return 0;
}
