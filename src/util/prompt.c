/* prompt.c - asking before destroying (see prompt.h). */
#include "util/prompt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int
ask(const char *question, const char *tail, const char *flag,
    struct box_err *e)
{
	char line[64];
	size_t n = 0;
	ssize_t r;
	char ch;

	if (!isatty(STDIN_FILENO)) {
		if (flag == NULL)
			err_usage(e, "%s? there is no terminal to ask on, and "
			    "this is never done unasked", question);
		else {
			err_usage(e, "%s? not without %s: there is no terminal "
			    "to ask on", question, flag);
			err_fix(e, "add %s when you mean it", flag);
		}
		return -ENOTTY;
	}
	fflush(stdout);
	fprintf(stderr, "box: %s? %s[y/N] ", question, tail);
	fflush(stderr);
	/* byte by byte: what follows the answer stays for its reader */
	for (;;) {
		r = read(STDIN_FILENO, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fputc('\n', stderr);	/* end of input: no */
			return err_set(e, -ECANCELED, "aborted");
		}
		if (ch == '\n')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = ch;
	}
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
	    line[n - 1] == '\r'))
		n--;
	line[n] = '\0';
	if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0)
		return 0;
	return err_set(e, -ECANCELED, "aborted");
}

int
consent_ask(const char *question, const char *flag, struct box_err *e)
{
	return ask(question, "this cannot be undone. ", flag, e);
}

int
consent_confirm(const char *question, const char *flag, struct box_err *e)
{
	return ask(question, "", flag, e);
}

int
consent_or_force(const char *question, int force, const char *flag,
    struct box_err *e)
{
	return force ? 0 : consent_ask(question, flag, e);
}

int
prompt_consent(const char *question, const char *flag, struct box_err *e)
{
	return consent_ask(question, flag, e);
}

int
consent_parse(const char *v)
{
	static const char *const yes[] = { "1", "yes", "true" };
	static const char *const no[] = { "", "0", "no", "false" };
	size_t i;

	if (v == NULL)
		return 0;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	return -EINVAL;
}

int
consent_env(struct box_err *e)
{
	const char *v = getenv("BOX_YES");
	int rc = consent_parse(v);

	if (rc >= 0)
		return rc;
	/* Bounded: the value is shown, not trusted. */
	err_usage(e, "BOX_YES=%.32s%s is neither yes nor no", v,
	    strlen(v) > 32 ? "..." : "");
	err_fix(e, "BOX_YES takes " CONSENT_VALUES);
	return rc;
}
