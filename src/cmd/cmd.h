/*
 * cmd.h - the verb table: the single source for dispatch, `box help`,
 * `box help <verb>` and `box <verb> --help`.
 *
 * A verb is int cmd_<name>(int argc, char **argv, struct box_err *e):
 * argv[0] is the verb and its options follow.  It returns 0 or a negative
 * code with e filled; main() prints and picks the exit status.  A verb
 * whose exit status is someone else's (exec: the remote command's) returns
 * it as a positive value, which main() passes through.
 */
#ifndef BOX_CMD_H
#define BOX_CMD_H

#include "util/err.h"

#define V_PRIV	0x1	/* keeps the right to gain privileges (execs helpers) */
#define V_HIDDEN 0x2	/* dispatchable, not listed (deprecated aliases) */

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv, struct box_err *e);
	const char *synopsis;	/* after "box <name> " */
	const char *summary;	/* one line for `box help` */
	const char *page;	/* the help page, or NULL */
	unsigned flags;
};

extern const struct verb box_verbs[];

const struct verb *verb_find(const char *name);
/* The verb closest to name within distance 2, or NULL. */
const struct verb *verb_suggest(const char *name);
void verb_usage(const struct verb *v);	/* the help page, to stdout */
void box_usage(void);			/* general help, to stdout */
const char *box_version_string(void);

int cmd_help(int argc, char **argv, struct box_err *e);
int cmd_version(int argc, char **argv, struct box_err *e);
int cmd_templates(int argc, char **argv, struct box_err *e);
int cmd_list(int argc, char **argv, struct box_err *e);
int cmd_status(int argc, char **argv, struct box_err *e);
int cmd_info(int argc, char **argv, struct box_err *e);
int cmd_shell(int argc, char **argv, struct box_err *e);
int cmd_exec(int argc, char **argv, struct box_err *e);
int cmd_tmux(int argc, char **argv, struct box_err *e);
/* the lifecycle verbs */
int cmd_new(int argc, char **argv, struct box_err *e);
int cmd_snapshot(int argc, char **argv, struct box_err *e);
int cmd_restore(int argc, char **argv, struct box_err *e);
int cmd_rename(int argc, char **argv, struct box_err *e);
int cmd_down(int argc, char **argv, struct box_err *e);
int cmd_start(int argc, char **argv, struct box_err *e);
int cmd_restart(int argc, char **argv, struct box_err *e);
int cmd_root(int argc, char **argv, struct box_err *e);
int cmd_rm(int argc, char **argv, struct box_err *e);
int cmd_export(int argc, char **argv, struct box_err *e);
int cmd_import(int argc, char **argv, struct box_err *e);
int cmd_expose(int argc, char **argv, struct box_err *e);
int cmd_egress(int argc, char **argv, struct box_err *e);
int cmd_incus(int argc, char **argv, struct box_err *e);
int cmd_setup_host(int argc, char **argv, struct box_err *e);
int cmd_teardown_host(int argc, char **argv, struct box_err *e);
int cmd_firewall(int argc, char **argv, struct box_err *e);
int cmd_doctor(int argc, char **argv, struct box_err *e);
int cmd_whereami(int argc, char **argv, struct box_err *e);
int cmd_versions(int argc, char **argv, struct box_err *e);
int cmd_use(int argc, char **argv, struct box_err *e);
int cmd_uninstall(int argc, char **argv, struct box_err *e);
int cmd_migrate_host(int argc, char **argv, struct box_err *e);

#endif
