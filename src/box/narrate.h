/*
 * narrate.h - what a lifecycle verb says while it works (stderr), and the
 * flag a Ctrl-C sets so a half-made box can be cleaned up.
 */
#ifndef BOX_NARRATE_H
#define BOX_NARRATE_H

/* Narration: "box: ..." on stderr. */
void life_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Ctrl-C and SIGTERM during a long verb set a flag instead of killing box,
 * so a half-made box can be cleaned up; a second one kills as usual.  The
 * flag is process-global (a signal handler cannot be handed a context).
 */
void life_catch_signals(void);
int life_interrupted(void);

#endif
