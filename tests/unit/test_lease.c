/*
 * The host's DHCP records as box list reads them (src/box/lease.c): the
 * lease file, the lease time in Incus's dnsmasq record, and the verdict
 * that shows an address only when it is known to be right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box/remote/incus_env.h"
#include "box/lease.h"
#include "t.h"

static const unsigned char MAC_A[6] = { 0x10, 0x66, 0x6a, 0x36, 0x4c, 0x08 };
static const unsigned char MAC_B[6] = { 0x10, 0x66, 0x6a, 0xf2, 0x1f, 0x30 };
static const unsigned char MAC_C[6] = { 0x10, 0x66, 0x6a, 0x00, 0x00, 0x01 };

static const char LEASES[] =
    "1796122216 10:66:6a:f2:1f:30 10.88.0.3 * ff:6a:f2:1f:30:00:01\n"
    "1796122202 10:66:6a:36:4c:08 10.88.0.2 * 01:10:66:6a:36:4c:08\n"
    "duid 00:01:00:01:2c:5a:1b:2f:10:66:6a:00:00:00\n"
    "1796122202 10:66:6a:00:00:01 10.88.0.9 host 01:10:66:6a:00:00:01\n"
    "1796122299 10:66:6a:00:00:01 10.88.0.10 host 01:10:66:6a:00:00:01\n"
    "garbage line\n"
    "1796122202 10:66:6a:zz:00:01 10.88.0.11 * *\n"
    "1796122202 10:66:6a:00:00:02 10.88.0.300 * *\n"
    "1796122202 10:66:6a:00:00:03 10.88.0.12";	/* no newline at the end */

TEST(lease_parse_skips_what_is_not_a_lease)
{
	struct leases l;

	CHECK_INT(lease_parse(LEASES, strlen(LEASES), &l), 0);
	CHECK_INT(l.n, 5);
	CHECK_INT(l.v[0].expiry, 1796122216);
	CHECK(memcmp(l.v[0].mac, MAC_B, 6) == 0);
	CHECK_INT(l.v[0].addr, 0x0a580003);
	CHECK_INT(l.v[4].addr, 0x0a58000c);
	lease_free(&l);
	CHECK_INT(lease_parse("", 0, &l), 0);
	CHECK_INT(l.n, 0);
	lease_free(&l);
}

TEST(lease_duration_forms)
{
	long long s = -1;

	CHECK_INT(lease_duration("1h", &s), 0);
	CHECK_INT(s, 3600);
	CHECK_INT(lease_duration("45m", &s), 0);
	CHECK_INT(s, 2700);
	CHECK_INT(lease_duration("120", &s), 0);
	CHECK_INT(s, 120);
	CHECK_INT(lease_duration("2d", &s), 0);
	CHECK_INT(s, 172800);
	CHECK_INT(lease_duration("infinite", &s), 0);
	CHECK_INT(s, 0);
	CHECK_INT(lease_duration("", &s), -EINVAL);
	CHECK_INT(lease_duration("h", &s), -EINVAL);
	CHECK_INT(lease_duration("0", &s), -EINVAL);
	CHECK_INT(lease_duration("1x", &s), -EINVAL);
	CHECK_INT(lease_duration("10.88.0.1", &s), -EINVAL);
}

TEST(lease_time_from_incus_record)
{
	static const char rec[] =
	    "name: dnsmasq\n"
	    "args: [--keep-in-foreground, --interface=boxnet,\n"
	    "  --dhcp-hostsfile=/var/lib/incus/networks/boxnet/dnsmasq.hosts, "
	    "--dhcp-range, '10.88.0.2,10.88.0.254,45m',\n"
	    "  --conf-file=/var/lib/incus/networks/boxnet/dnsmasq.raw, -u, "
	    "nobody]\npid: 5454\n";
	static const char v6first[] =
	    "args: [--dhcp-range, '::,constructor:boxnet,ra-only', "
	    "--dhcp-range, '10.0.0.2,10.0.0.9,infinite']\n";
	static const char nolease[] =
	    "args: [--dhcp-range, '10.0.0.2,10.0.0.9']\n";
	static const char none[] = "args: [--interface=x]\n";
	long long s = -1;

	CHECK_INT(lease_time_from_record(rec, strlen(rec), &s), 0);
	CHECK_INT(s, 2700);
	CHECK_INT(lease_time_from_record(v6first, strlen(v6first), &s), 0);
	CHECK_INT(s, 0);
	CHECK_INT(lease_time_from_record(nolease, strlen(nolease), &s), 0);
	CHECK_INT(s, 3600);
	CHECK_INT(lease_time_from_record(none, strlen(none), &s), -ENOENT);
}

TEST(lease_iso_time_utc)
{
	long long s = 0;

	CHECK_INT(lease_iso_time("2026-12-01T09:50:01.121407676Z", &s), 0);
	CHECK_INT(s, 1796118601);
	CHECK_INT(lease_iso_time("2026-12-01T09:50:01Z", &s), 0);
	CHECK_INT(s, 1796118601);
	CHECK_INT(lease_iso_time("2026-12-01T09:50:01+01:00", &s), -EINVAL);
	CHECK_INT(lease_iso_time("0001-01-01T00:00:00Z", &s), -EINVAL);
	CHECK_INT(lease_iso_time("", &s), -EINVAL);
}

