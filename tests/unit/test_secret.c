/*
 * test_secret.c - the secret record, the grant list and the use log's
 * lines (box/secret/secret.h), against known answers written out by
 * hand; and the store's refusals on a scratch directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box/secret/secret.h"
#include "t.h"

TEST(secret_fields_checked)
{
	static const struct {
		const char *in, *host;
		unsigned port;
		int ok;
	} h[] = {
		{ "api.anthropic.com", "api.anthropic.com", 443, 1 },
		{ "API.Example.COM:8443", "api.example.com", 8443, 1 },
		{ "localhost", NULL, 0, 0 },		/* one label */
		{ "a..b", NULL, 0, 0 }, { "-a.b", NULL, 0, 0 },
		{ "a.b.", NULL, 0, 0 }, { "a.b:0", NULL, 0, 0 },
		{ "a.b:65536", NULL, 0, 0 }, { "a.b:", NULL, 0, 0 },
		{ "a_b.c", NULL, 0, 0 }, { "a.b/c", NULL, 0, 0 },
		{ "10.0.0.1", "10.0.0.1", 443, 1 },	/* judged by the door */
	};
	char buf[300];
	unsigned port;
	size_t i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", h[i].in);
		port = 0;
		CHECK_INT(secret_host_ok(buf, &port), h[i].ok);
		if (h[i].ok) {
			CHECK_STR(buf, h[i].host);
			CHECK_INT(port, h[i].port);
		}
	}
	CHECK(secret_name_ok("anthropic"));
	CHECK(secret_name_ok("gh.token_2-x"));
	CHECK(!secret_name_ok(".."));
	CHECK(!secret_name_ok("a/b"));
	CHECK(!secret_name_ok(""));
	CHECK(!secret_name_ok("-x"));
	CHECK(secret_header_ok("x-api-key"));
	CHECK(!secret_header_ok("x api"));
	CHECK(!secret_header_ok("x:y"));
	CHECK(!secret_header_ok(""));
	CHECK(secret_value_ok("user:pass", 9));
	CHECK(!secret_value_ok(" lead", 5));
	CHECK(!secret_value_ok("a\r\nX-Evil: 1", 12));
	CHECK(!secret_value_ok("", 0));
}

TEST(secret_record_round_trip)
{
	static const char rec[] = "box-secret 1\nhost api.test:8443\n"
	    "header x-api-key\nscheme raw\nvalue sk-123\n";
	struct secret s;
	char buf[512], why[80];
	int n;

	CHECK_INT(secret_parse(rec, sizeof(rec) - 1, &s, why, sizeof(why)),
	    0);
	CHECK_STR(s.host, "api.test");
	CHECK_INT(s.port, 8443);
	CHECK_STR(s.header, "x-api-key");
	CHECK_INT(s.scheme, SECRET_RAW);
	CHECK_STR(s.value, "sk-123");
	n = secret_format(&s, buf, sizeof(buf));
	CHECK_MEM(buf, n, rec, sizeof(rec) - 1);
	CHECK_INT(secret_header_line(&s, buf, sizeof(buf)), 17);
	CHECK_STR(buf, "x-api-key: sk-123");
	s.scheme = SECRET_BEARER;
	secret_header_line(&s, buf, sizeof(buf));
	CHECK_STR(buf, "x-api-key: Bearer sk-123");
	s.scheme = SECRET_BASIC;
	memcpy(s.value, "user:pass", 10);
	s.vlen = 9;
	secret_header_line(&s, buf, sizeof(buf));
	CHECK_STR(buf, "x-api-key: Basic dXNlcjpwYXNz");
}

TEST(secret_record_refusals)
{
	static const char *const bad[] = {
		"box-secret 2\nhost a.b\nheader h\nscheme raw\nvalue v\n",
		"box-secret 1\nheader h\nhost a.b\nscheme raw\nvalue v\n",
		"box-secret 1\nhost a.b\nheader h\nscheme raw\nvalue v",
		"box-secret 1\nhost a.b\nheader h\nscheme raw\nvalue v\nx\n",
		"box-secret 1\nhost a.b\nheader h\nscheme rot\nvalue v\n",
		"box-secret 1\nhost a.b\nheader h\nscheme raw\nvalue v\r\n",
		"box-secret 1\nhost a.b\nheader h h\nscheme raw\nvalue v\n",
		"box-secret 1\nhost a.b\nheader h\nscheme raw\nvalue \n",
	};
	struct secret s;
	char why[80];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(secret_parse(bad[i], strlen(bad[i]), &s, why,
		    sizeof(why)), -EINVAL);
}

