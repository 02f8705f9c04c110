/* volatile.idmap.* values read into typed entries, strictly (incus/idmap.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box/life/vet.h"
#include "incus/idmap.h"
#include "util/err.h"
#include "t.h"

#define E(u, g, h, n, r) "{\"Isuid\":" u ",\"Isgid\":" g ",\"Hostid\":" h \
	",\"Nsid\":" n ",\"Maprange\":" r "}"

static int
parse(const char *s, size_t *n)
{
	struct incus_idmap m[INCUS_IDMAP_MAX];

	return incus_idmap_parse(s, m, INCUS_IDMAP_MAX, n);
}

TEST(idmap_reads_the_entries_incus_writes)
{
	struct incus_idmap m[4];
	size_t n = 9;

	CHECK_INT(incus_idmap_parse("[" E("true", "false", "1000000", "0",
	    "1000000000") "," E("false", "true", "1065536", "-1", "1") "]", m,
	    4, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(m[0].isuid, 1);
	CHECK_INT(m[0].isgid, 0);
	CHECK_INT(m[0].hostid, 1000000);
	CHECK_INT(m[0].nsid, 0);
	CHECK_INT(m[0].maprange, 1000000000);
	CHECK_INT(m[1].isuid, 0);
	CHECK_INT(m[1].isgid, 1);
	CHECK_INT(m[1].nsid, -1);	/* a number: the policy judges it */
	CHECK_INT(incus_idmap_parse("[]", m, 4, &n), 0);
	CHECK_INT(n, 0);
	/* members in any order */
	CHECK_INT(incus_idmap_parse("[{\"Maprange\":1,\"Nsid\":0,\"Hostid\":"
	    "70000,\"Isgid\":true,\"Isuid\":true}]", m, 4, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(m[0].hostid, 70000);
}

TEST(idmap_refuses_anything_but_exactly_five_typed_members)
{
	static const char *const bad[] = {
		"", "not json", "{}", "[1]", "[[]]", "\"[]\"", "[{}]",
		"[" E("true", "true", "1", "0", "1") "]x",
		/* four, six, a repeat in place of one, a case-folded name */
		"[{\"Isuid\":true,\"Isgid\":true,\"Hostid\":1,\"Nsid\":0}]",
		"[{\"Isuid\":true,\"Isgid\":true,\"Hostid\":1,\"Nsid\":0,"
		    "\"Maprange\":1,\"X\":0}]",
		"[{\"Isuid\":true,\"Isuid\":true,\"Hostid\":1,\"Nsid\":0,"
		    "\"Maprange\":1}]",
		"[{\"isuid\":true,\"Isgid\":true,\"Hostid\":1,\"Nsid\":0,"
		    "\"Maprange\":1}]",
		/* wrong types */
		"[" E("1", "true", "1", "0", "1") "]",
		"[" E("true", "null", "1", "0", "1") "]",
		"[" E("true", "true", "\"1\"", "0", "1") "]",
		"[" E("true", "true", "1", "0.5", "1") "]",
		"[" E("true", "true", "1", "0", "1e3") "]",
		"[" E("true", "true", "99999999999999999999", "0", "1") "]",
		"[" E("true", "true", "1", "0", "1") ",7]",
	};
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 9;
		if (parse(bad[i], &n) != -EBOX_PROTO || n != 0)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
	}
}

TEST(idmap_holds_at_most_sixteen_and_never_more_than_cap)
{
	struct incus_idmap m[INCUS_IDMAP_MAX + 1];
	char s[64 * (INCUS_IDMAP_MAX + 2)];
	size_t i, len = 0, n;

	s[len++] = '[';
	for (i = 0; i < INCUS_IDMAP_MAX; i++)
		len += (size_t)snprintf(s + len, sizeof(s) - len, "%s" E("true",
		    "true", "%zu", "0", "1"), i ? "," : "", 65536 + i);
	snprintf(s + len, sizeof(s) - len, "]");
	CHECK_INT(incus_idmap_parse(s, m, INCUS_IDMAP_MAX + 1, &n), 0);
	CHECK_INT(n, INCUS_IDMAP_MAX);
	CHECK_INT(m[15].hostid, 65536 + 15);
	CHECK_INT(incus_idmap_parse(s, m, 3, &n), -EBOX_PROTO);
	CHECK_INT(n, 0);
	snprintf(s + len, sizeof(s) - len, "," E("true", "true", "1", "0",
	    "1") "]");
	CHECK_INT(incus_idmap_parse(s, m, INCUS_IDMAP_MAX + 1, &n),
	    -EBOX_PROTO);
	CHECK_INT(n, 0);
}

/* The policy stays box/life/vet.c's: onto host ids >= 65536, within 2^32. */
TEST(vet_judges_the_parsed_idmap)
{
	static const char *const k = "volatile.idmap.next";

	CHECK(vet_key(k, "[" E("true", "true", "65536", "0", "65536") "]",
	    0) == NULL);
	CHECK(vet_key(k, "[" E("true", "true", "4294901760", "0", "65536")
	    "]", 0) == NULL);
	CHECK_STR(vet_key(k, "[" E("true", "true", "65535", "0", "1") "]", 0),
	    "maps the box onto host ids below 65536");
	CHECK_STR(vet_key(k, "[" E("true", "false", "100000", "0", "1") ","
	    E("false", "true", "0", "0", "65536") "]", 0),
	    "maps the box onto host ids below 65536");
	CHECK_STR(vet_key(k, "[" E("true", "true", "4294901760", "0", "65537")
	    "]", 0), "not an id map");
	/* host + range past 2^63 must not wrap into an accepted map */
	CHECK_STR(vet_key(k, "[" E("true", "true", "9223372036854775807", "0",
	    "9223372036854775807") "]", 0), "not an id map");
	CHECK_STR(vet_key(k, "[" E("true", "true", "100000", "-1", "1") "]",
	    0), "not an id map");
	CHECK_STR(vet_key(k, "[" E("true", "true", "100000", "0", "0") "]",
	    0), "not an id map");
	/* five members, one named twice: Go keeps the last; box refuses */
	CHECK_STR(vet_key(k, "[{\"Isuid\":true,\"Isuid\":false,\"Hostid\":"
	    "100000,\"Nsid\":0,\"Maprange\":1}]", 0), "not an id map");
	CHECK_STR(vet_key("volatile.last_state.idmap", "not json", 0),
	    "not an id map");
}
