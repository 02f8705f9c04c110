/*
 * record.c - a secret's fields, their checks, and the record's text
 * (secret.h).  Pure: the unit tests and fuzz_secret drive it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/secret/secret.h"
#include "incus/ws.h"

static const char *const schemes[] = { "bearer", "basic", "raw" };

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

int
secret_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || !alnum((unsigned char)s[0]))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (i >= SECRET_NAMEMAX || (!alnum((unsigned char)s[i]) &&
		    strchr("._-", s[i]) == NULL))
			return 0;
	return 1;
}

/* One label: [a-z0-9]([a-z0-9-]*[a-z0-9])?, at most 63. */
static int
label_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!alnum((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

int
secret_host_ok(char *s, unsigned *port)
{
	char *colon = strchr(s, ':'), *p;
	long v = 443;
	size_t n;

	if (colon != NULL) {
		if (colon[1] == '\0' || strlen(colon + 1) > 5)
			return 0;
		v = strtol(colon + 1, &p, 10);
		if (*p != '\0' || v < 1 || v > 65535 || colon[1] == '0')
			return 0;
		*colon = '\0';
	}
	if ((n = strlen(s)) == 0 || n > SECRET_HOSTMAX || strchr(s, '.') ==
	    NULL)
		return 0;
	for (p = s; *p != '\0'; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	for (p = s; *p != '\0';) {
		size_t l = strcspn(p, ".");

		if (!label_ok(p, l))
			return 0;
		p += l + (p[l] == '.');
	}
	if (s[n - 1] == '.')
		return 0;
	*port = (unsigned)v;
	return 1;
}

int
secret_header_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (i >= SECRET_HDRMAX || (!alnum((unsigned char)s[i]) &&
		    strchr("!#$%&'*+-.^_`|~", s[i]) == NULL))
			return 0;
	return i > 0;
}

int
secret_value_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > SECRET_VALMAX || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

int
secret_scheme_of(const char *s)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(s, schemes[i]) == 0)
			return i;
	return -1;
}

const char *
secret_scheme_name(int scheme)
{
	return scheme >= 0 && scheme < 3 ? schemes[scheme] : "?";
}

/* The next line of text[*off..n) into line (NUL-terminated): its key's
 * length, or -1 when there is none, it is too long or holds a NUL or CR. */
static int
next_line(const char *text, size_t n, size_t *off, char *line, size_t cap)
{
	const char *nl;
	size_t l;

	if (*off >= n)
		return -1;
	nl = memchr(text + *off, '\n', n - *off);
	if (nl == NULL)
		return -1;
	l = (size_t)(nl - (text + *off));
	if (l >= cap || memchr(text + *off, '\0', l) != NULL ||
	    memchr(text + *off, '\r', l) != NULL)
		return -1;
	memcpy(line, text + *off, l);
	line[l] = '\0';
	*off += l + 1;
	return (int)strcspn(line, " ");
}

/* "key value": the value of the next line when its key is key. */
static const char *
field(const char *text, size_t n, size_t *off, const char *key, char *line,
    size_t cap)
{
	int k = next_line(text, n, off, line, cap);

	if (k < 0 || (size_t)k != strlen(key) || strncmp(line, key, k) != 0 ||
	    line[k] != ' ')
		return NULL;
	return line + k + 1;
}

static int
bad(char *why, size_t cap, const char *what)
{
	if (why != NULL && cap > 0)
		snprintf(why, cap, "%s", what);
	return -EINVAL;
}

int
secret_parse(const char *text, size_t n, struct secret *s, char *why,
    size_t cap)
{
	char line[SECRET_VALMAX + 16], host[SECRET_HOSTMAX + 8];
	const char *v;
	size_t off = 0;

	memset(s, 0, sizeof(*s));
	if (field(text, n, &off, "box-secret", line, sizeof(line)) == NULL ||
	    strcmp(line, "box-secret 1") != 0)
		return bad(why, cap, "not a box secret record (version 1)");
	if ((v = field(text, n, &off, "host", line, sizeof(line))) == NULL ||
	    strlen(v) > SECRET_HOSTMAX + 6)
		return bad(why, cap, "no host line");
	snprintf(host, sizeof(host), "%s", v);
	if (!secret_host_ok(host, &s->port))
		return bad(why, cap, "the host is not a host name");
	snprintf(s->host, sizeof(s->host), "%.*s", SECRET_HOSTMAX, host);
	/* as box wrote it: lower case, a port only when not 443 */
	if (s->port != 443)
		snprintf(host, sizeof(host), "%s:%u", s->host, s->port);
	if (strcmp(host, v) != 0)
		return bad(why, cap, "the host is not as box writes it");
	if ((v = field(text, n, &off, "header", line, sizeof(line))) == NULL ||
	    !secret_header_ok(v))
		return bad(why, cap, "no valid header line");
	snprintf(s->header, sizeof(s->header), "%s", v);
	if ((v = field(text, n, &off, "scheme", line, sizeof(line))) == NULL ||
	    (s->scheme = secret_scheme_of(v)) < 0)
		return bad(why, cap, "no valid scheme line");
	if ((v = field(text, n, &off, "value", line, sizeof(line))) == NULL ||
	    !secret_value_ok(v, strlen(v)))
		return bad(why, cap, "no valid value line");
	s->vlen = strlen(v);
	memcpy(s->value, v, s->vlen + 1);
	explicit_bzero(line, sizeof(line));
	if (off != n)
		return bad(why, cap, "something after the value line");
	return 0;
}

int
secret_format(const struct secret *s, char *buf, size_t cap)
{
	char host[SECRET_HOSTMAX + 8];
	int n;

	if (s->port != 443)
		snprintf(host, sizeof(host), "%s:%u", s->host, s->port);
	else
		snprintf(host, sizeof(host), "%s", s->host);
	n = snprintf(buf, cap, "box-secret 1\nhost %s\nheader %s\nscheme %s\n"
	    "value %.*s\n", host, s->header, secret_scheme_name(s->scheme),
	    (int)s->vlen, s->value);
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

int
secret_header_line(const struct secret *s, char *buf, size_t cap)
{
	char *b64;
	int n;

	if (s->scheme == SECRET_BEARER)
		n = snprintf(buf, cap, "%s: Bearer %.*s", s->header,
		    (int)s->vlen, s->value);
	else if (s->scheme == SECRET_RAW)
		n = snprintf(buf, cap, "%s: %.*s", s->header, (int)s->vlen,
		    s->value);
	else {
		if ((b64 = malloc(4 * (s->vlen / 3 + 1) + 1)) == NULL)
			return -ENOMEM;
		ws_base64((const unsigned char *)s->value, s->vlen, b64);
		n = snprintf(buf, cap, "%s: Basic %s", s->header, b64);
		explicit_bzero(b64, strlen(b64));
		free(b64);
	}
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

int
secret_source_key(const char *key)
{
	return strcmp(key, SECRET_GRANT_KEY) == 0;
}
