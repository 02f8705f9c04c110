/* Tier detection: admin, restricted, none, from uid and live groups. */
#include <stdlib.h>
#include <string.h>

#include "box/tier.h"
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
	struct incus c;
	struct box_err e;

	unsetenv("INCUS_SOCKET");
	unsetenv("BOX_PROJECT");
	setenv("INCUS_DIR", "/x", 1);
	incus_set_user_default("unix.socket.user", "user-1234");
	err_clear(&e);
	CHECK_INT(incus_init(&c, &e), 0);
	CHECK_STR(c.socket_path, "/x/unix.socket.user");
	CHECK_STR(c.project, "user-1234");
	/* INCUS_SOCKET overrides; the project follows only incus-user's. */
	setenv("INCUS_SOCKET", "/y/unix.socket", 1);
	CHECK_INT(incus_init(&c, &e), 0);
	CHECK_STR(c.socket_path, "/y/unix.socket");
	CHECK_STR(c.project, "");
	setenv("INCUS_SOCKET", "/y/unix.socket.user", 1);
	setenv("BOX_PROJECT", "other", 1);
	CHECK_INT(incus_init(&c, &e), 0);
	CHECK_STR(c.project, "other");
	unsetenv("INCUS_SOCKET");
	unsetenv("BOX_PROJECT");
	unsetenv("INCUS_DIR");
	incus_set_user_default("", "");
	CHECK_INT(incus_init(&c, &e), 0);
	CHECK_STR(c.project, "");
}
