/*
 * Unit tests for src/incus/project.c, certificate.c and image.c: the
 * parsers on replies recorded from the daemon (tests/fuzz/corpus/
 * fuzz_project/, also the fuzzer's seeds) and on hostile ones, and the
 * calls against a fake daemon (a forked child on a temporary unix socket
 * that logs each request and answers from a table).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "incus/api.h"
#include "incus/certificate.h"
#include "incus/image.h"
#include "incus/image_test.h"
#include "incus/instance.h"
#include "incus/profile.h"
#include "incus/project.h"
#include "incus/storage.h"
#include "t.h"

/* A recorded reply's metadata, parsed; the caller frees d and *buf. */
static int
recorded(const char *file, struct json_doc *d, char **buf)
{
	struct box_err e;
	char path[512];
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/fuzz_project/%s",
	    t_datadir(), file);
	if ((fp = fopen(path, "r")) == NULL)
		return -errno;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	*buf = malloc((size_t)n + 1);
	if (*buf == NULL || fread(*buf, 1, (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	err_clear(&e);
	return json_parse(d, *buf, (size_t)n, &e);
}

static int
doc(const char *s, struct json_doc *d)
{
	struct box_err e;

	err_clear(&e);
	return json_parse(d, s, strlen(s), &e);
}

TEST(project_parses_recorded_list)
{
	struct incus_projects l;
	struct json_doc d;
	char *buf;

	CHECK_INT(recorded("projects.json", &d, &buf), 0);
	CHECK_INT(incus_projects_parse(&l, &d, 0), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[0].name, "default");
	CHECK_STR(l.v[0].description, "Default Incus project");
	CHECK_STR(incus_kv_get(&l.v[0].config, "features.profiles"), "true");
	CHECK_STR(l.v[1].name, "user-1001");
	CHECK_STR(l.v[1].description, "User restricted project for \"bxg1\" "
	    "(1001)");
	CHECK_STR(incus_kv_get(&l.v[1].config, "restricted.networks.access"),
	    "boxnet");
	CHECK_INT(l.v[1].config.n, 16);
	incus_projects_free(&l);
	CHECK(l.n == 0 && l.v == NULL);
	json_free(&d);
	free(buf);
}

TEST(project_parse_refuses_what_it_cannot_write_back)
{
	static const char *bad[] = {
		"[]", "\"x\"", "{}", "{\"name\":\"\"}", "{\"name\":1}",
		"{\"name\":\"p\",\"config\":{\"a\":1}}",
		"{\"name\":\"p\",\"config\":{\"a\":\"1\",\"a\":\"2\"}}",
		"{\"name\":\"p\",\"name\":\"q\"}",
		"{\"name\":\"p\",\"description\":7}",
		"{\"name\":\"0123456789012345678901234567890123456789012345678"
		    "901234567890123\"}",
	};
	struct incus_project p;
	struct json_doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(doc(bad[i], &d) == 0);
		if (incus_project_parse(&p, &d, 0) != -EBADMSG)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
		CHECK(p.description == NULL && p.config.n == 0);
		json_free(&d);
	}
	CHECK(doc("{\"name\":\"p\",\"description\":null}", &d) == 0);
	CHECK_INT(incus_project_parse(&p, &d, 0), 0);
	CHECK_STR(p.description, "");
	CHECK_INT(p.config.n, 0);
	incus_project_free(&p);
	json_free(&d);
	CHECK(doc("[{\"name\":\"a\"},{\"name\":2}]", &d) == 0);
	{
		struct incus_projects l;

		CHECK_INT(incus_projects_parse(&l, &d, 0), -EBADMSG);
		CHECK(l.n == 0 && l.v == NULL);
	}
	json_free(&d);
}

TEST(certificate_parses_recorded_list)
{
	struct incus_certificates l;
	struct json_doc d;
	char *buf;

	CHECK_INT(recorded("certificates.json", &d, &buf), 0);
	CHECK_INT(incus_certificates_parse(&l, &d, 0), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[0].name, "incus-user-1001");
	CHECK_STR(l.v[0].type, "client");
	CHECK_STR(l.v[0].fingerprint, "2e2aa2e1c0ffee0123456789abcdef0123456789"
	    "abcdef0123456789abcdef01");
	CHECK_INT(l.v[0].restricted, 1);
	CHECK_INT(l.v[0].nprojects, 1);
	CHECK_STR(l.v[0].projects[0], "user-1001");
	CHECK_INT(l.v[1].restricted, 0);
	CHECK_INT(l.v[1].nprojects, 0);
	incus_certificates_free(&l);
	json_free(&d);
	free(buf);
}

TEST(certificate_parse_refuses_a_fingerprint_that_is_not_one)
{
	static const char *bad[] = {
		"{}", "[{\"name\":\"a\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"../../1.0/projects/x\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"ab?project=x\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"0123456789abcdef0123456789"
		    "abcdef0123456789abcdef0123456789abcdef0\"}]",
		"[{\"fingerprint\":\"ab\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"ab\",\"projects\":[1]}]",
		"[{\"name\":\"a\",\"fingerprint\":\"ab\",\"projects\":\"p\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"ab\",\"restricted\":\"1\"}]",
		"[{\"name\":\"a\",\"fingerprint\":\"ab\",\"type\":[]}]",
	};
	struct incus_certificates l;
	struct json_doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(doc(bad[i], &d) == 0);
		if (incus_certificates_parse(&l, &d, 0) != -EBADMSG)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
		CHECK(l.n == 0 && l.v == NULL);
		json_free(&d);
	}
}

