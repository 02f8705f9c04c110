/*
 * verbs.c - the verb table and the help it renders.  Adding a verb means
 * one row here and one file in src/cmd/.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/opt.h"

const struct verb box_verbs[] = {
	{ "templates", cmd_templates, "",
	  "list the templates a box can be minted from",
	  "Lists the templates compiled into this binary (or, when BOX_TEMPLATES\n"
	  "names a directory, the templates in it) with their descriptions.\n", 0 },
	{ "list", cmd_list, "[--json]",
	  "list boxes: name, state, type, address, snapshots, template",
	  "Lists the instances box minted (tagged user.box=1, or the legacy\n"
	  "user.claudebox=1) and nothing else, from one request to the daemon.\n"
	  "ADDRESS is the box's IPv4 on its box bridge, chosen by the bridge's\n"
	  "subnet (a box may hold many addresses).\n\n"
	  "  --json   the daemon's full instance objects (with state), as an array\n", 0 },
	{ "info", cmd_info, "<box> [--json]",
	  "everything about one box: state, address, provenance, snapshots",
	  "Shows a box's state, type and address, the exposures it has open,\n"
	  "where it came from (the provenance stamps written when it was minted,\n"
	  "cloned or imported) and its snapshots.  Instances box did not mint\n"
	  "are refused.\n\n"
	  "  --json   the daemon's instance object with state and snapshots\n", 0 },
	{ "help", cmd_help, "[<command>]",
	  "this help, or one command's",
	  NULL, 0 },
	{ "version", cmd_version, "",
	  "print the version",
	  NULL, 0 },
	{ "status", cmd_status, "",
	  "deprecated: use 'box list'",
	  NULL, V_HIDDEN },
	{ NULL, NULL, NULL, NULL, NULL, 0 }
};

const struct verb *
verb_find(const char *name)
{
	const struct verb *v;

	for (v = box_verbs; v->name != NULL; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

const struct verb *
verb_suggest(const char *name)
{
	const struct verb *v, *best = NULL;
	int bestd = 3, d;

	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		d = str_distance(name, v->name, 2);
		if (d < bestd) {
			bestd = d;
			best = v;
		}
	}
	return best;
}

const char *
box_version_string(void)
{
	static char buf[4200];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		snprintf(self, sizeof(self), "unknown path");
	else
		self[n] = '\0';
	snprintf(buf, sizeof(buf), "box %s (%s)", BOX_VERSION, self);
	return buf;
}

void
verb_usage(const struct verb *v)
{
	printf("usage: box %s%s%s\n\n", v->name, v->synopsis[0] ? " " : "",
	    v->synopsis);
	fputs(v->page != NULL ? v->page : v->summary, stdout);
	if (v->page == NULL)
		putchar('\n');
}

void
box_usage(void)
{
	const struct verb *v;

	printf("box %s — network-isolated, throwaway Incus boxes for coding "
	    "agents\n\n", BOX_VERSION);
	puts("USAGE\n  box <command> [<args>] [options]\n\nCOMMANDS");
	for (v = box_verbs; v->name != NULL; v++)
		if (!(v->flags & V_HIDDEN))
			printf("  %-14s %s\n", v->name, v->summary);
	puts("\nOPTIONS (after the command)\n"
	    "  -h, --help     help for that command\n"
	    "  -V, --version  print the version\n"
	    "  --json         machine-readable output, where offered\n\n"
	    "ENVIRONMENT\n"
	    "  INCUS_SOCKET, INCUS_DIR  where the Incus daemon listens\n"
	    "  BOX_IO_TIMEOUT           seconds to wait on the daemon (30)\n"
	    "  BOX_TEMPLATES            a directory of templates to use instead\n\n"
	    "EXIT STATUS\n"
	    "  0 ok, 1 it went wrong, 2 you asked wrong\n\n"
	    "THE MODEL\n"
	    "  A box reaches the public internet and nothing else: not the host,\n"
	    "  not the LAN, not another box.  box only ever touches instances it\n"
	    "  minted (tagged user.box=1).");
}

int
cmd_help(int argc, char **argv, struct box_err *e)
{
	const struct verb *v;

	if (argc < 2) {
		box_usage();
		return 0;
	}
	if (argc > 2)
		return err_usage(e, "help takes one command");
	v = verb_find(argv[1]);
	if (v == NULL) {
		v = verb_suggest(argv[1]);
		if (v != NULL)
			return err_usage(e, "unknown command: %s — did you "
			    "mean '%s'?", argv[1], v->name);
		return err_usage(e, "unknown command: %s", argv[1]);
	}
	verb_usage(v);
	return 0;
}

int
cmd_version(int argc, char **argv, struct box_err *e)
{
	if (argc > 1)
		return err_usage(e, "version takes no arguments");
	puts(box_version_string());
	return 0;
}
