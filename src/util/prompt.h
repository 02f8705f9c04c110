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
 * Ask "question [y/N] " on the terminal (stdin must be one).  Returns 0
 * when the answer is yes; otherwise fails: -ENOTTY (usage, exit 2) without
 * a terminal, naming flag as the way to say yes; -ECANCELED (exit 1) on
 * anything but y/yes or on end of input.
 */
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