TEST(secret_grant_lists)
{
	char names[SECRET_GRANTMAX][SECRET_NAMEMAX + 1], out[200];
	size_t n;

	CHECK_INT(secret_grants_parse("a,b.c", names, &n), 0);
	CHECK_INT(n, 2);
	CHECK_STR(names[1], "b.c");
	CHECK_INT(secret_grants_parse("a,,b", names, &n), -EINVAL);
	CHECK_INT(secret_grants_parse("a,a", names, &n), -EINVAL);
	CHECK_INT(secret_grants_parse("a,b/c", names, &n), -EINVAL);
	CHECK_INT(secret_grants_parse("", names, &n), 0);
	CHECK_INT(n, 0);
	CHECK(secret_grants_has("x,anthropic", "anthropic"));
	CHECK(!secret_grants_has("x,anthropic2", "anthropic"));
	CHECK(!secret_grants_has("anthropic,anthropic", "anthropic"));
	CHECK_INT(secret_grants_edit("a", "b", 1, out, sizeof(out)), 1);
	CHECK_STR(out, "a,b");
	CHECK_INT(secret_grants_edit("a,b", "b", 1, out, sizeof(out)), 0);
	CHECK_STR(out, "a,b");
	CHECK_INT(secret_grants_edit("a,b,c", "b", 0, out, sizeof(out)), 1);
	CHECK_STR(out, "a,c");
	CHECK_INT(secret_grants_edit(NULL, "b", 0, out, sizeof(out)), 0);
	CHECK_STR(out, "");
	CHECK(secret_source_key("user.box.secrets"));
	CHECK(!secret_source_key("user.box.egress"));
}

TEST(secret_use_lines)
{
	static const char want[] = "{\"t\":1700000000123,\"box\":\"work\","
	    "\"secret\":\"anthropic\",\"method\":\"POST\",\"host\":\"api.test\","
	    "\"path\":\"/v1/messages\",\"status\":200,\"in\":12,\"out\":345,"
	    "\"ms\":7}\n";
	struct secret_use u, back;
	char buf[1024];
	int n;

	memset(&u, 0, sizeof(u));
	u.t_ms = 1700000000123LL;
	strcpy(u.box, "work");
	strcpy(u.secret, "anthropic");
	strcpy(u.method, "POST");
	strcpy(u.host, "api.test");
	strcpy(u.path, "/v1/messages");
	u.status = 200;
	u.in = 12;
	u.out = 345;
	u.ms = 7;
	n = secret_use_format(&u, buf, sizeof(buf));
	CHECK_MEM(buf, n, want, sizeof(want) - 1);
	CHECK_INT(secret_use_parse(buf, (size_t)n - 1, &back), 0);
	CHECK(memcmp(&u, &back, sizeof(u)) == 0);
	strcpy(u.path, "/a\"b");
	CHECK_INT(secret_use_format(&u, buf, sizeof(buf)), -EINVAL);
	CHECK_INT(secret_use_parse("{\"t\":1}", 7, &back), -EINVAL);
	memcpy(buf, want, sizeof(want));
	buf[sizeof(want) - 3] = 'x';
	CHECK_INT(secret_use_parse(buf, sizeof(want) - 2, &back), -EINVAL);
}

TEST(secret_store_refuses_an_open_directory)
{
	char dir[] = "/tmp/box-secret-test-XXXXXX", sub[64];
	struct box_err e;
	struct secret s, back;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "%s/store", dir);
	err_clear(&e);
	CHECK_INT(secret_store_open(sub, &e), 0);
	memset(&s, 0, sizeof(s));
	strcpy(s.name, "k");
	strcpy(s.host, "api.test");
	s.port = 443;
	strcpy(s.header, "Authorization");
	strcpy(s.value, "v1");
	s.vlen = 2;
	CHECK_INT(secret_store_put(sub, &s, 0, &e), 0);
	err_clear(&e);
	CHECK(secret_store_put(sub, &s, 0, &e) < 0);	/* exists */
	err_clear(&e);
	CHECK_INT(secret_load(sub, "k", &back, &e), 0);
	CHECK_STR(back.value, "v1");
	CHECK(chmod(sub, 0750) == 0);
	err_clear(&e);
	CHECK_INT(secret_store_open(sub, &e), -EPERM);
	CHECK(chmod(sub, 0700) == 0);
	err_clear(&e);
	CHECK_INT(secret_store_rm(sub, "k", &e), 0);
	CHECK(rmdir(sub) == 0 && rmdir(dir) == 0);
}