TEST(image_parses_recorded_list_and_alias)
{
	struct incus_image_alias a;
	struct incus_images l;
	struct json_doc d;
	char *buf;

	CHECK_INT(recorded("images.json", &d, &buf), 0);
	CHECK_INT(incus_images_parse(&l, &d, 0), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[0].fingerprint, "253d14ba1f1b6163008b935a708f7b6e6268af83"
	    "28e6486f709854fd4eb7507c");
	CHECK_INT(l.v[0].type, INCUS_IMAGE_CONTAINER);
	CHECK_INT(l.v[0].size, 1119535);
	CHECK_INT(l.v[0].public_, 0);
	CHECK_INT(l.v[0].naliases, 1);
	CHECK_STR(l.v[0].aliases[0], "box-test-busybox");
	incus_images_free(&l);
	json_free(&d);
	free(buf);

	CHECK_INT(recorded("alias.json", &d, &buf), 0);
	CHECK_INT(incus_image_alias_parse(&a, &d, 0), 0);
	CHECK_STR(a.name, "box-test-busybox");
	CHECK_STR(a.target, "253d14ba1f1b6163008b935a708f7b6e6268af8328e6486f"
	    "709854fd4eb7507c");
	CHECK_INT(a.type, INCUS_IMAGE_CONTAINER);
	incus_image_alias_free(&a);
	json_free(&d);
	free(buf);
}

TEST(image_parse_refuses_hostile_members)
{
	static const char *bad[] = {
		"[{\"fingerprint\":\"ab/../x\"}]", "[{}]", "{}",
		"[{\"fingerprint\":\"ab\",\"type\":1}]",
		"[{\"fingerprint\":\"ab\",\"size\":-1}]",
		"[{\"fingerprint\":\"ab\",\"size\":1.5}]",
		"[{\"fingerprint\":\"ab\",\"public\":0}]",
		"[{\"fingerprint\":\"ab\",\"aliases\":[{}]}]",
		"[{\"fingerprint\":\"ab\",\"aliases\":{}}]",
	};
	struct incus_image_alias a;
	struct incus_images l;
	struct json_doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(doc(bad[i], &d) == 0);
		if (incus_images_parse(&l, &d, 0) != -EBADMSG)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
		CHECK(l.n == 0 && l.v == NULL);
		json_free(&d);
	}
	CHECK(doc("[{\"fingerprint\":\"AB\",\"type\":\"virtual-machine\"}]",
	    &d) == 0);
	CHECK_INT(incus_images_parse(&l, &d, 0), 0);
	CHECK_INT(l.v[0].type, INCUS_IMAGE_VM);
	CHECK_INT(l.v[0].size, -1);
	incus_images_free(&l);
	json_free(&d);
	CHECK(doc("{\"name\":\"x\",\"target\":\"a b\"}", &d) == 0);
	CHECK_INT(incus_image_alias_parse(&a, &d, 0), -EBADMSG);
	json_free(&d);
	CHECK(doc("{\"target\":\"ab\"}", &d) == 0);
	CHECK_INT(incus_image_alias_parse(&a, &d, 0), -EBADMSG);
	json_free(&d);
}

