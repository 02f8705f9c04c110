/*
 * exectool - drives the bounded internal exec (exec_capture) against the
 * real daemon for tests/integration/test_exec.sh:
 *
 *   exectool INSTANCE TIMEOUT_MS CAP [-] -- CMD...
 *
 * With "-", stdin is read whole first and handed to the command.  Prints
 * "rc=<rc> status=<n> out=<len> outtrunc=<0|1> err=<len> ms=<elapsed>",
 * then the captured stdout; the message of a failure goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "incus/api.h"
#include "box/remote/incus_env.h"
#include "incus/exec.h"

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
main(int argc, char **argv)
{
	struct exec_buf out, err;
	struct exec_status st;
	struct exec_req req;
	struct box_err e;
	struct incus c;
	char *in = NULL;
	size_t in_len = 0, cap;
	long long t0;
	int i = 4, rc;

	if (argc < 6)
		return 2;
	cap = strtoul(argv[3], NULL, 10);
	if (strcmp(argv[4], "-") == 0) {
		size_t n;

		in = malloc(64 << 20);
		while ((n = fread(in + in_len, 1, (64 << 20) - in_len, stdin)) > 0)
			in_len += n;
		i++;
	}
	if (strcmp(argv[i], "--") != 0)
		return 2;
	memset(&req, 0, sizeof(req));
	req.argv = (const char *const *)argv + i + 1;
	req.uid = req.gid = -1;
	out.p = malloc(cap + 1);
	out.cap = cap + 1;
	err.p = malloc(cap + 1);
	err.cap = cap + 1;
	err_clear(&e);
	incus_env_apply(NULL, NULL);
	if (incus_init(&c, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	t0 = now_ms();
	rc = exec_capture(&c, argv[1], &req, in, in_len, &out, &err,
	    atoi(argv[2]), &st, &e);
	printf("rc=%d status=%d out=%zu outtrunc=%d err=%zu ms=%lld\n", rc,
	    st.code, out.len, out.truncated, err.len, now_ms() - t0);
	fwrite(out.p, 1, out.len, stdout);
	if (rc < 0)
		fprintf(stderr, "%s\n", e.msg);
	incus_close(&c);
	free(out.p);
	free(err.p);
	free(in);
	return rc < 0 ? 1 : 0;
}
