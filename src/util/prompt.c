/* prompt.c - asking before destroying (see prompt.h). */
#include "util/prompt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int
prompt_consent(const char *question, const char *flag, struct box_err *e)
{
	char line[64];
	size_t n;

	if (!isatty(STDIN_FILENO)) {
		err_usage(e, "refusing to %s without a terminal to confirm "
		    "on", question);
		err_fix(e, "%s says yes", flag);
		return -ENOTTY;
	}
	fprintf(stderr, "box: %s? this cannot be undone. [y/N] ", question);
	fflush(stderr);
	if (fgets(line, sizeof(line), stdin) == NULL) {
		fputc('\n', stderr);
		return err_set(e, -ECANCELED, "aborted");
	}
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0)
		return 0;
	return err_set(e, -ECANCELED, "aborted");
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
