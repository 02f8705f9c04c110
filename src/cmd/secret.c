/*
 * box secret add|list|rm|grant|revoke|url|log - the credential door's
 * secrets (box/secret/secret.h): stored on the host, granted to boxes by
 * name, added to their requests by the door (host/door/door.h).  No
 * output of this verb ever holds a value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box/secret/secret.h"
#include "cmd/cmd.h"
#include "host/door/door.h"
#include "incus/api.h"
#include "incus/json.h"
#include "util/opt.h"
#include "util/prompt.h"
#include "util/text.h"

struct args {
	const char *host, *header, *scheme, *file, *env;
	int force, json, count;
};

static const char *
store_dir(void)
{
	const char *d = getenv("BOX_SECRETS");

	return d != NULL && d[0] == '/' ? d : SECRET_DIR;
}

/* The value, from exactly one of stdin, --from-file, --from-env. */
static int
value_of(const struct args *a, struct secret *s, struct box_err *e)
{
	const char *v;
	int rc;

	if (a->file != NULL && a->env != NULL)
		return err_usage(e, "--from-file and --from-env: one source");
	if (a->env != NULL) {
		if ((v = getenv(a->env)) == NULL)
			return err_usage(e, "--from-env %s: not set", a->env);
		s->vlen = strlen(v);
		if (s->vlen > SECRET_VALMAX)
			return err_usage(e, "--from-env %s: longer than a "
			    "secret may be", a->env);
		memcpy(s->value, v, s->vlen + 1);
		rc = 0;
	} else if (a->file != NULL) {
		rc = secret_read_file(a->file, s->value, sizeof(s->value),
		    &s->vlen, e);
	} else {
		if (isatty(0))
			fprintf(stderr, "box: the value, then end of input "
			    "(Ctrl-D):\n");
		rc = secret_read_fd(0, s->value, sizeof(s->value), &s->vlen,
		    e);
	}
	if (rc == 0 && !secret_value_ok(s->value, s->vlen))
		rc = err_usage(e, "the value must be 1 to %d printable ASCII "
		    "characters without a blank at either end (it goes into "
		    "a header)", SECRET_VALMAX);
	return rc;
}

static int
do_add(const char *name, const struct args *a, struct box_err *e)
{
	struct secret *s;
	char host[SECRET_HOSTMAX + 8];
	int rc;

	if (!secret_name_ok(name))
		return err_usage(e, "'%s' is not a secret name (letters, "
		    "digits, '.', '_', '-'; at most %d)", name, SECRET_NAMEMAX);
	if (a->host == NULL)
		return err_usage(e, "secret add needs --host <upstream host>");
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(host, sizeof(host), "%s", a->host);
	if (strlen(a->host) >= sizeof(host) || !secret_host_ok(host, &s->port))
		rc = err_usage(e, "--host %s: not a host name[:port]", a->host);
	else if (a->header != NULL && !secret_header_ok(a->header))
		rc = err_usage(e, "--header %s: not a header name", a->header);
	else if (a->scheme != NULL && secret_scheme_of(a->scheme) < 0)
		rc = err_usage(e, "--scheme %s: bearer, basic or raw",
		    a->scheme);
	else
		rc = 0;
	if (rc == 0) {
		snprintf(s->host, sizeof(s->host), "%.*s", SECRET_HOSTMAX, host);
		snprintf(s->header, sizeof(s->header), "%s",
		    a->header != NULL ? a->header : "Authorization");
		s->scheme = a->scheme != NULL ? secret_scheme_of(a->scheme) :
		    strcasecmp(s->header, "Authorization") == 0 ?
		    SECRET_BEARER : SECRET_RAW;
		if ((rc = secret_store_open(store_dir(), e)) == 0 &&
		    (rc = value_of(a, s, e)) == 0)
			rc = secret_store_put(store_dir(), s, a->force, e);
	}
	if (rc == 0)
		fprintf(stderr, "box: secret %s stored for %s (%s: %s); grant "
		    "it with box secret grant <box> %s\n", name, s->host,
		    s->header, secret_scheme_name(s->scheme), name);
	explicit_bzero(s, sizeof(*s));
	free(s);
	return rc;
}

struct row {
	char name[SECRET_NAMEMAX + 1];
	char boxes[512];
	long long last;
};

struct rows {
	struct row *v;
	size_t n;
};

static void
add_box(const char *box, const char *list, void *ctx)
{
	struct rows *r = ctx;
	size_t i, l;

	for (i = 0; i < r->n; i++) {
		if (!secret_grants_has(list, r->v[i].name))
			continue;
		l = strlen(r->v[i].boxes);
		snprintf(r->v[i].boxes + l, sizeof(r->v[i].boxes) - l, "%s%s",
		    l ? "," : "", box);
	}
}

static void
last_use(const struct secret_use *u, const char *line, void *ctx)
{
	struct rows *r = ctx;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, u->secret) == 0 &&
		    u->t_ms > r->v[i].last)
			r->v[i].last = u->t_ms;
}