/* --- the calls, against a fake daemon ----------------------------------- */

struct fake {
	char dir[48], sock[96], log[96];
	pid_t pid;
};

/* What the fake answers: by method and path prefix; 404 otherwise. */
static const struct {
	const char *method, *path, *meta;
} answers[] = {
	{ "GET", "/1.0/projects/user-1001",
	    "{\"name\":\"user-1001\",\"description\":\"d \\\"q\\\"\","
	    "\"config\":{\"restricted\":\"true\",\"features.images\":\"true\"}}" },
	{ "GET", "/1.0/projects?recursion=1",
	    "[{\"name\":\"default\"},{\"name\":\"user-7\"}]" },
	{ "PUT", "/1.0/projects/user-1001", "{}" },
	{ "POST", "/1.0/projects", "{}" },
	{ "DELETE", "/1.0/projects/user-1001", "{}" },
	{ "GET", "/1.0/certificates?recursion=1",
	    "[{\"name\":\"incus-user-7\",\"fingerprint\":\"abcd\"}]" },
	{ "DELETE", "/1.0/certificates/abcd", "{}" },
	{ "GET", "/1.0/images?recursion=1&project=user-7",
	    "[{\"fingerprint\":\"ab12\",\"aliases\":[{\"name\":\"x\"}]}]" },
	{ "DELETE", "/1.0/images/ab12?project=user-7", "{}" },
	{ "PUT", "/1.0/instances/b%201/state", "{}" },
	{ "DELETE", "/1.0/instances/b%201", "{}" },
	{ "PATCH", "/1.0/instances/b%201", "{}" },
	{ "PUT", "/1.0/instances/b%201", "{}" },
	{ "GET", "/1.0/instances?recursion=1&all-projects=true&filter=x",
	    "[{\"name\":\"b1\",\"project\":\"user-7\"}]" },
	{ "DELETE", "/1.0/storage-pools/default/volumes/custom/v%2F1", "{}" },
	{ "GET", "/1.0/images/aliases/a%20b",
	    "{\"name\":\"a b\",\"target\":\"ab12\",\"type\":\"container\"}" },
};

static void
fake_answer(int fd, const char *method, const char *path)
{
	char out[2048], body[1600];
	const char *meta = NULL;
	int status = 200;
	size_t i;

	for (i = 0; i < sizeof(answers) / sizeof(answers[0]); i++)
		if (strcmp(method, answers[i].method) == 0 &&
		    strcmp(path, answers[i].path) == 0)
			meta = answers[i].meta;
	if (meta != NULL)
		snprintf(body, sizeof(body), "{\"type\":\"sync\",\"status\":"
		    "\"Success\",\"status_code\":200,\"metadata\":%s}", meta);
	else {
		status = 404;
		snprintf(body, sizeof(body), "{\"type\":\"error\",\"error\":"
		    "\"Not found\",\"error_code\":404}");
	}
	snprintf(out, sizeof(out), "HTTP/1.1 %d X\r\nContent-Type: "
	    "application/json\r\nContent-Length: %zu\r\n\r\n%s", status,
	    strlen(body), body);
	if (write(fd, out, strlen(out)) < 0)
		_exit(3);
}

