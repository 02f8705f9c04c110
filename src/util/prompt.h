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

#endif
