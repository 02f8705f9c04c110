/* Options, suggestions, tables and templates. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/box.h"
#include "box/life/template.h"
#include "t.h"
#include "util/opt.h"
#include "util/table.h"

static int
parse(const struct opt *o, struct opt_result *r, struct box_err *e,
    int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	err_clear(e);
	return opt_parse(argc, argv, o, r, e);
}

TEST(opt_values_flags_and_rest)
{
	const char *name;
	int force;
	const struct opt o[] = {
		OPT_STR("--name", "<box>", &name, OC_NONE, NULL),
		OPT_FLAG("--force", "-f", &force, NULL),
		OPT_ARG("<pos>", 0, 1, OC_NONE, NULL),
		OPT_REST("<cmd...>", NULL),
		OPT_END
	};
	struct opt_result r;
	struct box_err e;

	CHECK_INT(parse(o, &r, &e, 7, "new", "--name=w1", "-f", "pos", "--",
	    "--name", "x"), 0);
	CHECK_STR(name, "w1");
	CHECK_INT(force, 1);
	CHECK_INT(r.npos, 1);
	CHECK_STR(r.pos[0], "pos");
	CHECK_INT(r.nrest, 2);
	CHECK_STR(r.rest[0], "--name");
	/* a second parse starts from nothing given */
	CHECK_INT(parse(o, &r, &e, 1, "new"), 0);
	CHECK(name == NULL);
	CHECK_INT(force, 0);
}

TEST(opt_refusals)
{
	const char *name;
	int json;
	const struct opt o[] = {
		OPT_STR("--name", "<box>", &name, OC_NONE, NULL),
		OPT_FLAG("--json", NULL, &json, NULL),
		OPT_END
	};
	struct opt_result r;
	struct box_err e;

	CHECK_INT(parse(o, &r, &e, 2, "x", "--name"), -EINVAL);
	CHECK(strstr(e.msg, "needs a value") != NULL);
	CHECK_INT(parse(o, &r, &e, 2, "x", "--jsno"), -EINVAL);
	CHECK(strstr(e.msg, "did you mean --json") != NULL);
	CHECK_INT(e.status, ERR_USAGE);
	CHECK_INT(parse(o, &r, &e, 2, "x", "--json=1"), -EINVAL);
	CHECK_INT(parse(o, &r, &e, 2, "x", "--zzzzzzzz"), -EINVAL);
	CHECK(strstr(e.msg, "did you mean") == NULL);
	CHECK_INT(parse(o, &r, &e, 5, "x", "--name", "a", "--name", "b"),
	    -EINVAL);
	CHECK(strstr(e.msg, "given twice") != NULL);
	/* no argument rows: a positional or "--" is a usage error */
	CHECK_INT(parse(o, &r, &e, 2, "x", "stray"), -EINVAL);
	CHECK_STR(e.msg, "usage: box x [--name <box>] [--json]");
	CHECK_INT(parse(o, &r, &e, 2, "x", "--"), -EINVAL);
}

TEST(opt_optional_value_only_after_equals)
{
	const char *json;
	const struct opt o[] = {
		OPT_OPTVAL("--json", "full", &json, "full", NULL),
		OPT_ARG("<x>", 0, 1, OC_NONE, NULL),
		OPT_END
	};
	struct opt_result r;
	struct box_err e;

	CHECK_INT(parse(o, &r, &e, 3, "list", "--json", "full"), 0);
	CHECK_STR(json, "");
	CHECK_INT(r.npos, 1);	/* the next word is not its value */
	CHECK_INT(parse(o, &r, &e, 2, "list", "--json=full"), 0);
	CHECK_STR(json, "full");
	CHECK_INT(parse(o, &r, &e, 1, "list"), 0);
	CHECK(json == NULL);
}

TEST(opt_hidden_mode_is_a_command_line_of_its_own)
{
	int inside, json;
	const struct opt o[] = {
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_FLAG("--json", NULL, &json, NULL),
		OPT_SECRET("--inside", &inside),
		OPT_END
	};
	struct opt_result r;
	struct box_err e;
	char syn[80];

	opt_synopsis(o, syn, sizeof(syn));
	CHECK_STR(syn, "<box> [--json]");
	CHECK_INT(parse(o, &r, &e, 1, "verify"), -EINVAL);
	CHECK_INT(parse(o, &r, &e, 2, "verify", "--inside"), 0);
	CHECK_INT(inside, 1);
	CHECK_INT(r.npos, 0);
}

