/*
 * remote_url.h - the --remote address: ssh://[user@]host[:port].
 *
 * The parts become separate ssh arguments (-l user, -p port, and the
 * host after "--"), so every part is held to a charset that cannot be
 * read as an option or a token: a user or host that begins with '-' is
 * an argument injection (ssh -oProxyCommand=...), and is refused, as are
 * '%' (ssh's own tokens), whitespace, quotes and every control byte.
 *
 *   user  [A-Za-z0-9._-], 1..32, not starting with '-'
 *   host  a name: [A-Za-z0-9._-], 1..253, starting with a letter or digit;
 *         or an IPv6 address in brackets: [0-9a-fA-F:.], with a ':'
 *   port  decimal 1..65535 (absent: ssh's own choice, usually 22)
 * Nothing may follow but one optional '/'.
 */
#ifndef BOX_REMOTE_URL_H
#define BOX_REMOTE_URL_H

#include <stddef.h>

#include "util/err.h"

struct remote_url {
	char user[33];		/* "" = ssh's own choice (config, login) */
	char host[254];		/* without the brackets of an IPv6 address */
	int port;		/* 0 = ssh's own choice */
	int ipv6;
};

/* Parse s: 0, or a usage error (-EINVAL) naming what is wrong. */
int remote_url_parse(const char *s, struct remote_url *u, struct box_err *e);

/* "[user@]host" for ssh and for messages, IPv6 without brackets. */
void remote_url_dest(const struct remote_url *u, char *buf, size_t cap);

/* The command a person runs there: "ssh [-p N] [user@]host". */
void remote_url_ssh(const struct remote_url *u, char *buf, size_t cap);

#endif
