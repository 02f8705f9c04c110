/*
 * dnsload - a DNS load generator for the resolver bench (loopback only).
 *   dnsload lat ADDR PORT N        N sequential A queries, unique names:
 *                                  "median_us <m> p90_us <p> lost <k>"
 *   dnsload qps ADDR PORT SECS W   W queries kept in flight for SECS:
 *                                  "qps <answered/s> sent <n> lost <k>"
 *   dnsload flood ADDR PORT SECS   as fast as one socket sends, answers
 *                                  read and dropped: "sent <n>"
 * Names are q<n>-<pid>.bench.test, so no cache can answer them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static size_t
build(unsigned char *m, unsigned id, unsigned long n)
{
	char label[40];
	size_t o = 12, l;

	memset(m, 0, 12);
	m[0] = (unsigned char)(id >> 8);
	m[1] = (unsigned char)id;
	m[2] = 1;
	m[5] = 1;
	l = (size_t)snprintf(label, sizeof(label), "q%lu-%d", n, (int)getpid());
	m[o++] = (unsigned char)l;
	memcpy(m + o, label, l);
	o += l;
	memcpy(m + o, "\005bench\004test\000\000\001\000\001", 16);
	return o + 16;
}

static int
cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in to;
	unsigned char m[512], r[4096];
	unsigned long n = 0, sent = 0, got = 0, lost = 0;
	int fd;

	if (argc < 5)
		return 2;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons((unsigned short)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &to.sin_addr) != 1)
		return 2;
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    connect(fd, (void *)&to, sizeof(to)) < 0)
		return 1;
	if (strcmp(argv[1], "lat") == 0) {
		int N = atoi(argv[4]), i;
		long long *v = calloc((size_t)N, sizeof(*v));
		struct pollfd p = { fd, POLLIN, 0 };

		for (i = 0; i < N; i++) {
			long long t0 = now_us(), t;
			size_t len = build(m, (unsigned)i & 0xffff, n++);

			send(fd, m, len, 0);
			for (;;) {
				if (poll(&p, 1, 2000) <= 0) {
					lost++;
					t = 2000000;
					break;
				}
				if (recv(fd, r, sizeof(r), 0) >= 2 &&
				    r[0] == m[0] && r[1] == m[1]) {
					t = now_us() - t0;
					break;
				}
			}
			v[i] = t;
		}
		qsort(v, (size_t)N, sizeof(*v), cmp);
		printf("median_us %lld p90_us %lld lost %lu\n", v[N / 2],
		    v[N * 9 / 10], lost);
		return 0;
	}
	if (strcmp(argv[1], "qps") == 0 || strcmp(argv[1], "flood") == 0) {
		static long long sent_at[65536];
		int flood = argv[1][0] == 'f', W = argc > 5 ? atoi(argv[5]) : 0;
		long long end = now_us() + (long long)(atof(argv[4]) * 1e6);
		long long t0 = now_us(), t;
		unsigned long inflight = 0;
		unsigned id = 0;

		while ((t = now_us()) < end) {
			struct pollfd p = { fd, POLLIN, 0 };
			ssize_t k;

			while (flood || inflight < (unsigned long)W) {
				size_t len;

				id = (id + 1) & 0xffff;
				if (!flood && sent_at[id] != 0) {
					if (t - sent_at[id] < 1000000)
						break;
					lost++;	/* its answer never came */
					inflight--;
				}
				len = build(m, id, n++);
				if (send(fd, m, len, MSG_DONTWAIT) < 0)
					break;
				sent_at[id] = t;
				sent++;
				inflight++;
				if (flood && sent % 64 == 0)
					break;
			}
			if (poll(&p, 1, flood ? 0 : 10) <= 0)
				continue;
			while ((k = recv(fd, r, sizeof(r), MSG_DONTWAIT)) >= 2) {
				unsigned rid = (unsigned)r[0] << 8 | r[1];

				if (sent_at[rid] != 0) {
					sent_at[rid] = 0;
					got++;
					inflight--;
				}
			}
		}
		if (flood)
			printf("sent %lu\n", sent);
		else
			printf("qps %.0f sent %lu lost %lu\n",
			    (double)got * 1e6 / (double)(now_us() - t0), sent,
			    lost);
		return 0;
	}
	return 2;
}
