/*
 * box versions - the installed versions, which one is the default
 * (`current`) and which one is running, with where each came from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "host/install/install.h"
#include "util/opt.h"
#include "util/table.h"

static int
show(const struct inst *in, struct box_err *e)
{
	char v[INST_MAX_VERSIONS][INST_VMAX], cur[PATH_MAX], src[256];
	char when[64], mark[32];
	struct table tb;
	int n, i, rc, cs;

	n = inst_versions(in, v, INST_MAX_VERSIONS, e);
	if (n < 0)
		return n;
	cs = inst_current(in, cur, sizeof(cur));
	printf("VERSIONS  (%s)\n", in->root);
	table_init(&tb, 4);
	table_row(&tb, (const char *[]){ "  VERSION", "", "FROM",
	    "INSTALLED" });
	for (i = 0; i < n; i++) {
		char name[INST_VMAX + 2];

		snprintf(name, sizeof(name), "  %.63s", v[i]);
		snprintf(mark, sizeof(mark), "%s%s%s",
		    cs == 0 && strcmp(cur, v[i]) == 0 ? "current" : "",
		    cs == 0 && strcmp(cur, v[i]) == 0 &&
		    strcmp(in->self_version, v[i]) == 0 ? ", " : "",
		    strcmp(in->self_version, v[i]) == 0 ? "running" : "");
		table_row(&tb, (const char *[]){ name, mark[0] ? mark : "-",
		    inst_manifest(in, v[i], "source", src, sizeof(src), "-"),
		    inst_manifest(in, v[i], "installed_at", when, sizeof(when),
		    "-") });
	}
	rc = table_print(&tb, stdout);
	table_free(&tb);
	if (rc < 0)
		return err_set(e, rc, "out of memory");
	if (n == 0)
		puts("  (none)");
	if (cs == -ENOENT)
		puts("\nno default: current is missing — pick one: box use <version>");
	else if (cs < 0)
		printf("\nthe default is broken: current points at %s — "
		    "repair it: box use <version>\n", cur);
	if (in->self_version[0] == '\0')
		printf("\nrunning: %s (%s), outside this install\n", in->self,
		    BOX_VERSION);
	puts("\nswitch the default: box use <version>  (refused while boxes "
	    "exist)\nadd a version: re-run install.sh");
	return 0;
}

int
cmd_versions(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = { OPT_END };
	struct opt_result res;
	struct inst in;
	int rc;

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	rc = inst_locate(&in, 1, e);
	if (rc < 0)
		return rc;
	return show(&in, e);
}
