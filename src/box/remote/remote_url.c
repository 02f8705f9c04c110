/*
 * remote_url.c - see remote_url.h.  A strict reader: anything it does not
 * know is refused, since each part lands on ssh's command line.
 */
#include "box/remote/remote_url.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define URL_FORM "ssh://[user@]host[:port]"

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

static int
name_char(int c)
{
	return alnum(c) || c == '.' || c == '_' || c == '-';
}

static int
hex_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F') || c == ':' || c == '.';
}

static int
refuse(struct box_err *e, const char *why)
{
	err_usage(e, "--remote: %s", why);
	err_fix(e, "give it as " URL_FORM ", e.g. ssh://admin@host.example:22");
	return -EINVAL;
}

/* s[0..n) as the user: 0 or < 0. */
static int
take_user(const char *s, size_t n, struct remote_url *u, struct box_err *e)
{
	size_t i;

	if (n == 0 || n >= sizeof(u->user))
		return refuse(e, "the user must be 1 to 32 characters");
	if (s[0] == '-')
		return refuse(e, "a user may not begin with '-' (it would be "
		    "read as an ssh option)");
	for (i = 0; i < n; i++)
		if (!name_char((unsigned char)s[i]))
			return refuse(e, "the user may hold only letters, "
			    "digits, '.', '_' and '-'");
	memcpy(u->user, s, n);
	u->user[n] = '\0';
	return 0;
}

/* s[0..n) as the host (brackets already taken off when ipv6): 0 or < 0. */
static int
take_host(const char *s, size_t n, int ipv6, struct remote_url *u,
    struct box_err *e)
{
	size_t i;

	if (n == 0)
		return refuse(e, "no host");
	if (n >= sizeof(u->host))
		return refuse(e, "the host is longer than 253 characters");
	if (ipv6) {
		if (memchr(s, ':', n) == NULL)
			return refuse(e, "only an IPv6 address goes in "
			    "brackets");
		for (i = 0; i < n; i++)
			if (!hex_char((unsigned char)s[i]))
				return refuse(e, "an IPv6 address holds only "
				    "hex digits, ':' and '.' (no zone)");
	} else {
		if (!alnum((unsigned char)s[0]))
			return refuse(e, "a host must begin with a letter or "
			    "a digit (a leading '-' would be read as an ssh "
			    "option)");
		for (i = 0; i < n; i++)
			if (!name_char((unsigned char)s[i]))
				return refuse(e, "a host name holds only "
				    "letters, digits, '.', '_' and '-' (an "
				    "IPv6 address goes in brackets: "
				    "ssh://[::1]:22)");
	}
	memcpy(u->host, s, n);
	u->host[n] = '\0';
	u->ipv6 = ipv6;
	return 0;
}

static int
take_port(const char *s, size_t n, struct remote_url *u, struct box_err *e)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 5 || s[0] == '0')
		return refuse(e, "the port must be a number from 1 to 65535");
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return refuse(e, "the port must be a number from 1 to "
			    "65535");
		v = v * 10 + (s[i] - '0');
	}
	if (v > 65535)
		return refuse(e, "the port must be a number from 1 to 65535");
	u->port = (int)v;
	return 0;
}

int
remote_url_parse(const char *s, struct remote_url *u, struct box_err *e)
{
	const char *p, *end, *at, *h, *he, *port = NULL;
	int rc, ipv6 = 0;

	memset(u, 0, sizeof(*u));
	if (s == NULL || strncmp(s, "ssh://", 6) != 0)
		return refuse(e, "only ssh:// is understood (no other scheme, "
		    "no bare host)");
	p = s + 6;
	end = p + strlen(p);
	if (end > p && end[-1] == '/')
		end--;
	if (memchr(p, '/', (size_t)(end - p)) != NULL ||
	    memchr(p, '?', (size_t)(end - p)) != NULL ||
	    memchr(p, '#', (size_t)(end - p)) != NULL)
		return refuse(e, "nothing may follow the host and port (no "
		    "path; the remote socket is BOX_REMOTE_SOCKET)");
	at = memchr(p, '@', (size_t)(end - p));
	if (at != NULL) {
		if ((rc = take_user(p, (size_t)(at - p), u, e)) < 0)
			return rc;
		p = at + 1;
		if (memchr(p, '@', (size_t)(end - p)) != NULL)
			return refuse(e, "one '@' at most");
	}
	if (p < end && *p == '[') {
		h = p + 1;
		he = memchr(h, ']', (size_t)(end - h));
		if (he == NULL)
			return refuse(e, "an IPv6 address has no closing ']'");
		ipv6 = 1;
		p = he + 1;
		if (p < end && *p != ':')
			return refuse(e, "only ':port' may follow ']'");
	} else {
		h = p;
		he = memchr(p, ':', (size_t)(end - p));
		if (he == NULL)
			he = end;
		p = he;
	}
	if (p < end && *p == ':')
		port = p + 1;
	if ((rc = take_host(h, (size_t)(he - h), ipv6, u, e)) < 0)
		return rc;
	if (port != NULL && (rc = take_port(port, (size_t)(end - port), u,
	    e)) < 0)
		return rc;
	return 0;
}

void
remote_url_dest(const struct remote_url *u, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s", u->user, u->user[0] ? "@" : "",
	    u->host);
}

void
remote_url_ssh(const struct remote_url *u, char *buf, size_t cap)
{
	char dest[300];

	remote_url_dest(u, dest, sizeof(dest));
	if (u->port != 0)
		snprintf(buf, cap, "ssh -p %d %s", u->port, dest);
	else
		snprintf(buf, cap, "ssh %s", dest);
}
