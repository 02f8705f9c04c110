/*
 * each.h - `all` as a box name: the verbs that change a box's state
 * (start, down, restart) take it to mean every box on this host, and the
 * verbs that give a box a name (new, clone, rename, import) refuse it, so
 * that `box down all` can never be read two ways.
 */
#ifndef BOX_EACH_H
#define BOX_EACH_H

#include "box/box.h"
#include "incus/api.h"
#include "util/err.h"

#define BOX_ALL "all"

/* 1 when name is the reserved word for every box. */
int box_is_all(const char *name);

/*
 * A name for a new box (new, clone, rename, import): valid and not the
 * reserved "all".  0, or a usage error naming the reason; whence ("" or
 * " (the name recorded in the file ...)") is appended to the message.
 */
int box_new_name_ok(const char *name, const char *whence,
    struct box_err *e);

/* What box_pick_run() calls on each picked box. */
typedef int (*box_each_fn)(struct incus *c, const struct box_info *bi,
    void *arg, struct box_err *e);

/*
 * The boxes a verb's arguments name (rm, down, start, restart): names,
 * glob patterns (fnmatch: w-*, test?) and "all".  A name must be a box
 * (box_resolve's refusal); a pattern must match one.  "all" is every box
 * for root; for any other caller, the boxes they minted (user.box.owner),
 * the others said and left alone.  wide is set when the selection is
 * "all" or a pattern matched more than one box: the verb asks first (or
 * takes --force).  v is sorted by name, without repeats.
 */
struct box_pick {
	struct box_info *v;
	int n;
	int wide;
};

/* A shell glob (* ? [a-z] [!x]) over a box name: 1 when it matches. */
int box_glob(const char *glob, const char *name);

int box_pick(struct incus *c, char *const *args, int nargs,
    struct box_pick *p, struct box_err *e);
void box_pick_free(struct box_pick *p);

/*
 * Ask before a wide pick ("stop 3 boxes: a, b, c"; undo: an act that can
 * be undone, so not "cannot be undone"), unless force; then fn on each
 * picked box in name order (a failure of one is said on stderr and the
 * rest still run, the result a failure counting them; one box alone: its
 * own error).
 */
int box_pick_run(struct incus *c, const struct box_pick *p, const char *verb,
    int force, int undo, box_each_fn fn, void *arg, struct box_err *e);

/*
 * A pick verb from its arguments on (start, down, restart): a connection
 * of its own, box_pick() of args, *wide (when not NULL) set to the pick's
 * wide, then box_pick_run().
 */
int box_pick_each(char *const *args, int nargs, const char *verb, int force,
    int undo, int *wide, box_each_fn fn, void *arg, struct box_err *e);

#endif