static void
list_print(const struct rows *r, struct secret *s, int json)
{
	struct json_w w;
	char when[40], *out;
	size_t i;
	struct box_err le;

	if (json) {
		json_w_init(&w, 1 << 20);
		json_w_arr(&w);
	} else
		printf("%-20s %-30s %-16s %-7s %-20s %s\n", "NAME", "HOST",
		    "HEADER", "SCHEME", "LAST USE", "BOXES");
	for (i = 0; i < r->n; i++) {
		err_clear(&le);
		if (secret_load(store_dir(), r->v[i].name, s, &le) < 0)
			snprintf(s->host, sizeof(s->host), "(unreadable)");
		explicit_bzero(s->value, sizeof(s->value));
		if (r->v[i].last > 0)
			text_utc(when, sizeof(when), r->v[i].last / 1000);
		else
			snprintf(when, sizeof(when), "never");
		if (!json) {
			printf("%-20s %-30s %-16s %-7s %-20s %s\n", r->v[i].name,
			    s->host, s->header, secret_scheme_name(s->scheme),
			    when, r->v[i].boxes[0] ? r->v[i].boxes : "-");
			continue;
		}
		json_w_obj(&w);
		json_w_key(&w, "name");
		json_w_str(&w, r->v[i].name);
		json_w_key(&w, "host");
		json_w_str(&w, s->host);
		json_w_key(&w, "port");
		json_w_int(&w, s->port);
		json_w_key(&w, "header");
		json_w_str(&w, s->header);
		json_w_key(&w, "scheme");
		json_w_str(&w, secret_scheme_name(s->scheme));
		json_w_key(&w, "boxes");
		json_w_str(&w, r->v[i].boxes);
		json_w_key(&w, "last_use_ms");
		json_w_int(&w, r->v[i].last);
		json_w_end(&w, '}');
	}
	if (json) {
		json_w_end(&w, ']');
		if (json_w_finish(&w, &out, NULL) == 0) {
			printf("%s\n", out);
			free(out);
		}
	}
}

