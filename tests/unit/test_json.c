/* JSON parser and writer: known answers, refusals, limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incus/json.h"
#include "t.h"

static int
parse(const char *s, struct json_doc *d)
{
	struct box_err e;

	err_clear(&e);
	return json_parse(d, s, strlen(s), &e);
}

static int
accepts(const char *s)
{
	struct json_doc d;
	int rc = parse(s, &d);

	if (rc == 0)
		json_free(&d);
	return rc == 0;
}

TEST(json_accepts_rfc_values)
{
	static const char *ok[] = {
		"0", "-0", "1.5e10", "-1.25E-3", "1e+2", "\"\"", "true",
		"false", "null", "[]", "{}", " [1, 2 ,3] ", "{\"a\":{\"b\":[]}}",
		"\"\\u00e9\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\"\\ud83d\\ude00\"",
		"\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "[[[[[]]]]]",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!accepts(ok[i]))
			t_fail(__FILE__, __LINE__, "refused: %s", ok[i]);
}

TEST(json_refuses_malformed)
{
	static const char *bad[] = {
		"", " ", "01", "1.", ".5", "-", "+1", "1e", "[1,]", "{\"a\":1,}",
		"{\"a\" 1}", "{a:1}", "[1 2]", "\"abc", "\"\\x\"", "\"\\u12\"",
		"\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "tru",
		"nul", "[", "]", "{}{}", "1 2", "\"\x01\"", "\"\xc0\xaf\"",
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"",
		"\"\x80\"", "[1]x", "{\"a\":}", "NaN", "Infinity", "'a'",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (accepts(bad[i]))
			t_fail(__FILE__, __LINE__, "accepted: %s", bad[i]);
}

TEST(json_depth_limit)
{
	char buf[JSON_MAX_DEPTH * 2 + 4];
	int n;

	for (n = 0; n < JSON_MAX_DEPTH; n++)
		buf[n] = '[';
	for (n = 0; n < JSON_MAX_DEPTH; n++)
		buf[JSON_MAX_DEPTH + n] = ']';
	buf[2 * JSON_MAX_DEPTH] = '\0';
	CHECK(accepts(buf));
	memmove(buf + 1, buf, 2 * JSON_MAX_DEPTH + 1);
	buf[0] = '[';
	strcat(buf, "]");
	CHECK(!accepts(buf));
}

TEST(json_walk_and_get)
{
	struct json_doc d;
	char buf[64];
	long long v;
	int a, i, n = 0;

	CHECK_INT(parse("{\"type\":\"sync\",\"n\":[1,{\"x\":2},\"s\"],"
	    "\"k\\u0065y\":-42,\"e\":{}}", &d), 0);
	CHECK_INT(json_type(&d, 0), JSON_OBJECT);
	CHECK_INT(json_count(&d, 0), 4);
	CHECK_STR(json_gets(&d, 0, "type", buf, sizeof(buf), NULL), "sync");
	a = json_get(&d, 0, "n");
	CHECK_INT(json_type(&d, a), JSON_ARRAY);
	for (i = json_child(&d, a); i >= 0; i = json_next(&d, i))
		n++;
	CHECK_INT(n, 3);
	CHECK_INT(json_int(&d, json_get(&d, 0, "key"), &v), 0);
	CHECK_INT(v, -42);
	CHECK_INT(json_get(&d, 0, "missing"), JSON_NONE);
	CHECK_INT(json_child(&d, json_get(&d, 0, "e")), -1);
	CHECK_INT(json_type(&d, json_path(&d, 0, "n")), JSON_ARRAY);
	json_free(&d);
}

TEST(json_duplicate_keys_refused_on_lookup)
{
	struct json_doc d;

	CHECK_INT(parse("{\"a\":1,\"b\":2,\"a\":3}", &d), 0);
	CHECK_INT(json_get(&d, 0, "a"), JSON_DUP);
	CHECK(json_get(&d, 0, "b") >= 0);
	json_free(&d);
	/* An escaped spelling of the same key is the same key. */
	CHECK_INT(parse("{\"a\":1,\"\\u0061\":2}", &d), 0);
	CHECK_INT(json_get(&d, 0, "a"), JSON_DUP);
	json_free(&d);
}