TEST(opt_counts_required_ints_lists)
{
	const char *name;
	struct opt_list tags;
	int n = 7;
	const struct opt o[] = {
		OPT_NEED("--name", "<box>", &name, OC_NONE, NULL),
		OPT_INT("--n", "n", &n, 1, 9, NULL),
		OPT_LIST("--tag", "t", &tags, OC_NONE, NULL),
		OPT_ARG("<box>", 1, 1, OC_BOX, NULL),
		OPT_ARG("<name>", 0, OPT_ANY, OC_NONE, NULL),
		OPT_END
	};
	struct opt_result r;
	struct box_err e;
	char syn[200];

	opt_synopsis(o, syn, sizeof(syn));
	CHECK_STR(syn, "--name <box> <box> [<name>...] [--n n] "
	    "[--tag t ...]");
	CHECK_INT(parse(o, &r, &e, 3, "v", "--name", "a"), -EINVAL);
	CHECK(strncmp(e.msg, "usage: box v --name <box> <box>", 31) == 0);
	CHECK_INT(parse(o, &r, &e, 2, "v", "b"), -EINVAL);
	CHECK_STR(e.msg, "v needs --name <box>");
	CHECK_INT(parse(o, &r, &e, 9, "v", "--name", "a", "b", "c", "d",
	    "--tag", "x", "--tag=y"), 0);
	CHECK_INT(r.npos, 3);
	CHECK_INT(tags.n, 2);
	CHECK_STR(tags.v[1], "y");
	CHECK_INT(n, 7);	/* an int keeps its default */
	CHECK_INT(parse(o, &r, &e, 6, "v", "--name", "a", "b", "--n", "4"),
	    0);
	CHECK_INT(n, 4);
	CHECK_INT(parse(o, &r, &e, 6, "v", "--name", "a", "b", "--n", "10"),
	    -EINVAL);
	CHECK(strstr(e.msg, "from 1 to 9") != NULL);
	CHECK_INT(parse(o, &r, &e, 6, "v", "--name", "a", "b", "--n", "4x"),
	    -EINVAL);
}

TEST(str_distance_bounds)
{
	CHECK_INT(str_distance("list", "lsit", 2), 1);
	CHECK_INT(str_distance("lsit", "lits", 2), 2);
	CHECK_INT(str_distance("LIST", "list", 2), 0);
	CHECK_INT(str_distance("", "abc", 2), 3);
	CHECK_INT(str_distance("abcdefgh", "zzzzzzzz", 2), 3);
}

TEST(table_aligns_and_trims)
{
	struct table t;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	table_init(&t, 3);
	table_row(&t, (const char *[]){ "NAME", "STATE", "X" });
	table_row(&t, (const char *[]){ "alpha", "é", "1" });
	table_row(&t, (const char *[]){ "zeta", "RUNNING", "" });
	CHECK_INT(table_print(&t, f), 0);
	fclose(f);
	CHECK_STR(buf, "NAME   STATE    X\nalpha  é        1\nzeta   RUNNING\n");
	table_free(&t);
	free(buf);
}

static int
parse_env(const char *text, struct template *t, struct box_err *e)
{
	memset(t, 0, sizeof(*t));
	err_clear(e);
	return template_parse_env("t", text, strlen(text), t, e);
}

TEST(template_env_allowlist)
{
	struct template t;
	struct box_err e;

	CHECK_INT(parse_env("# c\n\nBOX_IMAGE=\"img\"\nBOX_USER=dev\r\n"
	    "BOX_CPU=\"2\"\nBOX_REQUIRE_VM=1\nBOX_BOOTSTRAP_ROLE=\"a-b1\"\n",
	    &t, &e), 0);
	CHECK_STR(t.image, "img");
	CHECK_STR(t.user, "dev");
	CHECK_STR(t.cpu, "2");
	CHECK_INT(t.require_vm, 1);
	CHECK_STR(t.role, "a-b1");
	CHECK(parse_env("BOX_IMAGE=i\nBOX_USER=u\nBOX_NETWORK=host\n", &t,
	    &e) < 0);
	CHECK(strstr(e.msg, "no key for a network") != NULL);
	CHECK(parse_env("BOX_IMAGE=i\nBOX_USER=u\nsecurity.privileged=1\n",
	    &t, &e) < 0);
	CHECK(parse_env("BOX_IMAGE=i\nnot a kv line\n", &t, &e) < 0);
	CHECK(parse_env("BOX_IMAGE=i\n", &t, &e) < 0);	/* no user */
	CHECK(parse_env("BOX_IMAGE=i\nBOX_USER=u\nBOX_BOOTSTRAP_ROLE=Bad\n",
	    &t, &e) < 0);
	CHECK(parse_env("BOX_IMAGE=i\nBOX_USER=u\nBOX_AUTOSTART=yes\n", &t,
	    &e) < 0);
	CHECK(parse_env("BOX_IMAGE=i\x1b[2J\nBOX_USER=u\n", &t, &e) < 0);
}

