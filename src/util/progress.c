/*
 * progress.c - live or periodic progress lines (see progress.h).
 */
#include "util/clock.h"
#include "util/progress.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

void
progress_start(struct progress *p, const char *what)
{
	struct winsize ws;

	memset(p, 0, sizeof(*p));
	p->tty = isatty(2);
	p->cols = 80;
	if (p->tty && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		p->cols = ws.ws_col;
	p->t0 = p->last = clock_ms();
	text_shown(what, strlen(what), p->what, sizeof(p->what));
}

void
progress_note(struct progress *p, const char *detail)
{
	long long now = clock_ms();
	char line[512];
	int n;

	char shown[256];

	if (detail == NULL)
		detail = "";
	text_shown(detail, strlen(detail), shown, sizeof(shown));
	detail = shown;
	if (p->tty) {
		if (p->shown && now - p->last < 200)
			return;
		n = snprintf(line, sizeof(line), "box: %s … %lds%s%s", p->what,
		    (long)((now - p->t0) / 1000), *detail ? "  " : "", detail);
		if (n < 0)
			return;
		/* one screen line, or the rewrite would scroll */
		if (n >= p->cols)
			line[p->cols - 1] = '\0';
		fprintf(stderr, "\r\033[K%s", line);
		fflush(stderr);
		p->shown = 1;
		p->last = now;
		return;
	}
	if (now - p->last < PROGRESS_PERIOD_MS)
		return;
	p->last = now;
	fprintf(stderr, "box: %s — still going after %lds%s%s\n", p->what,
	    (long)((now - p->t0) / 1000), *detail ? ": " : "", detail);
}

void
progress_clear(struct progress *p)
{
	if (p->tty && p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = 0;
}

void
progress_bytes(char *buf, unsigned long cap, long long n)
{
	if (n >= 1LL << 30)
		snprintf(buf, cap, "%.1f GiB", (double)n / (1LL << 30));
	else if (n >= 1LL << 20)
		snprintf(buf, cap, "%.1f MiB", (double)n / (1LL << 20));
	else if (n >= 1LL << 10)
		snprintf(buf, cap, "%lld KiB", n >> 10);
	else
		snprintf(buf, cap, "%lld B", n);
}