TEST(json_string_decoding)
{
	struct json_doc d;
	char buf[32], tiny[4];

	CHECK_INT(parse("[\"a\\u00e9\\ud83d\\ude00\\n\", \"abcdef\"]", &d), 0);
	CHECK_INT(json_str(&d, 1, buf, sizeof(buf)), 8);
	CHECK_STR(buf, "a\xc3\xa9\xf0\x9f\x98\x80\n");
	CHECK(json_streq(&d, 1, "a\xc3\xa9\xf0\x9f\x98\x80\n"));
	CHECK(!json_streq(&d, 1, "a"));
	CHECK_INT(json_str(&d, 2, tiny, sizeof(tiny)), -ENOSPC);
	CHECK_STR(tiny, "abc");
	json_free(&d);
}

TEST(json_int_range)
{
	struct json_doc d;
	long long v;

	CHECK_INT(parse("[9223372036854775807,-9223372036854775808,"
	    "9223372036854775808,1.5]", &d), 0);
	CHECK_INT(json_int(&d, 1, &v), 0);
	CHECK(v == 9223372036854775807LL);
	CHECK_INT(json_int(&d, 2, &v), 0);
	CHECK(v == (-9223372036854775807LL - 1));
	CHECK_INT(json_int(&d, 3, &v), -ERANGE);
	CHECK_INT(json_int(&d, 4, &v), -EINVAL);
	json_free(&d);
}

TEST(json_raw_slices)
{
	struct json_doc d;
	size_t n;
	const char *p;

	CHECK_INT(parse("[ {\"a\": [1, 2]} , \"s\" ]", &d), 0);
	p = json_raw(&d, 1, &n);
	CHECK_MEM(p, n, "{\"a\": [1, 2]}", 13);
	p = json_raw(&d, json_next(&d, 1), &n);
	CHECK_MEM(p, n, "\"s\"", 3);
	json_free(&d);
}

TEST(json_writer_round_trip)
{
	struct json_w w;
	struct json_doc d;
	char *out, buf[64];
	size_t n;
	struct box_err e;

	json_w_init(&w, 1 << 20);
	json_w_obj(&w);
	json_w_key(&w, "command");
	json_w_arr(&w);
	json_w_str(&w, "sh");
	json_w_str(&w, "-c");
	json_w_str(&w, "echo \"hi\"\\\n\x01\xc3\xa9");
	json_w_end(&w, ']');
	json_w_key(&w, "n");
	json_w_int(&w, -7);
	json_w_key(&w, "b");
	json_w_bool(&w, 1);
	json_w_key(&w, "z");
	json_w_null(&w);
	json_w_end(&w, '}');
	CHECK_INT(json_w_finish(&w, &out, &n), 0);
	CHECK_STR(out, "{\"command\":[\"sh\",\"-c\",\"echo \\\"hi\\\"\\\\\\n"
	    "\\u0001\xc3\xa9\"],\"n\":-7,\"b\":true,\"z\":null}");
	err_clear(&e);
	CHECK_INT(json_parse(&d, out, n, &e), 0);
	CHECK_STR(json_gets(&d, json_get(&d, 0, "command") + 3, NULL, buf,
	    sizeof(buf), "x"), "x");
	json_free(&d);
	free(out);
}

TEST(json_writer_refuses)
{
	struct json_w w;
	char *out;

	json_w_init(&w, 1 << 20);
	json_w_str(&w, "bad \xff utf8");
	CHECK_INT(json_w_finish(&w, &out, NULL), -EILSEQ);
	json_w_init(&w, 8);
	json_w_str(&w, "far too long for eight");
	CHECK_INT(json_w_finish(&w, &out, NULL), -EBOX_TOOBIG);
	json_w_init(&w, 100);
	json_w_obj(&w);
	CHECK_INT(json_w_finish(&w, &out, NULL), -EINVAL);
}

TEST(json_large_document)
{
	/* 20000 small objects: the tape grows, and stays correct. */
	size_t cap = 20000 * 40 + 16, n = 0;
	char *s = malloc(cap);
	struct json_doc d;
	struct box_err e;
	int i, cnt = 0;

	n += (size_t)sprintf(s + n, "[");
	for (i = 0; i < 20000; i++)
		n += (size_t)sprintf(s + n, "%s{\"name\":\"b%d\",\"x\":[]}",
		    i ? "," : "", i);
	n += (size_t)sprintf(s + n, "]");
	err_clear(&e);
	CHECK_INT(json_parse(&d, s, n, &e), 0);
	for (i = json_child(&d, 0); i >= 0; i = json_next(&d, i))
		cnt++;
	CHECK_INT(cnt, 20000);
	json_free(&d);
	free(s);
}
