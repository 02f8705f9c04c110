/* --remote: the ssh:// reader (each part lands on ssh's command line) and
 * the one table that says where each verb runs. */
#include <stdio.h>
#include <string.h>

#include "box/remote/remote.h"
#include "box/remote/remote_url.h"
#include "cmd/cmd.h"
#include "t.h"

static int
parse(const char *s, struct remote_url *u, struct box_err *e)
{
	err_clear(e);
	return remote_url_parse(s, u, e);
}

TEST(remote_url_parts)
{
	struct remote_url u;
	struct box_err e;
	char b[400];

	CHECK_INT(parse("ssh://host.example", &u, &e), 0);
	CHECK_STR(u.host, "host.example");
	CHECK_STR(u.user, "");
	CHECK_INT(u.port, 0);
	CHECK_INT(parse("ssh://admin@host.example:2222", &u, &e), 0);
	CHECK_STR(u.user, "admin");
	CHECK_STR(u.host, "host.example");
	CHECK_INT(u.port, 2222);
	remote_url_ssh(&u, b, sizeof(b));
	CHECK_STR(b, "ssh -p 2222 admin@host.example");
	CHECK_INT(parse("ssh://root@10.0.0.2/", &u, &e), 0);
	CHECK_STR(u.host, "10.0.0.2");
	remote_url_ssh(&u, b, sizeof(b));
	CHECK_STR(b, "ssh root@10.0.0.2");
	CHECK_INT(parse("ssh://[::1]:22", &u, &e), 0);
	CHECK_STR(u.host, "::1");
	CHECK_INT(u.ipv6, 1);
	CHECK_INT(u.port, 22);
	CHECK_INT(parse("ssh://me@[fd26:26::2]", &u, &e), 0);
	CHECK_STR(u.host, "fd26:26::2");
	CHECK_STR(u.user, "me");
	CHECK_INT(u.port, 0);
	CHECK_INT(parse("ssh://[::ffff:10.0.0.1]:65535", &u, &e), 0);
	CHECK_INT(u.port, 65535);
	CHECK_INT(parse("ssh://my_box-1", &u, &e), 0);	/* a config alias */
	CHECK_INT(parse("ssh://a.b-c_d@h", &u, &e), 0);
	CHECK_STR(u.user, "a.b-c_d");
}

/* Every refusal is a usage error (exit 2) with a message and the form. */
static void
refused(const char *s, const char *why)
{
	struct remote_url u;
	struct box_err e;

	if (parse(s, &u, &e) != -EINVAL || e.status != ERR_USAGE ||
	    strstr(e.msg, why) == NULL || strstr(e.fix, "ssh://") == NULL)
		t_fail(__FILE__, __LINE__, "'%s': rc %d, '%s', want '%s'", s,
		    e.code, e.msg, why);
}

TEST(remote_url_refusals)
{
	refused("host", "only ssh://");
	refused("http://host", "only ssh://");
	refused("https://host:443", "only ssh://");
	refused("unix:///var/lib/incus/unix.socket", "only ssh://");
	refused("SSH://host", "only ssh://");
	refused("ssh:/host", "only ssh://");
	refused("ssh://", "no host");
	refused("ssh://user@", "no host");
	refused("ssh://@host", "the user must be 1 to 32");
	refused("ssh://host:", "the port");
	refused("ssh://host:0", "the port");
	refused("ssh://host:022", "the port");
	refused("ssh://host:65536", "the port");
	refused("ssh://host:99999999999", "the port");
	refused("ssh://host:-1", "the port");
	refused("ssh://host:+22", "the port");
	refused("ssh://host:22:22", "the port");
	refused("ssh://host/var/lib/incus/unix.socket", "nothing may follow");
	refused("ssh://host?x=1", "nothing may follow");
	refused("ssh://host#frag", "nothing may follow");
	refused("ssh://a@b@host", "one '@' at most");
	refused("ssh://::1", "no host");
	refused("ssh://[::1", "no closing ']'");
	refused("ssh://[::1]x", "only ':port' may follow");
	refused("ssh://[host]", "only an IPv6 address goes in brackets");
	refused("ssh://[fe80::1%eth0]", "no zone");
	refused("ssh://host name", "a host name holds only");
	refused("ssh://host\tname", "a host name holds only");
	refused("ssh://host\nProxyCommand x", "a host name holds only");
	refused("ssh://ho%hst", "a host name holds only");
	refused("ssh://h'ost", "a host name holds only");
	refused("ssh://.host", "must begin with a letter or a digit");
	refused("ssh://us er@host", "the user may hold only");
	refused("ssh://us%r@host", "the user may hold only");
	refused("ssh://abcdefghijabcdefghijabcdefghijabc@host",
	    "the user must be 1 to 32");
}

/* ssh argument injection: nothing that ssh could read as an option. */
TEST(remote_url_injection)
{
	refused("ssh://-oProxyCommand=sh", "a host must begin with a letter");
	refused("ssh://-oProxyCommand=touch%20x", "a host must begin");
	refused("ssh://root@-oProxyCommand=x", "a host must begin");
	refused("ssh://-oProxyCommand=x@host", "a user may not begin with '-'");
	refused("ssh://-l@host", "a user may not begin with '-'");
	refused("ssh://-@host", "a user may not begin with '-'");
	refused("ssh://[-1::]", "an IPv6 address holds only");
	refused("ssh://-", "a host must begin");
	refused("ssh://--", "a host must begin");
}

TEST(remote_args)
{
	struct remote_url u;
	struct box_err e;
	char a0[] = "box", a1[] = "--remote", a2[] = "ssh://h:22",
	    a3[] = "list", a4[] = "--json";
	char b1[] = "--remote=ssh://u@h", b2[] = "ls";
	char c1[] = "--remote";
	char *v[] = { a0, a1, a2, a3, a4, NULL };
	char *w[] = { a0, b1, b2, NULL };
	char *x[] = { a0, c1, NULL };
	int n = 5;

	err_clear(&e);
	CHECK_INT(remote_from_args(&n, v, &u, &e), 1);
	CHECK_INT(n, 3);
	CHECK_STR(v[1], "list");
	CHECK_STR(v[2], "--json");
	CHECK(v[3] == NULL);
	CHECK_STR(u.host, "h");
	n = 3;
	CHECK_INT(remote_from_args(&n, w, &u, &e), 1);
	CHECK_INT(n, 2);
	CHECK_STR(w[1], "ls");
	CHECK_STR(u.user, "u");
	n = 2;
	CHECK_INT(remote_from_args(&n, x, &u, &e), -EINVAL);
}

/* One row per verb: a verb added without deciding fails here. */
TEST(remote_table_covers_every_verb)
{
	const struct verb *v;

	for (v = box_verbs; v->name != NULL; v++)
		if (remote_how(v->name) == 0)
			t_fail(__FILE__, __LINE__, "verb %s has no row in "
			    "remote_table (box/remote/remote.c)", v->name);
	CHECK_INT(remote_how("list"), RH_API);
	CHECK_INT(remote_how("new"), RH_API);
	CHECK_INT(remote_how("setup-host"), RH_HOST);
	CHECK_INT(remote_how("firewall"), RH_HOST);
	CHECK_INT(remote_how("grant"), RH_HOST);
	CHECK_INT(remote_how("doctor"), RH_HOST);
	CHECK_INT(remote_how("uninstall"), RH_REFUSE);
	CHECK_INT(remote_how("help"), RH_LOCAL);
	CHECK_INT(remote_how("no-such"), 0);
}
