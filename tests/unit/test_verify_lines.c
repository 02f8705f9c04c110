/* Unit tests for box verify's plan and report records (util/lines.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/verify/verify.h"
#include "box/verify/verify_test.h"
#include "t.h"
#include "util/err.h"

#define S(x) x, sizeof(x) - 1

struct seen {
	int n;
	char id[4][VERIFY_ID], v[4][VERIFY_VERDICT];
};

static void
see(void *arg, const char *id, const char *v)
{
	struct seen *s = arg;

	if (s->n < 4) {
		snprintf(s->id[s->n], sizeof(s->id[0]), "%s", id);
		snprintf(s->v[s->n], sizeof(s->v[0]), "%s", v);
	}
	s->n++;
}

TEST(verify_report_record)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	CHECK_INT(verify_report_parse(S("verify-report 1\nr lan1\nv blocked "
	    "no answer in 2000 ms\nr wan\nv reached 1.2.3.4:443\n"), see, &s),
	    0);
	CHECK_INT(s.n, 2);
	CHECK_STR(s.id[0], "lan1");
	CHECK_STR(s.v[0], "blocked no answer in 2000 ms");
	CHECK_STR(s.v[1], "reached 1.2.3.4:443");
	/* a verdict without its id, or a second one, is not taken */
	memset(&s, 0, sizeof(s));
	CHECK_INT(verify_report_parse(S("verify-report 1\nv reached x\nr a\n"
	    "v blocked\nv reached\n"), see, &s), 0);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.v[0], "blocked");
	/* not a report: JSON, another version, an id too long, a NUL */
	CHECK_INT(verify_report_parse(S("{\"results\":[]}"), see, &s),
	    -EBOX_PROTO);
	CHECK_INT(verify_report_parse(S("verify-report 2\n"), see, &s),
	    -EBOX_PROTO);
	CHECK_INT(verify_report_parse(S("verify-report 1\nr "
	    "an-id-far-too-long-for-us\n"), see, &s), -EBOX_PROTO);
	CHECK_INT(verify_report_parse(S("verify-report 1\nr a\0\n"), see, &s),
	    -EBOX_PROTO);
}

TEST(verify_plan_record)
{
	CHECK_INT(verify_plan_count(S("verify-plan 1\nt 2000\np lan1\nk tcp\n"
	    "a 10.0.0.1\nport 22\np dns\nk name\nn example.org\n")), 2);
	/* fields before any probe are ignored; an empty plan is a plan */
	CHECK_INT(verify_plan_count(S("verify-plan 1\nk tcp\n")), 0);
	CHECK_INT(verify_plan_count(S("{\"t\":2000,\"p\":[]}")), -EBOX_PROTO);
	CHECK_INT(verify_plan_count(S("verify-plan 1\nBAD key\n")),
	    -EBOX_PROTO);
}
