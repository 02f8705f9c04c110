/*
 * cmd.h - the verb table: the single source for dispatch, `box help`,
 * `box help <verb>` and `box <verb> --help`.
 *
 * A verb is int cmd_<name>(int argc, char **argv, struct box_err *e):
 * argv[0] is the verb and its options follow.  Its first act is
 * opt_parse() over one table of rows (util/opt.h) that binds its
 * variables and carries their help: the synopsis, the usage error, the
 * help page's option list, completion and box.1 are written from it.
 * Adding a verb: one file in src/cmd/ and one row in verbs.def, which
 * both declares the handler (below) and fills box_verbs (verbs.c).  It
 * returns 0 or a negative code with e filled; main() prints and picks
 * the exit status.  A verb whose exit status is someone else's (exec:
 * the remote command's) returns it as a positive value, which main()
 * passes through.
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
	const char *examples;	/* "command\twhat it does\n"..., or NULL */
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
/*
 * An unknown verb as a usage error: a word box deliberately has no verb
 * for names what to run instead; a near miss is suggested; anything else
 * gets the list of verbs.
 */
int verb_unknown(const char *name, struct box_err *e);
void verb_usage(const struct verb *v);	/* the help page, to stdout */
void box_usage(void);			/* general help, to stdout */
void box_manpage(void);			/* box.1, as roff, to stdout */
void verb_manpage(const struct verb *v);	/* box-<verb>.1, the same */
/* "cmd\twhat\n..." (1 to 3), or NULL */
const char *verb_examples(const char *name);
const char *verb_group_title(int g);	/* "BOXES", ... */
/* every variable box reads, as help text, in the caller's buf */
const char *box_environment_text(char *buf, size_t cap);
const char *box_version_string(char *buf, size_t cap);

/* The argument row of the verbs over box_pick_each() (box/each.h). */
#define OPT_PICK_ARG OPT_ARG("<box>|all", 1, OPT_ANY, OC_BOX, "boxes, glob " \
	"patterns ('w-*') or all; all, or a pattern naming more than one " \
	"box, asks first")

/*
 * Every verb's handler, declared from its row, so a verb's file needs no
 * line here: int cmd_<name>(int argc, char **argv, struct box_err *e).
 */
#define VERB(name, fn, summary, page, flags, group, examples) \
	int fn(int argc, char **argv, struct box_err *e);
#include "cmd/verbs.def"
#undef VERB

#endif
