/*
 * test_idle.c - idle-stop (box/life/idle.h): durations, marks, the judgement
 * against hand-worked cases, and the daemon's sessions read from a reply
 * shaped as Incus 6.0 sends it.
 */
#include <stdlib.h>

#include "box/life/idle.h"
#include "box/life/vet.h"
#include "incus/json.h"
#include "incus/operation.h"
#include "t.h"

TEST(idle_duration_forms)
{
	char why[80];
	long s = 0;

	CHECK_INT(idle_duration("90s", &s, why, sizeof(why)), 0);
	CHECK_INT(s, 90);
	CHECK_INT(idle_duration("30m", &s, why, sizeof(why)), 0);
	CHECK_INT(s, 1800);
	CHECK_INT(idle_duration("2h", &s, why, sizeof(why)), 0);
	CHECK_INT(s, 7200);
	CHECK_INT(idle_duration("1d", &s, why, sizeof(why)), 0);
	CHECK_INT(s, 86400);
	CHECK_INT(idle_duration("45", &s, why, sizeof(why)), 0);
	CHECK_INT(s, 45);
	CHECK_INT(idle_duration("0s", &s, why, sizeof(why)), -1);
	CHECK_INT(idle_duration("-5m", &s, why, sizeof(why)), -1);
	CHECK_INT(idle_duration("2hours", &s, why, sizeof(why)), -1);
	CHECK_INT(idle_duration("h", &s, why, sizeof(why)), -1);
	CHECK_INT(idle_duration("400d", &s, why, sizeof(why)), -1);
	CHECK_INT(idle_duration("99999999999999999999", &s, why,
	    sizeof(why)), -1);
}

TEST(idle_mark_round_trip)
{
	struct idle_mark m;

	CHECK_INT(idle_mark_parse("100:5000:160", &m), 0);
	CHECK_INT(m.last, 100);
	CHECK_INT(m.cpu_ns, 5000);
	CHECK_INT(m.at, 160);
	CHECK_INT(m.session, 0);
	CHECK_INT(idle_mark_parse("100:5000:160:1", &m), 0);
	CHECK_INT(m.session, 1);
	CHECK_INT(idle_mark_parse("100:5000:160:2", &m), -1);
	CHECK_INT(idle_mark_parse("100:5000:160:", &m), -1);
	CHECK_INT(idle_mark_parse("100:5000", &m), -1);
	CHECK_INT(idle_mark_parse("100:5000:50", &m), -1);	/* at < last */
	CHECK_INT(idle_mark_parse("a:1:2", &m), -1);
	CHECK_INT(idle_mark_parse("1:2:3x", &m), -1);
	CHECK_INT(idle_mark_parse("", &m), -1);
}

TEST(idle_judge_cases)
{
	struct idle_mark m = { 0, 0, 0, 0 };

	/* the first check only marks */
	CHECK_INT(idle_judge(&m, 0, 1000, 7000000000LL, 0, 900, 600), 0);
	CHECK_INT(m.last, 1000);
	CHECK_INT(m.at, 1000);
	/* 700 s on, 0.1 s of CPU (well under 2% of 600 s): idle, stop */
	CHECK_INT(idle_judge(&m, 1, 1700, 7100000000LL, 0, 900, 600), 1);
	/* the same, but a session is open: active */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1700, 7100000000LL, 1, 900, 600), 0);
	CHECK_INT(m.last, 1700);
	/* 13 s of CPU over the window of 600 s (> 12 s): active */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1700, 20000000000LL, 0, 900, 600), 0);
	/* 11 s: under 2% of 600 s, idle */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1700, 18000000000LL, 0, 900, 600), 1);
	/* started since the mark: active, whatever the counter says */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1700, 7100000000LL, 0, 1200, 600), 0);
	/* the counter went back (a restart): active */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1700, 100, 0, 900, 600), 0);
	/* idle, but not yet long enough: kept, its last activity kept */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 0 };
	CHECK_INT(idle_judge(&m, 1, 1300, 7000000001LL, 0, 900, 600), 0);
	CHECK_INT(m.last, 1000);
	CHECK_INT(idle_judge(&m, 1, 1601, 7000000002LL, 0, 900, 600), 1);
	/* a session at the last check, none now: still active now */
	m = (struct idle_mark){ 1000, 7000000000LL, 1000, 1 };
	CHECK_INT(idle_judge(&m, 1, 1700, 7000000001LL, 0, 900, 600), 0);
	CHECK_INT(m.last, 1700);
	CHECK_INT(m.session, 0);
	CHECK_INT(idle_judge(&m, 1, 2300, 7000000002LL, 0, 900, 600), 1);
}

TEST(idle_sessions_from_the_daemons_operations)
{
	static const char r[] = "{\"running\":["
	    "{\"class\":\"websocket\",\"status\":\"Running\",\"resources\":"
	    "{\"instances\":[\"/1.0/instances/w-1\"],\"containers\":"
	    "[\"/1.0/containers/w-1\"]}},"
	    "{\"class\":\"task\",\"status\":\"Running\",\"resources\":"
	    "{\"instances\":[\"/1.0/instances/w-2\"]}},"
	    "{\"class\":\"websocket\",\"status\":\"Running\",\"resources\":"
	    "{\"instances\":[\"/1.0/instances/w-3?project=p\","
	    "\"/1.0/instances/w-1\",\"/1.0/instances/a/b\"]}},"
	    "{\"class\":\"websocket\",\"status\":\"Cancelling\",\"resources\":"
	    "{\"instances\":[\"/1.0/instances/w-4\"]}}],"
	    "\"success\":[{\"class\":\"websocket\",\"status\":\"Success\","
	    "\"resources\":{\"instances\":[\"/1.0/instances/w-5\"]}}]}";
	struct json_doc d;
	char v[4][64];
	int n = -1;

	struct box_err e;

	err_clear(&e);
	CHECK_INT(json_parse(&d, r, sizeof(r) - 1, &e), 0);
	CHECK_INT(incus_sessions_from_json(&d, 0, v, 4, &n), 0);
	CHECK_INT(n, 2);
	CHECK_STR(v[0], "w-1");
	CHECK_STR(v[1], "w-3");
	json_free(&d);
}

TEST(idle_stamps_in_an_import_are_held_to_their_grammar)
{
	CHECK(vet_key("user.box.idle-stop", "7200", 0) == NULL);
	CHECK_STR(vet_key("user.box.idle-stop", "2h", 0),
	    "not a count of seconds");
	CHECK(vet_key("user.box.idle.mark", "100:5000:160:1", 0) == NULL);
	CHECK_STR(vet_key("user.box.idle.mark", "1:2:3\x1b[2J", 0),
	    "not an idle mark");
}
