/* prompt.c - asking before destroying (see prompt.h). */
#include "util/prompt.h"

#include <errno.h>
#include <stdio.h>
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
