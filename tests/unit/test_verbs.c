/*
 * test_verbs.c - `all` as a box name (reserved, refused for new names),
 * the verb table's new rows, and the in-box doctor report written whole.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box/each.h"
#include "box/life/life.h"
#include "cmd/cmd.h"
#include "cmd/cmd_test.h"
#include "host/doctor/doctor.h"
#include "t.h"

TEST(all_is_reserved)
{
	struct box_err e;

	CHECK(box_is_all("all"));
	CHECK(!box_is_all("All"));
	CHECK(!box_is_all("all1"));
	err_clear(&e);
	CHECK_INT(box_new_name_ok("all", "", &e), -EINVAL);
	CHECK(e.status == ERR_USAGE);
	CHECK(strstr(e.msg, "every box") != NULL);
	err_clear(&e);
	CHECK_INT(box_new_name_ok("1bad", "", &e), -EINVAL);
	err_clear(&e);
	CHECK_INT(box_new_name_ok("allow", "", &e), 0);
	CHECK_INT(box_new_name_ok("work", "", &e), 0);
}

TEST(verbs_restart_root_listed)
{
	char syn[400];

	CHECK(verb_find("restart") != NULL);
	CHECK(verb_find("root") != NULL);
	CHECK_INT(verb_synopsis(verb_find("down"), syn, sizeof(syn)), 0);
	CHECK(strstr(syn, "all") != NULL);
	CHECK_INT(verb_synopsis(verb_find("start"), syn, sizeof(syn)), 0);
	CHECK(strstr(syn, "all") != NULL);
	CHECK_INT(verb_synopsis(verb_find("import"), syn, sizeof(syn)), 0);
	CHECK(strstr(syn, "--force") != NULL);
}

TEST(doctor_report_saved_whole)
{
	struct dr_report r;
	struct box_err e;
	char dir[] = "/tmp/box-ut-report.XXXXXX", path[96], part[112];
	char buf[8192];
	ssize_t n;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	snprintf(part, sizeof(part), "%s.part", path);
	CHECK_INT(dr_report_init(&r), 0);
	r.where = DR_INSIDE;
	dr_add(&r, "lease", "this box", DR_PASS, NULL, "eth0 holds %s",
	    "10.88.0.4/24");
	err_clear(&e);
	setenv(LIFE_REPORT_ENV, path, 1);
	CHECK_INT(dr_report_save(&r, &e), 0);
	CHECK(access(part, F_OK) != 0);	/* renamed into place */
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strncmp(buf, "box-doctor-report 1\n", 20) == 0);
	CHECK(strstr(buf, "10.88.0.4/24") != NULL);
	err_clear(&e);
	setenv(LIFE_REPORT_ENV, "relative.json", 1);
	CHECK_INT(dr_report_save(&r, &e), -EINVAL);
	unsetenv(LIFE_REPORT_ENV);
	dr_report_free(&r);
	unlink(path);
	rmdir(dir);
}