TEST(templates_shipped_are_valid)
{
	static const char *names[] = { "blank", "claude-box", "codex-box",
	    "grok-box", "kimi-box", "staging-box" };
	char list[TPL_MAX][TPL_NAME_MAX], home[96];
	struct template t;
	struct box_err e;
	size_t i;

	unsetenv("BOX_TEMPLATES");
	err_clear(&e);
	CHECK_INT(template_names(list, TPL_MAX, &e), 6);
	CHECK_STR(list[0], "blank");
	for (i = 0; i < 6; i++) {
		err_clear(&e);
		CHECK_INT(template_load(names[i], &t, &e), 0);
		CHECK(strstr(t.user_data, t.user) != NULL);
		CHECK(strstr(t.user_data, "tmux") != NULL);
		/* the note where agents look (issue 38), in the user's home */
		snprintf(home, sizeof(home), "/home/%s/AGENTS.md", t.user);
		CHECK(strstr(t.user_data, home) != NULL);
		snprintf(home, sizeof(home), "/home/%s/CLAUDE.md", t.user);
		CHECK(strstr(t.user_data, home) != NULL);
		CHECK(strstr(t.user_data, "box egress <this box> allow") !=
		    NULL);
		CHECK(i == 0 ? t.role[0] == '\0' : strcmp(t.role, names[i]) == 0);
		CHECK(i == 0 ? strstr(t.user_data, "@RIG_REPO@") == NULL :
		    strstr(t.user_data, "@RIG_REF@") != NULL);
		template_free(&t);
	}
	err_clear(&e);
	CHECK_INT(template_load("nope", &t, &e), -ENOENT);
	CHECK_INT(template_load("../etc", &t, &e), -EINVAL);
}

TEST(box_names)
{
	CHECK(box_name_ok("work"));
	CHECK(box_name_ok("a-1"));
	CHECK(!box_name_ok("1abc"));
	CHECK(!box_name_ok("-a"));
	CHECK(!box_name_ok("a-"));
	CHECK(!box_name_ok("a_b"));
	CHECK(!box_name_ok("a/b"));
	CHECK(!box_name_ok(""));
	CHECK(!box_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

TEST(box_address_by_subnet)
{
	static const char inst[] = "{\"expanded_devices\":{\"eth0\":{\"type\":"
	    "\"nic\",\"network\":\"boxnet\"}},\"state\":{\"network\":{"
	    "\"docker0\":{\"addresses\":[{\"family\":\"inet\",\"address\":"
	    "\"172.17.0.1\",\"scope\":\"global\"}]},\"eth0\":{\"addresses\":["
	    "{\"family\":\"inet6\",\"address\":\"fe80::1\",\"scope\":\"link\"},"
	    "{\"family\":\"inet\",\"address\":\"10.88.0.7\",\"scope\":\"global\"}"
	    "]},\"lo\":{\"addresses\":[{\"family\":\"inet\",\"address\":"
	    "\"127.0.0.1\",\"scope\":\"global\"}]}}}}";
	struct box_subnets sn = { 0 };
	struct incus_instance in;
	struct json_doc d;
	struct box_err e;
	char a[64];

	err_clear(&e);
	CHECK_INT(json_parse(&d, inst, sizeof(inst) - 1, &e), 0);
	CHECK_INT(incus_instance_from_json(&d, 0, 0, &in, &e), 0);
	sn.n = 1;
	strcpy(sn.s[0].ifname, "boxnet");
	sn.s[0].addr = 0x0a580001;
	sn.s[0].mask = 0xffffff00;
	box_address_of(&in, &sn, a, sizeof(a));
	CHECK_STR(a, "10.88.0.7");
	/* Without the bridge's subnet, two global addresses: no guess. */
	sn.n = 0;
	box_address_of(&in, &sn, a, sizeof(a));
	CHECK_STR(a, "-");
	incus_instance_free(&in);
	json_free(&d);
}
