/*
 * The daemon probe's image: ustar members box writes, read back by box's
 * own (independent) tar header reader and against the field layout.
 */
#include <string.h>

#include "box/import/tar.h"
#include "host/stack/grant_probe.h"
#include "t.h"

TEST(grant_tar_members_read_back)
{
	static unsigned char buf[8192];
	size_t len = 0;
	const char meta[] = "architecture: x86_64\n";

	CHECK_INT(grant_tar_member(buf, sizeof(buf), &len, "metadata.yaml", '0',
	    NULL, meta, strlen(meta)), 0);
	CHECK_INT(len, 1024);		/* a header and one data block */
	CHECK(tar_header_bad(buf) == NULL);
	CHECK_INT(tar_num(buf + 124, 12), (long long)strlen(meta));
	CHECK_STR((const char *)buf, "metadata.yaml");
	CHECK_INT(buf[156], '0');
	CHECK_MEM(buf + 100, 8, "0000644", 8);
	CHECK_MEM(buf + 512, strlen(meta), meta, strlen(meta));
	CHECK_INT(grant_tar_member(buf, sizeof(buf), &len, "templates", '2',
	    "/run/box-probe.x/tpl", NULL, 0), 0);
	CHECK_INT(len, 1536);		/* a link has no data */
	CHECK(tar_header_bad(buf + 1024) == NULL);
	CHECK_INT(tar_num(buf + 1024 + 124, 12), 0);
	CHECK_INT(buf[1024 + 156], '2');
	CHECK_STR((const char *)buf + 1024 + 157, "/run/box-probe.x/tpl");
	/* The end of the archive: two zero blocks after the last member. */
	for (size_t i = 0; i < 1024; i++)
		if (buf[len + i] != 0) {
			CHECK(buf[len + i] == 0);
			break;
		}
	/* Refused, not truncated: a name of 100 bytes, a full buffer. */
	char longname[101];
	memset(longname, 'a', 100);
	longname[100] = '\0';
	CHECK_INT(grant_tar_member(buf, sizeof(buf), &len, longname, '0', NULL,
	    "", 0), -E2BIG);
	CHECK_INT(grant_tar_member(buf, 2048, &len, "x", '0', NULL, meta,
	    strlen(meta)), -E2BIG);
	CHECK_INT(len, 1536);
}
