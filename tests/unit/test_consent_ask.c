/*
 * The one consent question (util/prompt.h consent_ask): its answers on a
 * real terminal (a pty on stdin), its refusals without one, and that it
 * reads no further than the answer's line.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t.h"
#include "util/prompt.h"

/* consent_ask() with stdin a terminal fed input; rest gets what is left. */
static int
ask_on_pty(const char *input, const char *flag, char *rest, size_t cap,
    struct box_err *e)
{
	int m, s, in0, err2, devnull, rc;
	ssize_t n;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -999;
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		return -999;
	if (write(m, input, strlen(input)) != (ssize_t)strlen(input))
		return -999;
	in0 = dup(0);
	err2 = dup(2);
	devnull = open("/dev/null", O_WRONLY);
	dup2(s, 0);
	dup2(devnull, 2);
	err_clear(e);
	rc = consent_ask("do it", flag, e);
	rest[0] = '\0';
	if (rest != NULL && cap > 0) {
		fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
		n = read(0, rest, cap - 1);
		rest[n > 0 ? n : 0] = '\0';
	}
	dup2(in0, 0);
	dup2(err2, 2);
	close(in0);
	close(err2);
	close(devnull);
	close(s);
	close(m);
	return rc;
}

TEST(consent_ask_answers_on_a_terminal)
{
	static const char *const yes[] = { "y\n", "Y\n", "yes\n", "YES\n",
	    "yEs\n", "yes  \n", "y\r\n", "yes\t\n" };
	static const char *const no[] = { "\n", "n\n", "no\n", "yess\n",
	    " y\n", "ye\n", "yes please\n" };
	struct box_err e;
	char rest[64];
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (ask_on_pty(yes[i], "--force", rest, sizeof(rest), &e) != 0)
			t_fail(__FILE__, __LINE__, "'%s' is not yes", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (ask_on_pty(no[i], "--force", rest, sizeof(rest), &e) !=
		    -ECANCELED)
			t_fail(__FILE__, __LINE__, "'%s' is not no", no[i]);
		CHECK_STR(e.msg, "aborted");
		CHECK(e.status != ERR_USAGE);
	}
	/* the answer's line only: what follows stays for its reader */
	CHECK_INT(ask_on_pty("y\nnext line\n", "--force", rest, sizeof(rest),
	    &e), 0);
	CHECK_STR(rest, "next line\n");
}

TEST(consent_ask_without_a_terminal)
{
	struct box_err e;
	int p[2], in0;

	CHECK(pipe(p) == 0);
	in0 = dup(0);
	dup2(p[0], 0);
	err_clear(&e);
	CHECK_INT(consent_ask("delete x", "--force", &e), -ENOTTY);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK(strstr(e.msg, "delete x? not without --force") != NULL);
	CHECK(strstr(e.fix, "--force") != NULL);
	err_clear(&e);
	CHECK_INT(consent_ask("replace x", NULL, &e), -ENOTTY);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK(strstr(e.msg, "never done unasked") != NULL);
	err_clear(&e);
	CHECK_INT(consent_or_force("delete x", 1, "--force", &e), 0);
	dup2(in0, 0);
	close(in0);
	close(p[0]);
	close(p[1]);
}
