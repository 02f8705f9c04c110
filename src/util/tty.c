/*
 * tty.c - raw mode that always comes undone, and forwarded signals (see
 * tty.h).
 */
#include "util/tty.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

/* Process-global by necessity: read by signal handlers and atexit(). */
static struct termios tty_saved;
static volatile sig_atomic_t tty_fd = -1;
static int tty_hooks;

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/* Async-signal-safe: tcsetattr() is on the POSIX list. */
static void
restore_now(void)
{
	int fd = tty_fd;

	if (fd >= 0)
		tcsetattr(fd, TCSAFLUSH, &tty_saved);
}

static void
on_fatal(int sig)
{
	restore_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
on_exit_restore(void)
{
	restore_now();
	tty_fd = -1;
}

static void
install_hooks(void)
{
	struct sigaction sa;
	size_t i;

	if (tty_hooks)
		return;
	tty_hooks = 1;
	atexit(on_exit_restore);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
}

int
tty_raw(int fd, struct box_err *e)
{
	struct termios t;

	if (tty_fd >= 0)
		return 0;
	if (tcgetattr(fd, &tty_saved) < 0)
		return err_set(e, -errno, "reading the terminal's settings: %s",
		    strerror(errno));
	install_hooks();
	t = tty_saved;
	cfmakeraw(&t);
	/* cfmakeraw() leaves VMIN/VTIME as they were: reads return >= 1 byte */
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	tty_fd = fd;
	if (tcsetattr(fd, TCSAFLUSH, &t) < 0) {
		int err = errno;

		tty_fd = -1;
		return err_set(e, -err, "raw mode for the terminal: %s",
		    strerror(err));
	}
	return 0;
}

void
tty_restore(void)
{
	restore_now();
	tty_fd = -1;
}

int
tty_size(int fd, int *cols, int *rows)
{
	struct winsize ws;

	if (fd < 0 || ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0)
		return -1;
	*cols = ws.ws_col;
	*rows = ws.ws_row;
	return 0;
}

static void
forwarded_set(sigset_t *set, int stop)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGWINCH);
	if (stop)
		sigaddset(set, SIGTSTP);
}

int
tty_sig_open(struct tty_sig *s, int stop)
{
	struct sigaction ign;
	sigset_t set;
	int err;

	forwarded_set(&set, stop);
	if (sigprocmask(SIG_BLOCK, &set, &s->old_mask) < 0)
		return -errno;
	s->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->fd < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
		return -err;
	}
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &s->old_pipe);
	return 0;
}

int
tty_sig_next(struct tty_sig *s)
{
	struct signalfd_siginfo si;
	ssize_t n;

	do
		n = read(s->fd, &si, sizeof(si));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

void
tty_sig_close(struct tty_sig *s)
{
	if (s->fd < 0)
		return;
	/*
	 * Signals that arrived after the loop's last look are dropped here,
	 * while still blocked: unblocking them would apply their default
	 * action (death) after the session already ended cleanly.
	 */
	while (tty_sig_next(s) > 0)
		;
	close(s->fd);
	s->fd = -1;
	sigaction(SIGPIPE, &s->old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

void
tty_suspend(void)
{
	struct termios raw;
	int fd = tty_fd;

	if (fd < 0 || tcgetattr(fd, &raw) < 0) {
		raise(SIGSTOP);
		return;
	}
	tcsetattr(fd, TCSAFLUSH, &tty_saved);
	raise(SIGSTOP);		/* execution continues here on SIGCONT */
	tcsetattr(fd, TCSAFLUSH, &raw);
}
