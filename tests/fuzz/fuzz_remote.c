/*
 * fuzz_remote.c - the --remote address reader (box/remote/remote_url.c).
 *
 * The input is the address.  Checked: a parse either fails as a usage
 * error with a message and a fix, or every part is one ssh cannot read as
 * an option or a token (the user and the host from their charsets, neither
 * starting with '-', the port in 1..65535), and the ssh command shown for a
 * fix fits its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box/remote/remote_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
only(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

#define NAME "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct remote_url u;
	struct box_err e;
	char *s, b[400];
	int rc;

	if (size > 4096)
		return 0;
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	err_clear(&e);
	rc = remote_url_parse(s, &u, &e);
	if (rc < 0) {
		if (e.status != ERR_USAGE || e.msg[0] == '\0' || e.fix[0] == '\0')
			abort();
	} else {
		if (rc != 0 || u.host[0] == '\0' || u.host[0] == '-' ||
		    u.user[0] == '-' || u.port < 0 || u.port > 65535 ||
		    !only(u.user, NAME) ||
		    !only(u.host, u.ipv6 ? "0123456789abcdefABCDEF:." : NAME) ||
		    strncmp(s, "ssh://", 6) != 0)
			abort();
		remote_url_ssh(&u, b, sizeof(b));
		if (strlen(b) >= sizeof(b))
			abort();
	}
	free(s);
	return 0;
}
