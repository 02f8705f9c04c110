/* Tier detection: admin, restricted, none, from uid and live groups. */
#include <stdlib.h>
#include <string.h>

#include "box/remote/incus_env.h"
#include "box/remote/tier.h"
#include "incus/api.h"
#include "t.h"

TEST(tier_from_groups)
{
	unsigned only_user[] = { 100, 995 }, both[] = { 995, 994 };
	unsigned none[] = { 100, 1000 };

	CHECK_INT(tier_of(0, NULL, 0, 994, 995), TIER_ADMIN);
	CHECK_INT(tier_of(1000, both, 2, 994, 995), TIER_ADMIN);
	CHECK_INT(tier_of(1000, only_user, 2, 994, 995), TIER_RESTRICTED);
	CHECK_INT(tier_of(1000, none, 2, 994, 995), TIER_NONE);
	/* A missing group never matches anything. */
	CHECK_INT(tier_of(1000, only_user, 2, -1, -1), TIER_NONE);
	CHECK_STR(tier_name(TIER_RESTRICTED), "restricted");
}

TEST(tier_user_socket_and_project)
{
	struct incus_env env = { NULL, "/x", NULL, NULL, "unix.socket.user",
	    "user-1234" };
	struct incus_settings s;
	struct box_err e;

	err_clear(&e);
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	CHECK_STR(s.socket_path, "/x/unix.socket.user");
	CHECK_STR(s.project, "user-1234");
	CHECK_STR(s.daemon_dir, "/x");
	/* INCUS_SOCKET overrides; the project follows only incus-user's. */
	env.socket = "/y/unix.socket";
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	CHECK_STR(s.socket_path, "/y/unix.socket");
	CHECK_STR(s.project, "");
	env.socket = "/y/unix.socket.user";
	env.project = "other";
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	CHECK_STR(s.project, "other");
	env = (struct incus_env){ NULL, "/z", NULL, NULL, NULL, NULL };
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	CHECK_STR(s.socket_path, "/z/unix.socket");
	CHECK_STR(s.project, "");
	CHECK_INT(s.timeout_ms, INCUS_TIMEOUT_MS);
}

TEST(incus_env_refusals_reach_only_incus_verbs)
{
	struct incus_env env = { "/s", NULL, "7", NULL, NULL, NULL };
	struct incus_settings s;
	struct incus c;
	struct box_err e;

	err_clear(&e);
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	CHECK_INT(s.timeout_ms, 7000);
	env.timeout = "0";
	CHECK_INT(incus_env_settings(&env, &s, &e) < 0, 1);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK_STR(e.msg, "BOX_IO_TIMEOUT must be whole seconds from 1 to "
	    "3600, not '0'");
	/* kept until a verb opens the client, which fails with it */
	incus_configure(&s, &e);
	err_clear(&e);
	CHECK_INT(incus_init(&c, &e) < 0, 1);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK_STR(e.msg, "BOX_IO_TIMEOUT must be whole seconds from 1 to "
	    "3600, not '0'");
	env = (struct incus_env){ "/s", NULL, NULL, "a/b", NULL, NULL };
	err_clear(&e);
	CHECK_INT(incus_env_settings(&env, &s, &e) < 0, 1);
	CHECK_STR(e.msg, "BOX_PROJECT is not a project name: 'a/b'");
	/* settings that parse: the client is theirs, the unix dialer's */
	env = (struct incus_env){ "/s/unix.socket", NULL, "3", "p", NULL,
	    NULL };
	err_clear(&e);
	CHECK_INT(incus_env_settings(&env, &s, &e), 0);
	incus_configure(&s, NULL);
	CHECK_INT(incus_init(&c, &e), 0);
	CHECK_STR(c.socket_path, "/s/unix.socket");
	CHECK_STR(c.project, "p");
	CHECK_INT(c.timeout_ms, 3000);
	CHECK_INT(c.dialer == &unix_dialer, 1);
	incus_close(&c);
}