/* One connection: requests until EOF, each logged as "M path body\n". */
static void
fake_conn(int fd, FILE *log)
{
	static char in[65536];
	size_t have = 0;
	ssize_t n;

	for (;;) {
		char method[16], path[512], *end, *cl;
		size_t hl, blen = 0;

		in[have] = '\0';
		end = strstr(in, "\r\n\r\n");
		if (end != NULL) {
			hl = (size_t)(end - in) + 4;
			cl = strcasestr(in, "Content-Length: ");
			if (cl != NULL && cl < end)
				blen = strtoul(cl + 16, NULL, 10);
			if (have >= hl + blen) {
				if (sscanf(in, "%15s %511s", method, path) != 2)
					return;
				fprintf(log, "%s %s %.*s\n", method, path,
				    (int)blen, in + hl);
				fflush(log);
				fake_answer(fd, method, path);
				memmove(in, in + hl + blen, have - hl - blen);
				have -= hl + blen;
				continue;
			}
		}
		if (have + 1 >= sizeof(in))
			return;
		n = read(fd, in + have, sizeof(in) - 1 - have);
		if (n <= 0)
			return;
		have += (size_t)n;
	}
}

static int
fake_start(struct fake *f)
{
	struct sockaddr_un sa;
	int lfd;

	snprintf(f->dir, sizeof(f->dir), "/tmp/box-test-project-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->sock, sizeof(f->sock), "%s/unix.socket", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/log", f->dir);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->sock);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 4) < 0)
		return -1;
	f->pid = fork();
	if (f->pid == 0) {
		FILE *log = fopen(f->log, "w");
		int fd;

		while (log != NULL && (fd = accept(lfd, NULL, NULL)) >= 0) {
			fake_conn(fd, log);
			close(fd);
		}
		_exit(0);
	}
	close(lfd);
	return 0;
}

