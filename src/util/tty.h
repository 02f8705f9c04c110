/*
 * tty.h - the local terminal during an interactive session, and the signals
 * a session forwards instead of dying of.
 *
 * Raw mode is undone on every way out we can catch: the normal path
 * (tty_restore), exit() (atexit), fatal signals (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT: restore, then die of the same signal) and suspension
 * (SIGTSTP: restore, stop, raw again on SIGCONT).  The termination signals
 * a user sends (INT, TERM, HUP, QUIT, USR1, USR2) never kill a session:
 * tty_sig_open() blocks them and hands them to the event loop through a
 * signalfd, which forwards them to the remote program.  Only SIGKILL can
 * leave a terminal raw; `reset` repairs it.
 *
 * The saved terminal state is the one piece of process-global state here:
 * signal handlers and atexit() cannot be handed a context.
 */
#ifndef BOX_TTY_H
#define BOX_TTY_H

#include <signal.h>

#include "util/err.h"

/* Put fd (a terminal) in raw mode; tty_restore() undoes it.  Idempotent. */
int tty_raw(int fd, struct box_err *e);
void tty_restore(void);

/* The terminal's size; 0, or -1 when fd is not a terminal. */
int tty_size(int fd, int *cols, int *rows);

/*
 * Block the forwarded signals (INT, TERM, HUP, QUIT, USR1, USR2, WINCH and,
 * with stop set, TSTP) and return a signalfd for them; SIGPIPE is ignored
 * for the duration (writes report EPIPE instead).  old receives what to
 * restore.  < 0 -errno.
 */
struct tty_sig {
	int fd;
	sigset_t old_mask;
	struct sigaction old_pipe;
};

int tty_sig_open(struct tty_sig *s, int stop);
/* The next pending signal's number, 0 when none. */
int tty_sig_next(struct tty_sig *s);
/* Drain, close, and restore the mask and SIGPIPE's disposition. */
void tty_sig_close(struct tty_sig *s);

/*
 * SIGTSTP arrived during raw mode: give the terminal back, stop this
 * process like the shell expects, and go raw again once continued.
 */
void tty_suspend(void);

#endif