static int
do_list(const struct args *a, struct box_err *e)
{
	char (*names)[SECRET_NAMEMAX + 1] = NULL;
	struct rows r = { NULL, 0 };
	struct secret *s = NULL;
	struct incus c;
	struct box_err le;
	size_t n, i, bad;
	int rc;

	if ((rc = secret_store_open(store_dir(), e)) < 0 ||
	    (rc = secret_store_names(store_dir(), &names, &n, e)) < 0)
		return rc;
	r.v = calloc(n + 1, sizeof(*r.v));
	s = calloc(1, sizeof(*s));
	if (r.v == NULL || s == NULL) {
		rc = err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		snprintf(r.v[i].name, sizeof(r.v[i].name), "%s", names[i]);
	r.n = n;
	err_clear(&le);
	if (incus_init(&c, &le) == 0) {
		if (secret_grants_each(&c, add_box, &r, &le) < 0)
			fprintf(stderr, "box: note: which boxes use each is "
			    "unknown: %s\n", le.msg);
		incus_close(&c);
	}
	err_clear(&le);
	(void)secret_log_each(store_dir(), NULL, last_use, &r, &bad, &le);
	list_print(&r, s, a->json);
out:
	if (s != NULL)
		explicit_bzero(s, sizeof(*s));
	free(s);
	free(r.v);
	free(names);
	return rc;
}

static int
do_rm(const char *name, const struct args *a, struct box_err *e)
{
	char q[160];
	int rc;

	if (!secret_name_ok(name))
		return err_usage(e, "'%s' is not a secret name", name);
	if ((rc = secret_store_open(store_dir(), e)) < 0)
		return rc;
	snprintf(q, sizeof(q), "remove the secret %s (every box granted it "
	    "loses it)", name);
	if ((rc = consent_or_force(q, a->force, "--force", e)) < 0)
		return rc;
	if ((rc = secret_store_rm(store_dir(), name, e)) == 0)
		fprintf(stderr, "box: secret %s removed\n", name);
	return rc;
}

static int
do_grant(const char *box, const char *name, int add, struct box_err *e)
{
	struct incus c;
	int rc;

	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	rc = secret_grant(&c, store_dir(), box, name, add, e);
	incus_close(&c);
	if (rc >= 0)
		fprintf(stderr, "box: %s %s %s%s\n", box, add ? "may use" :
		    "may no longer use", name, rc == 0 ? " (already so)" : "");
	return rc < 0 ? rc : 0;
}

struct logctx {
	int json;
	size_t skip, seen;
};

static void
log_line(const struct secret_use *u, const char *line, void *ctx)
{
	struct logctx *l = ctx;
	char when[40];

	if (l->seen++ < l->skip)
		return;
	if (l->json) {
		printf("%s\n", line);
		return;
	}
	text_utc(when, sizeof(when), (time_t)(u->t_ms / 1000));
	printf("%s %-16s %-16s %-6s %3d %8lld %8lld %6lld ms %s%s\n", when,
	    u->box, u->secret, u->method, u->status, u->in, u->out, u->ms,
	    u->host, u->path);
}

static void
count_line(const struct secret_use *u, const char *line, void *ctx)
{
	(*(size_t *)ctx)++;
}

static int
do_log(const char *box, const struct args *a, struct box_err *e)
{
	struct logctx l = { a->json, 0, 0 };
	size_t total = 0, bad;
	int rc;

	if ((rc = secret_store_open(store_dir(), e)) < 0 ||
	    (rc = secret_log_each(store_dir(), box, count_line, &total, &bad,
	    e)) < 0)
		return rc;
	if (a->count > 0 && total > (size_t)a->count)
		l.skip = total - (size_t)a->count;
	if (!a->json)
		printf("%-23s %-16s %-16s %-6s %3s %8s %8s %9s %s\n", "TIME",
		    "BOX", "SECRET", "METHOD", "ST", "IN", "OUT", "TOOK",
		    "HOST/PATH");
	rc = secret_log_each(store_dir(), box, log_line, &l, &bad, e);
	if (rc == 0 && bad > 0)
		fprintf(stderr, "box: note: %zu line%s of the log could not "
		    "be read\n", bad, bad == 1 ? "" : "s");
	return rc;
}

static int
do_url(const char *box, const char *name, struct box_err *e)
{
	if (!secret_name_ok(name))
		return err_usage(e, "'%s' is not a secret name", name);
	printf(DOOR_URL_FMT "\n", DOOR_PORT, name);
	return 0;
}

/* The positionals each subcommand takes: [min, max] after the word. */
static int
nargs(const char *what, int n, struct box_err *e)
{
	static const struct {
		const char *w, *syn;
		int lo, hi;
	} t[] = {
		{ "add", "<name>", 1, 1 }, { "list", "", 0, 0 },
		{ "rm", "<name>", 1, 1 }, { "grant", "<box> <name>", 2, 2 },
		{ "revoke", "<box> <name>", 2, 2 },
		{ "url", "<box> <name>", 2, 2 }, { "log", "[<box>]", 0, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(what, t[i].w) == 0) {
			if (n < t[i].lo || n > t[i].hi)
				return err_usage(e, "usage: box secret %s %s",
				    t[i].w, t[i].syn);
			return 0;
		}
	return err_usage(e, "secret: '%s' is not add, list, rm, grant, "
	    "revoke, url or log", what);
}

int
cmd_secret(int argc, char **argv, struct box_err *e)
{
	struct args a = { NULL, NULL, NULL, NULL, NULL, 0, 0, 50 };
	struct opt_result res;
	char **p;
	int rc;
	const struct opt rows[] = {
		OPT_WORDS("add|list|rm|grant|revoke|url|log", 1, 1,
		    "add list rm grant revoke url log", "what to do"),
		OPT_ARG("<arg>", 0, 2, OC_NONE, "add, rm: <name>; grant, "
		    "revoke, url: <box> <name>; log: [<box>]"),
		OPT_STR("--host", "host[:port]", &a.host, OC_NONE,
		    "add: the upstream the secret is for (https)"),
		OPT_STR("--header", "name", &a.header, OC_NONE,
		    "add: the header it goes in (Authorization)"),
		OPT_STR("--scheme", "bearer|basic|raw", &a.scheme, OC_NONE,
		    "add: Bearer <v>, Basic base64(<v>) or <v> as it is "
		    "(bearer for Authorization, else raw)"),
		OPT_STR("--from-file", "path", &a.file, OC_FILE, "add: the "
		    "value from a file only you own and read (else stdin)"),
		OPT_STR("--from-env", "VAR", &a.env, OC_NONE,
		    "add: the value from an environment variable"),
		OPT_FLAG("--force", "-f", &a.force, "add: replace one that "
		    "exists; rm: without asking"),
		OPT_INT("--last", "n", &a.count, 1, 100000,
		    "log: the newest n lines (50)"),
		OPT_FLAG("--json", NULL, &a.json, "list, log: as JSON"),
		OPT_END
	};

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if ((rc = nargs(res.pos[0], res.npos - 1, e)) < 0)
		return rc;
	p = res.pos + 1;
	if (strcmp(res.pos[0], "add") == 0)
		return do_add(p[0], &a, e);
	if (strcmp(res.pos[0], "list") == 0)
		return do_list(&a, e);
	if (strcmp(res.pos[0], "rm") == 0)
		return do_rm(p[0], &a, e);
	if (strcmp(res.pos[0], "grant") == 0 ||
	    strcmp(res.pos[0], "revoke") == 0)
		return do_grant(p[0], p[1], strcmp(res.pos[0], "grant") == 0,
		    e);
	if (strcmp(res.pos[0], "url") == 0)
		return do_url(p[0], p[1], e);
	return do_log(res.npos > 1 ? p[0] : NULL, &a, e);
}
