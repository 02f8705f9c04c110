/*
 * prompt.h - consent.  Destructive acts ask on a terminal, or need an
 * explicit flag; with neither they refuse (exit 2), and an answer that is
 * not yes, or end of input, aborts (exit 1).  Nothing here invents
 * consent: no terminal means no question can be asked.
 */
#ifndef BOX_PROMPT_H
#define BOX_PROMPT_H

#include "util/err.h"

/*
 * The one question every destructive act asks: "box: <question>? this
 * cannot be undone. [y/N] " on stderr, the answer read from stdin (a
 * terminal) byte by byte, never past its line.  y or yes in any case,
 * trailing blanks ignored, is 0; anything else or end of input is
 * -ECANCELED "aborted" (exit 1).  No terminal: -ENOTTY, a usage error
 * (exit 2) naming flag as the way to say yes, or, with flag NULL, saying
 * that this is never done unasked.
 */
int consent_ask(const char *question, const char *flag, struct box_err *e);

/* The same question for an act that can be undone (stop 3 boxes): no
 * "cannot be undone". */
int consent_confirm(const char *question, const char *flag,
    struct box_err *e);

/* force proceeds (0); else consent_ask(question, flag). */
int consent_or_force(const char *question, int force, const char *flag,
    struct box_err *e);

/* consent_ask() under its older name (verbs outside box/ and cmd/). */
int prompt_consent(const char *question, const char *flag, struct box_err *e);

/*
 * The one rule for BOX_YES, shared by every verb that reads it (and by
 * host/install.sh's box_yes, which must agree).  Case does not matter:
 * "1", "yes", "true" are yes (1); "0", "no", "false", "" and NULL (unset)
 * are no (0); anything else is -EINVAL, never guessed either way: before
 * this rule "BOX_YES=0" read as yes.
 */
int consent_parse(const char *v);

/* The accepted values, for messages. */
#define CONSENT_VALUES "1, yes, true (yes) or 0, no, false, empty (no), any case"

/*
 * BOX_YES through consent_parse(): 1 yes, 0 no (ask, or refuse without a
 * terminal, as if unset), or a usage error (exit 2) naming the accepted
 * values.
 */
int consent_env(struct box_err *e);

#endif
