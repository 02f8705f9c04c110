/*
 * narrate.c - the lifecycle verbs' narration and their signal flag (see
 * narrate.h).
 */
#include "box/narrate.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/text.h"

/* Set by the SIGINT/SIGTERM handler, which is handed no context: the one
 * thing a handler may touch, read by the waits between their steps. */
static volatile sig_atomic_t interrupted;

void
life_say(const char *fmt, ...)
{
	char raw[2048], shown[4 * sizeof(raw)];
	va_list ap;

	/* what it names came from a daemon, a box or a file: shown */
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	text_shown(raw, strlen(raw), shown, sizeof(shown));
	fflush(stdout);
	fprintf(stderr, "box: %s\n", shown);
}

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void
life_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;	/* the second one kills */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int
life_interrupted(void)
{
	return interrupted != 0;
}