TEST(lease_judge_shows_only_a_right_address)
{
	struct lease_pin none = { 0, 0 }, pinned = { 1, 0x0a580002 };
	struct lease_pin other = { 1, 0x0a580063 }, foreign = { -1, 0 };
	char why[256];
	uint32_t a = 0;
	struct leases l;
	/* MAC_A's lease was granted at 1796122202 - 3600 = 1796118602. */
	long long before = 1796118600, after = 1796118700;

	CHECK_INT(lease_parse(LEASES, strlen(LEASES), &l), 0);
	CHECK_INT(lease_judge(&l, MAC_A, before, 3600, &none, &a, why,
	    sizeof(why)), 1);
	CHECK_INT(a, 0x0a580002);
	CHECK_INT(lease_judge(&l, MAC_A, before, 3600, &pinned, &a, why,
	    sizeof(why)), 1);
	/* Restarted after the lease: it has not asked again yet. */
	CHECK_INT(lease_judge(&l, MAC_A, after, 3600, &pinned, &a, why,
	    sizeof(why)), 0);
	CHECK(strstr(why, "before its last start") != NULL);
	/* A lease on another address than the one Incus pinned. */
	CHECK_INT(lease_judge(&l, MAC_A, before, 3600, &other, &a, why,
	    sizeof(why)), 0);
	CHECK(strstr(why, "pinned 10.88.0.99") != NULL);
	CHECK_INT(lease_judge(&l, MAC_A, before, 3600, &foreign, &a, why,
	    sizeof(why)), 0);
	CHECK(strstr(why, "another MAC") != NULL);
	/* Two leases for one MAC: which is live is unknown. */
	CHECK_INT(lease_judge(&l, MAC_C, before, 3600, &none, &a, why,
	    sizeof(why)), 0);
	CHECK(strstr(why, "2 DHCP leases") != NULL);
	CHECK_INT(lease_judge(&l, (const unsigned char *)"\1\2\3\4\5\6",
	    before, 3600, &none, &a, why, sizeof(why)), 0);
	CHECK(strstr(why, "no DHCP lease") != NULL);
	/* An infinite lease time: the records cannot tell. */
	CHECK_INT(lease_judge(&l, MAC_A, before, 0, &none, &a, why,
	    sizeof(why)), -ENOTSUP);
	lease_free(&l);
}

TEST(lease_paths_honour_incus_dir)
{
	char p[256];

	setenv("INCUS_DIR", "/srv/incus", 1);
	incus_env_apply(NULL, NULL);	/* main's part: read it once */
	CHECK_INT(lease_path("boxnet", "dnsmasq.leases", p, sizeof(p)), 0);
	CHECK_STR(p, "/srv/incus/networks/boxnet/dnsmasq.leases");
	unsetenv("INCUS_DIR");
	incus_env_apply(NULL, NULL);
	CHECK_INT(lease_path("boxnet", "dnsmasq.pid", p, sizeof(p)), 0);
	CHECK_STR(p, "/var/lib/incus/networks/boxnet/dnsmasq.pid");
	CHECK_INT(lease_path("../etc", "x", p, sizeof(p)), -EINVAL);
	CHECK_INT(lease_path("a/b", "x", p, sizeof(p)), -EINVAL);
}

/*
 * A copy's pinned address is checked against every other pin on its
 * network (box/life/waits.c): the holder is named, its own file and anything
 * that is not a pin are passed over.
 */
static void
put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(lease_pin_holder_names_another_pin)
{
	char root[] = "/tmp/box-pins.XXXXXX", d[256], who[64], cmd[300];
	struct lease_pin pin;

	CHECK(mkdtemp(root) != NULL);
	snprintf(d, sizeof(d), "%s/networks", root);
	CHECK_INT(mkdir(d, 0700), 0);
	snprintf(d, sizeof(d), "%s/networks/boxnet", root);
	CHECK_INT(mkdir(d, 0700), 0);
	snprintf(d, sizeof(d), "%s/networks/boxnet/dnsmasq.hosts", root);
	CHECK_INT(mkdir(d, 0700), 0);
	put(d, "new.eth0", "10:66:6a:36:4c:08,10.88.0.7\n");
	put(d, "old.eth0", "10:66:6a:f2:1f:30,10.88.0.5,old\n");
	put(d, "p_other.eth0", "10:66:6a:00:00:01,10.88.0.9\n");
	put(d, "junk.eth0", "not a pin\n");
	setenv("INCUS_DIR", root, 1);
	incus_env_apply(NULL, NULL);
	CHECK_INT(lease_read_pin_hw("boxnet", "new", "eth0",
	    "10:66:6a:36:4c:08", &pin), 0);
	CHECK_INT(pin.state, 1);
	CHECK(pin.addr == (10u << 24 | 88u << 16 | 7));
	CHECK_INT(lease_read_pin_hw("boxnet", "new", "eth0", "10:66:6a",
	    &pin), -EINVAL);
	CHECK_INT(lease_pin_holder("boxnet", "new.eth0", pin.addr, who,
	    sizeof(who)), 0);
	CHECK_STR(who, "");
	CHECK_INT(lease_pin_holder("boxnet", "new.eth0",
	    10u << 24 | 88u << 16 | 5, who, sizeof(who)), 0);
	CHECK_STR(who, "old");
	CHECK_INT(lease_pin_holder("boxnet", "new.eth0",
	    10u << 24 | 88u << 16 | 9, who, sizeof(who)), 0);
	CHECK_STR(who, "p_other");
	/* its own file is not another holder */
	CHECK_INT(lease_pin_holder("boxnet", "old.eth0",
	    10u << 24 | 88u << 16 | 5, who, sizeof(who)), 0);
	CHECK_STR(who, "");
	CHECK_INT(lease_pin_holder("nonet", "new.eth0", pin.addr, who,
	    sizeof(who)), -ENOENT);
	unsetenv("INCUS_DIR");
	incus_env_apply(NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}
