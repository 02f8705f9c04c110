/* Unit tests for incus/guest: the guest API's typed decoders. */
#include <errno.h>
#include <string.h>

#include "incus/guest.h"
#include "t.h"

#define S(x) x, sizeof(x) - 1

TEST(guest_info_is_incus_or_not)
{
	struct incus_guest_info i;

	CHECK_INT(incus_guest_parse_info(S("{\"api_version\":\"1.0\","
	    "\"instance_type\":\"virtual-machine\",\"location\":\"h1\"}"),
	    &i), 1);
	CHECK_STR(i.instance_type, "virtual-machine");
	CHECK_STR(i.location, "h1");
	/* JSON, but not Incus's answer */
	CHECK_INT(incus_guest_parse_info(S("{\"api_version\":\"1.0\"}"), &i),
	    0);
	CHECK_INT(incus_guest_parse_info(S("{}"), &i), 0);
	/* not JSON at all */
	CHECK_INT(incus_guest_parse_info(S("hello"), &i), -EBOX_PROTO);
	/* a long location is cut, never overflows */
	CHECK_INT(incus_guest_parse_info(S("{\"api_version\":\"1.0\","
	    "\"instance_type\":\"container\",\"location\":\"aaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaa\"}"), &i), 1);
	CHECK(strlen(i.location) < sizeof(i.location));
}

TEST(guest_nics_only_nics_and_bounded)
{
	struct incus_guest_nic n[2];
	struct box_err e;

	err_clear(&e);
	CHECK_INT(incus_guest_parse_nics(S("{\"root\":{\"type\":\"disk\"},"
	    "\"eth0\":{\"type\":\"nic\",\"network\":\"boxnet\"},"
	    "\"eth1\":{\"type\":\"nic\",\"nictype\":\"bridged\"}}"), n, 2, &e),
	    2);
	CHECK_STR(n[0].name, "eth0");
	CHECK_STR(n[0].network, "boxnet");
	CHECK_STR(n[1].name, "eth1");
	CHECK_STR(n[1].network, "");
	/* at most max; a name too long for a device is skipped */
	CHECK_INT(incus_guest_parse_nics(S("{\"a\":{\"type\":\"nic\"},"
	    "\"b\":{\"type\":\"nic\"},\"c\":{\"type\":\"nic\"}}"), n, 2, &e), 2);
	CHECK_INT(incus_guest_parse_nics(S("{\"a-device-name-too-long\":"
	    "{\"type\":\"nic\"}}"), n, 2, &e), 0);
	CHECK(incus_guest_parse_nics(S("[1,"), n, 2, &e) < 0);
}
