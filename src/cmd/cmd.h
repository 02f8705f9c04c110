/*
 * cmd.h - the verb table: the single source for dispatch, `box help`,
 * `box help <verb>` and `box <verb> --help`.
 *
 * A verb is int cmd_<name>(int argc, char **argv, struct box_err *e):
 * argv[0] is the verb and its options follow.  Its first act is
 * opt_parse() over one table of rows (util/opt.h) that binds its
 * variables and carries their help: the synopsis, the usage error, the
 * help page's option list, completion and box.1 are written from it.
 * Adding a verb: one file in src/cmd/ and one row in box_verbs
 * (verbs.c).  It returns 0 or a negative code with e filled; main()
 * prints and picks the exit status.  A verb
 * whose exit status is someone else's (exec: the remote command's) returns
 * it as a positive value, which main() passes through.
 */
#ifndef BOX_CMD_H
#define BOX_CMD_H

#include "util/err.h"
#include "util/opt.h"

#define V_PRIV	0x1	/* keeps the right to gain privileges (execs helpers) */
#define V_HIDDEN 0x2	/* dispatchable, not listed (deprecated aliases) */
#define V_DESTRUCTIVE 0x4 /* loses data: suggested only one letter off */

/* Where a verb is listed in `box help`; 0 (unset) lists it last. */
enum verb_group {
	VG_OTHER = 0,
	VG_BOXES,	/* mint, look at, get into */
	VG_LIFECYCLE,	/* snapshots, files, start/stop, delete */
	VG_HOST,	/* the host stack and its checks */
	VG_INSTALL,	/* this program itself */
};

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv, struct box_err *e);
	const char *summary;	/* one line for `box help` */
	const char *page;	/* the help page, or NULL */
	unsigned flags;
	int group;		/* enum verb_group */
};

extern const struct verb box_verbs[];

/* A word users try for a verb (ls, stop, delete): dispatched as the verb. */
struct verb_alias {
	const char *word;
	const char *verb;
};

extern const struct verb_alias box_aliases[];

/* The verb named name, or the one an alias names; NULL when neither. */
const struct verb *verb_find(const char *name);
/*
 * The verb closest to name within distance 2, or NULL; a destructive verb
 * (V_DESTRUCTIVE) only when name is one edit off it, so a typo never
 * leads to a delete it did not nearly spell.
 */
const struct verb *verb_suggest(const char *name);
void verb_usage(const struct verb *v);	/* the help page, to stdout */
/* "<box>|all [--force]", from the verb's rows; 0, or -ENOENT (no rows) */
int verb_synopsis(const struct verb *v, char *buf, size_t size);
void box_usage(void);			/* general help, to stdout */
void box_manpage(void);			/* box.1, as roff, to stdout */
const char *verb_group_title(int g);	/* "BOXES", ... */
const char *box_environment_text(void);	/* every variable box reads */
const char *box_version_string(void);

int cmd_help(int argc, char **argv, struct box_err *e);
int cmd_version(int argc, char **argv, struct box_err *e);
int cmd_completion(int argc, char **argv, struct box_err *e);
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
int cmd_verify(int argc, char **argv, struct box_err *e);
int cmd_grant(int argc, char **argv, struct box_err *e);
int cmd_revoke(int argc, char **argv, struct box_err *e);

#endif