/* Stop the fake; its log into buf. */
static void
fake_stop(struct fake *f, char *buf, size_t cap)
{
	FILE *fp;
	size_t n = 0;

	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	if ((fp = fopen(f->log, "r")) != NULL) {
		n = fread(buf, 1, cap - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
	unlink(f->log);
	unlink(f->sock);
	rmdir(f->dir);
}

static int
client(struct fake *f, struct incus *c, const char *project)
{
	struct box_err e;

	err_clear(&e);
	if (incus_init(c, &e) < 0)
		return -1;
	snprintf(c->socket_path, sizeof(c->socket_path), "%s", f->sock);
	snprintf(c->project, sizeof(c->project), "%s", project);
	return 0;
}

TEST(project_calls_read_write_and_absent)
{
	struct incus_projects l;
	struct incus_project p;
	struct incus_kvs cfg = { 0 };
	struct box_err e;
	struct incus c;
	struct fake f;
	char log[8192];

	CHECK(fake_start(&f) == 0);
	CHECK(client(&f, &c, "") == 0);
	err_clear(&e);
	CHECK_INT(incus_project_get(&c, "user-1001", &p, &e), 0);
	CHECK_STR(p.description, "d \"q\"");
	CHECK_STR(incus_kv_get(&p.config, "restricted"), "true");
	CHECK_INT(incus_kv_set(&p.config, "restricted.snapshots", "allow"), 0);
	CHECK_INT(incus_project_put(&c, &p, &e), 0);
	incus_project_free(&p);
	/* Absent is -ENOENT and an empty struct, never a half-filled one. */
	CHECK_INT(incus_project_get(&c, "user-2", &p, &e), -ENOENT);
	CHECK(p.description == NULL && p.config.n == 0);
	err_clear(&e);
	CHECK_INT(incus_kv_set(&cfg, "restricted", "true"), 0);
	CHECK_INT(incus_project_create(&c, "user-1001", "made", &cfg, &e), 0);
	CHECK_INT(incus_project_delete(&c, "user-1001", 5, &e), 0);
	CHECK_INT(incus_project_list(&c, &l, &e), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[1].name, "user-7");
	incus_projects_free(&l);
	/* A name is one path segment, whatever it holds. */
	CHECK_INT(incus_project_get(&c, "a/../b", &p, &e), -ENOENT);
	err_clear(&e);
	incus_kv_free(&cfg);
	incus_close(&c);
	fake_stop(&f, log, sizeof(log));
	CHECK_STR(log,
	    "GET /1.0/projects/user-1001 \n"
	    "PUT /1.0/projects/user-1001 {\"description\":\"d \\\"q\\\"\","
	    "\"config\":{\"restricted\":\"true\",\"features.images\":\"true\","
	    "\"restricted.snapshots\":\"allow\"}}\n"
	    "GET /1.0/projects/user-2 \n"
	    "POST /1.0/projects {\"name\":\"user-1001\",\"description\":"
	    "\"made\",\"config\":{\"restricted\":\"true\"}}\n"
	    "DELETE /1.0/projects/user-1001 \n"
	    "GET /1.0/projects?recursion=1 \n"
	    "GET /1.0/projects/a%2F..%2Fb \n");
}

TEST(certificate_and_image_calls)
{
	struct incus_certificates cl;
	struct incus_image_alias a;
	struct incus_images il;
	struct box_err e;
	struct incus c;
	struct fake f;
	char log[8192];

	CHECK(fake_start(&f) == 0);
	CHECK(client(&f, &c, "") == 0);
	err_clear(&e);
	CHECK_INT(incus_certificate_list(&c, &cl, &e), 0);
	CHECK_INT(cl.n, 1);
	CHECK_STR(cl.v[0].name, "incus-user-7");
	CHECK_INT(incus_certificate_delete(&c, cl.v[0].fingerprint, &e), 0);
	incus_certificates_free(&cl);
	CHECK_INT(incus_certificate_delete(&c, "ab/../x", &e), -EINVAL);
	err_clear(&e);
	CHECK_INT(incus_image_alias_get(&c, "a b", &a, &e), 0);
	CHECK_STR(a.target, "ab12");
	incus_image_alias_free(&a);
	CHECK_INT(incus_image_alias_get(&c, "nope", &a, &e), -ENOENT);
	CHECK(a.name == NULL);
	err_clear(&e);
	snprintf(c.project, sizeof(c.project), "user-7");
	CHECK_INT(incus_image_list(&c, &il, &e), 0);
	CHECK_INT(il.n, 1);
	CHECK_STR(il.v[0].aliases[0], "x");
	CHECK_INT(incus_image_delete(&c, il.v[0].fingerprint, 5, &e), 0);
	incus_images_free(&il);
	incus_close(&c);
	fake_stop(&f, log, sizeof(log));
	CHECK_STR(log,
	    "GET /1.0/certificates?recursion=1 \n"
	    "DELETE /1.0/certificates/abcd \n"
	    "GET /1.0/images/aliases/a%20b \n"
	    "GET /1.0/images/aliases/nope \n"
	    "GET /1.0/images?recursion=1&project=user-7 \n"
	    "DELETE /1.0/images/ab12?project=user-7 \n");
}

TEST(profile_names_parse_urls_and_refuse_others)
{
	static const char *bad[] = {
		"{}", "[1]", "[\"/1.0/profiles/\"]", "[\"/1.0/networks/x\"]",
		"[\"/1.0/profiles/a/b\"]", "[\"/1.0/profiles/a%2\"]",
		"[\"/1.0/profiles/a%00b\"]", "[\"/1.0/profiles/a%2Fc\"]",
		"[\"/1.0/profiles/a%2f\"]",
	};
	struct incus_profile_names l;
	struct json_doc d;
	size_t i;

	CHECK(doc("[\"/1.0/profiles/default?project=user-7\","
	    "\"/1.0/profiles/box-net\",\"/1.0/profiles/a%20b%2Dc\"]", &d) == 0);
	CHECK_INT(incus_profile_names_parse(&l, &d, 0), 0);
	CHECK_INT(l.n, 3);
	CHECK_STR(l.v[0], "default");
	CHECK_STR(l.v[1], "box-net");
	CHECK_STR(l.v[2], "a b-c");
	incus_profile_names_free(&l);
	json_free(&d);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(doc(bad[i], &d) == 0);
		if (incus_profile_names_parse(&l, &d, 0) != -EBADMSG)
			t_fail(__FILE__, __LINE__, "accepted %s", bad[i]);
		CHECK(l.n == 0 && l.v == NULL);
		json_free(&d);
	}
}

TEST(instance_put_body_known_answer)
{
	struct incus_instance in;
	struct box_err e;
	char *prof[] = { "box-net" }, *body;

	memset(&in, 0, sizeof(in));
	snprintf(in.name, sizeof(in.name), "b1");
	snprintf(in.architecture, sizeof(in.architecture), "x86_64");
	in.description = "d";
	in.stateful = 1;
	in.profiles = prof;
	in.nprofiles = 1;
	CHECK_INT(incus_kv_set(&in.config, "user.box", "1"), 0);
	err_clear(&e);
	CHECK_INT(incus_instance_put_body(&in, &body, &e), 0);
	/* never the name or a read-only field */
	CHECK_STR(body, "{\"architecture\":\"x86_64\",\"description\":\"d\","
	    "\"ephemeral\":false,\"stateful\":true,\"config\":{\"user.box\":"
	    "\"1\"},\"devices\":{},\"profiles\":[\"box-net\"]}");
	free(body);
	incus_kv_free(&in.config);
}

TEST(instance_and_storage_calls)
{
	struct incus_instance_list l;
	struct incus_instance in;
	struct incus_kvs cfg = { 0 };
	struct box_err e;
	struct incus c;
	struct fake f;
	char log[8192];

	CHECK(fake_start(&f) == 0);
	CHECK(client(&f, &c, "") == 0);
	err_clear(&e);
	CHECK_INT(incus_instance_set_state(&c, "b 1", "stop", 1, 0, 5, &e), 0);
	CHECK_INT(incus_instance_delete(&c, "b 1", 5, &e), 0);
	CHECK_INT(incus_kv_set(&cfg, "volatile.eth0.hwaddr", "00:16:3e:00:00:01"),
	    0);
	CHECK_INT(incus_instance_patch(&c, "b 1", &cfg, NULL, NULL, 5, &e), 0);
	memset(&in, 0, sizeof(in));
	snprintf(in.name, sizeof(in.name), "b 1");
	CHECK_INT(incus_instance_put(&c, &in, 5, &e), 0);
	CHECK_INT(incus_instance_list(&c, "x", INCUS_INST_ALL, &l, &e), 0);
	CHECK_INT(l.n, 1);
	CHECK_STR(l.v[0].project, "user-7");
	incus_instance_list_free(&l);
	CHECK_INT(incus_instance_delete(&c, "", 5, &e), -EINVAL);
	err_clear(&e);
	CHECK_INT(incus_volume_delete(&c, "default", "v/1", 5, &e), 0);
	incus_kv_free(&cfg);
	incus_close(&c);
	fake_stop(&f, log, sizeof(log));
	CHECK_STR(log,
	    "PUT /1.0/instances/b%201/state {\"action\":\"stop\",\"force\":true}\n"
	    "DELETE /1.0/instances/b%201 \n"
	    "PATCH /1.0/instances/b%201 {\"config\":{\"volatile.eth0.hwaddr\":"
	    "\"00:16:3e:00:00:01\"}}\n"
	    "PUT /1.0/instances/b%201 {\"description\":\"\",\"ephemeral\":false,"
	    "\"stateful\":false,\"config\":{},\"devices\":{},\"profiles\":[]}\n"
	    "GET /1.0/instances?recursion=1&all-projects=true&filter=x \n"
	    "DELETE /1.0/storage-pools/default/volumes/custom/v%2F1 \n");
}
