/*
 * gdprobe.c - the guard test's probe (tests/integration/test_guard.sh),
 * built static and pushed into a real box, and its recorder on the host
 * and in the test's namespaces:
 *
 *   gdprobe send SECS PERIOD_US ADDR:PORT...
 *	every PERIOD_US (an absolute schedule: a late wake-up sends once,
 *	then goes on from now, never a burst) one UDP datagram to each
 *	target, "gd SEQ SEND_NS" (CLOCK_MONOTONIC, which a box shares with
 *	its host); for SECS seconds.  Then on stdout: "sent N" and a line
 *	"gap AT_NS US" for every pause between two rounds longer than
 *	2 * PERIOD_US (what the probe could not see: a busy machine),
 *	and "span START_NS END_NS".
 *   gdprobe recv ADDR:PORT
 *	print "SEQ SEND_NS RECV_NS ADDR:PORT" for every probe that arrives,
 *	until SIGTERM (then flushes); "ready" on stderr once bound.
 *   gdprobe now
 *	CLOCK_MONOTONIC in ns: when the test edited the firewall.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mono_ns.h"

#define MAXT	8
#define MAXGAP	4096

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int
parse(const char *s, struct sockaddr_in *sa)
{
	char a[64];
	const char *c = strrchr(s, ':');

	if (c == NULL || (size_t)(c - s) >= sizeof(a))
		return -1;
	memcpy(a, s, (size_t)(c - s));
	a[c - s] = '\0';
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)atoi(c + 1));
	return inet_pton(AF_INET, a, &sa->sin_addr) == 1 ? 0 : -1;
}

static int
do_send(int secs, long period_us, int nt, char **tv)
{
	static long long gap_at[MAXGAP], gap_us[MAXGAP];
	struct sockaddr_in sa[MAXT];
	struct timespec ts;
	long long t0, next, last = 0, seq = 0, ng = 0, i;
	char buf[64];
	int fd, k, n;

	if (nt < 1 || nt > MAXT || period_us < 100)
		return 2;
	for (k = 0; k < nt; k++)
		if (parse(tv[k], &sa[k]) < 0)
			return 2;
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		return 1;
	t0 = next = now_ns();
	while (next - t0 < (long long)secs * 1000000000LL) {
		long long t = now_ns();

		if (last != 0 && t - last > 2 * period_us * 1000 && ng < MAXGAP) {
			gap_at[ng] = last;
			gap_us[ng++] = (t - last) / 1000;
		}
		last = t;
		for (k = 0; k < nt; k++) {
			n = snprintf(buf, sizeof(buf), "gd %lld %lld", seq, t);
			/* a dropped probe is silent; an ICMP error may say
			 * so on a later send: neither stops the round */
			(void)sendto(fd, buf, (size_t)n, MSG_DONTWAIT,
			    (struct sockaddr *)&sa[k], sizeof(sa[k]));
		}
		seq++;
		next += period_us * 1000;
		if (next < now_ns())
			next = now_ns() + period_us * 1000;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL) == EINTR)
			;
	}
	printf("sent %lld\nspan %lld %lld\n", seq, t0, now_ns());
	for (i = 0; i < ng; i++)
		printf("gap %lld %lld\n", gap_at[i], gap_us[i]);
	return 0;
}

static int
do_recv(const char *where)
{
	struct sockaddr_in sa;
	struct timeval tv = { 0, 100000 };
	struct sigaction act;
	long long seq, sent;
	char buf[128];
	ssize_t n;
	int fd, one = 1;

	memset(&act, 0, sizeof(act));
	act.sa_handler = on_term;
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	if (parse(where, &sa) < 0)
		return 2;
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "gdprobe recv %s: %s\n", where,
		    strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(stderr, "ready\n");
	while (!stop) {
		if ((n = recv(fd, buf, sizeof(buf) - 1, 0)) < 0)
			continue;
		buf[n] = '\0';
		if (sscanf(buf, "gd %lld %lld", &seq, &sent) == 2)
			printf("%lld %lld %lld %s\n", seq, sent, now_ns(),
			    where);
	}
	fflush(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "send") == 0)
		return do_send(atoi(argv[2]), atol(argv[3]), argc - 4,
		    argv + 4);
	if (argc == 3 && strcmp(argv[1], "recv") == 0)
		return do_recv(argv[2]);
	if (argc == 2 && strcmp(argv[1], "now") == 0) {
		printf("%lld\n", now_ns());
		return 0;
	}
	fprintf(stderr, "usage: gdprobe send SECS PERIOD_US ADDR:PORT... | "
	    "recv ADDR:PORT | now\n");
	return 2;
}
