/*
 * verbs.c - the verb table (its rows are verbs.def) and the help it
 * renders.  Adding a verb means one file in src/cmd/ and one row in
 * verbs.def.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_test.h"
#include "util/opt.h"

const struct verb box_verbs[] = {
/* The rows are in verbs.def: one VERB() each, also read by cmd.h. */
#define VERB(name, fn, summary, page, flags, group, examples) \
	{ name, fn, summary, page, flags, group, examples },
#include "cmd/verbs.def"
#undef VERB
	{ NULL, NULL, NULL, NULL, 0, 0, NULL }
};

/*
 * The words people type for a verb because another tool taught them
 * (docker, incus, git, ssh).  Each runs the verb it names, as if spelled
 * so; `box help` lists them.  A word is never also a verb's name.
 */
const struct verb_alias box_aliases[] = {
	{ "create",	"new" },
	{ "launch",	"new" },
	{ "ls",		"list" },
	{ "ps",		"list" },
	{ "show",	"info" },
	{ "sh",		"shell" },
	{ "ssh",	"shell" },
	{ "run",	"exec" },
	{ "up",		"start" },
	{ "stop",	"down" },
	{ "halt",	"down" },
	{ "reboot",	"restart" },
	{ "delete",	"rm" },
	{ "remove",	"rm" },
	{ "destroy",	"rm" },
	{ "snap",	"snapshot" },
	{ "check",	"doctor" },
	{ NULL,		NULL }
};

static const struct verb *
verb_named(const char *name)
{
	const struct verb *v;

	for (v = box_verbs; v->name != NULL; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

const struct verb *
verb_find(const char *name)
{
	const struct verb_alias *a;
	const struct verb *v = verb_named(name);

	if (v != NULL)
		return v;
	for (a = box_aliases; a->word != NULL; a++)
		if (strcmp(a->word, name) == 0)
			return verb_named(a->verb);
	return NULL;
}

/*
 * Closest listed verb or alias.  An alias that wins suggests the verb it
 * stands for.  Destructive verbs must be one edit away: `box up` is two
 * edits from `rm`, and a suggestion is something people run.
 */
const struct verb *
verb_suggest(const char *name)
{
	const struct verb *v, *best = NULL;
	const struct verb_alias *a;
	size_t len = strlen(name);
	/*
	 * One edit for a word of four letters or fewer, two for a longer one
	 * (a swap of neighbours is one): `box foo` is two edits from root,
	 * which is no guess worth making.
	 */
	int bestd = len > 4 ? 3 : len > 1 ? 2 : 1, d;

	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		d = str_distance(name, v->name, 2);
		if ((v->flags & V_DESTRUCTIVE) && d > 1)
			continue;
		if (d < bestd) {
			bestd = d;
			best = v;
		}
	}
	for (a = box_aliases; a->word != NULL; a++) {
		v = verb_named(a->verb);
		if (v == NULL)
			continue;
		d = str_distance(name, a->word, 2);
		if ((v->flags & V_DESTRUCTIVE) && d > 1)
			continue;
		if (d < bestd) {
			bestd = d;
			best = v;
		}
	}
	return best;
}

/* The verb's examples, from its own row in verbs.def (or NULL). */
const char *
verb_examples(const char *name)
{
	const struct verb *v = verb_named(name);

	return v != NULL ? v->examples : NULL;
}

/* "EXAMPLES" and each example, the command padded to its comment. */
static void
print_examples(const char *name)
{
	const char *x = verb_examples(name), *tab, *nl;

	if (x == NULL)
		return;
	fputs("\nEXAMPLES\n", stdout);
	for (; *x != '\0'; x = *nl ? nl + 1 : nl) {
		nl = x + strcspn(x, "\n");
		tab = memchr(x, '\t', (size_t)(nl - x));
		if (tab == NULL)
			tab = nl;
		if (tab - x > 40)
			printf("  %.*s\n%44s", (int)(tab - x), x, "");
		else
			printf("  %-42.*s", (int)(tab - x), x);
		printf("%.*s\n", tab < nl ? (int)(nl - tab - 1) : 0,
		    tab < nl ? tab + 1 : "");
	}
}

/*
 * The words people try that box has no verb for, each with what to run
 * instead: said, never run (they are near verbs that do something else).
 */
static const struct {
	const char *word, *instead;
} box_hints[] = {
	{ "attach",	"box tmux <box> (a session that survives), or box "
			  "shell <box>" },
	{ "enter",	"box shell <box>" },
	{ "login",	"box shell <box>, or box root <box>" },
	{ "kill",	"box down <box> --force" },
	{ "pause",	"box down <box> (box has no frozen state)" },
	{ "freeze",	"box down <box> (box has no frozen state)" },
	{ "top",	"box info <box>" },
	{ "stats",	"box info <box>" },
	{ "inspect",	"box info <box> (--json for the model)" },
	{ "copy",	"box cp <box>:<path> <local> (files), or box new <new> "
			  "--from <box> (a box)" },
	{ "clone",	"box new <new> --from <box>[/<snapshot>]" },
	{ "pull",	"box cp <box>:<path> <local>" },
	{ "push",	"box cp <local> <box>:<path>" },
	{ "mv",		"box rename <box> <new>" },
	{ "commit",	"box snapshot <box> <label>" },
	{ "rollback",	"box restore <box> <label>" },
	{ "revert",	"box restore <box> <label>" },
	{ "images",	"box templates" },
	{ "port",	"box expose <box> <port>" },
	{ "publish",	"box expose <box> <port>" },
	{ "forward",	"box expose <box> <port>" },
	{ "network",	"box egress <box> (what it may reach)" },
	{ "firewall-show", "box firewall show" },
	{ NULL,		NULL }
};

int
verb_unknown(const char *name, struct box_err *e)
{
	const struct verb *v;
	char list[1024];
	size_t at = 0;
	int i;

	for (i = 0; box_hints[i].word != NULL; i++)
		if (strcmp(box_hints[i].word, name) == 0) {
			err_usage(e, "box has no '%s' command", name);
			err_fix(e, "%s", box_hints[i].instead);
			return -EINVAL;
		}
	if ((v = verb_suggest(name)) != NULL) {
		err_usage(e, "unknown command: %s — did you mean '%s'?", name,
		    v->name);
		err_fix(e, "box help %s (box help lists the commands)",
		    v->name);
		return -EINVAL;
	}
	err_usage(e, "unknown command: %s", name);
	for (v = box_verbs; v->name != NULL; v++) {
		int n;

		if ((v->flags & V_HIDDEN) || (v->group != VG_BOXES &&
		    v->group != VG_LIFECYCLE))
			continue;
		n = snprintf(list + at, at < sizeof(list) ? sizeof(list) - at :
		    0, "%s%s", at ? " " : "", v->name);
		at += n > 0 ? (size_t)n : 0;
	}
	err_fix(e, "the commands for boxes: %.300s (box help lists them "
	    "all)", list);
	return -EINVAL;
}

const char *
box_version_string(char *buf, size_t cap)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		snprintf(self, sizeof(self), "unknown path");
	else
		self[n] = '\0';
	snprintf(buf, cap, "box %s (%s)", BOX_VERSION, self);
	return buf;
}

/* A JSON string of s on stdout (a path may hold anything). */
static void
json_str_out(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

struct syn {
	char *buf;
	size_t size;
};

static void
syn_hook(const char *verb, const struct opt *rows, void *ctx)
{
	struct syn *s = ctx;

	(void)verb;
	opt_synopsis(rows, s->buf, s->size);
}

int
verb_synopsis(const struct verb *v, char *buf, size_t size)
{
	struct syn s = { buf, size };

	if (size > 0)
		buf[0] = '\0';
	return opt_describe(v->name, v->fn, syn_hook, &s) ? 0 : -ENOENT;
}

/* "usage: box new --name <box> [--template <t>] ...", broken before "[". */
static void
usage_line(const char *name, const char *syn)
{
	int col = printf("usage: box %s", name);
	const char *p = syn, *q;

	while (*p != '\0') {
		q = strstr(p + 1, " [");
		if (q == NULL)
			q = p + strlen(p);
		if (col + (q - p) + 1 > 78 && col > 20)
			col = printf("\n           %*s", (int)strlen(name), "");
		col += printf(" %.*s", (int)(q - p), p);
		p = *q ? q + 1 : q;
	}
	putchar('\n');
}

static void
usage_hook(const char *verb, const struct opt *rows, void *ctx)
{
	const struct verb *v = ctx;
	char syn[400];

	(void)verb;
	opt_synopsis(rows, syn, sizeof(syn));
	usage_line(v->name, syn);
	putchar('\n');
	fputs(v->page != NULL ? v->page : v->summary, stdout);
	if (v->page == NULL)
		putchar('\n');
	opt_help(rows, stdout);
	print_examples(v->name);
}

/* The page, then the rows' own help: both from what the verb parses. */
void
verb_usage(const struct verb *v)
{
	if (opt_describe(v->name, v->fn, usage_hook, (void *)v))
		return;
	printf("usage: box %s\n\n", v->name);
	fputs(v->page != NULL ? v->page : v->summary, stdout);
	if (v->page == NULL)
		putchar('\n');
	print_examples(v->name);
}

static const char *const verb_groups[] = {
	[VG_BOXES]	= "BOXES",
	[VG_LIFECYCLE]	= "LIFECYCLE",
	[VG_HOST]	= "THE HOST",
	[VG_INSTALL]	= "THIS PROGRAM",
	[VG_OTHER]	= "MORE",
};

/*
 * Every environment variable box reads, once: `box help` and box.1 list
 * this table, and tests/cli/run.sh fails when the source reads one that
 * is not in it.  Verb pages say how a verb uses the ones it reads.  A
 * name ending in '*' stands for the family.
 */
struct box_env {
	const char *names;	/* "BOX_CPU, BOX_MEMORY": the same text */
	const char *text;
};

static const struct box_env box_env[] = {
	{ "INCUS_SOCKET", "the daemon's socket (default "
	  "$INCUS_DIR/unix.socket)" },
	{ "INCUS_DIR", "the daemon's directory (/var/lib/incus)" },
	{ "BOX_PROJECT", "the Incus project (default: the daemon's)" },
	{ "BOX_IO_TIMEOUT", "seconds to wait on one daemon reply (30)" },
	{ "BOX_LAUNCH_TIMEOUT", "seconds a mint may take (600)" },
	{ "BOX_TEMPLATES", "a directory of templates to use instead" },
	{ "BOX_IMAGE, BOX_CPU, BOX_MEMORY, BOX_DISK", "a mint's image and "
	  "resources (see box help new)" },
	{ "BOX_TEMPLATE, BOX_EGRESS, BOX_IDLE_STOP", "a mint's template, "
	  "egress policy and idle-stop; these and the four above win over "
	  "~/.config/box/config and /etc/box/config (box config)" },
	{ "BOX_SNAPSHOT_PRISTINE", "0: no 'pristine' snapshot at mint" },
	{ "RIG_REPO, RIG_REF", "where a template's rig role comes from" },
	{ "BOX_YES", "1/yes/true answer yes where a verb says so" },
	{ "BOX_SUBNET, BOX_DNS", "setup-host's subnet pin and the boxes' "
	  "resolvers (default 1.1.1.1 8.8.8.8)" },
	{ "BOX_RESOLVER", "setup-host: box (the default: box's own resolver "
	  "serves the boxes' DNS, dnsmasq DHCP only) or dnsmasq (a fallback: "
	  "no view, budget or cache per box)" },
	{ "BOX_ALLOW_NESTED", "1: build a host stack even inside a box" },
	{ "PATH", "where setup-host looks for btrfs (btrfs-progs) and "
	  "apt-get" },
	{ "BOX_EGRESS_STATE", "the egress state file (an absolute path)" },
	{ "BOX_BLOCK, BOX_CONN_MAX", "setup-host: the operator's blocklist "
	  "(IPv4 prefixes no box reaches) and each box's connection cap "
	  "(2048)" },
	{ "BOX_FIREWALL_DATA", "the firewall data file (an absolute path)" },
	{ "BOX_SECRETS", "the secret store (an absolute path; default "
	  "/var/lib/box/secrets, the one box's door reads)" },
	{ "BOX_DOOR_TEST, BOX_DOOR_TEST_CA", "tests only: 1 lets the door "
	  "trust the PEM CA file named instead of the host's bundle" },
	{ "BOX_GUARD", "setup-host: 0 starts no guard (tests whose controls "
	  "break the contract on purpose)" },
	{ "BOX_GUARD_LOG", "the guard's log (an absolute path; "
	  "/var/log/box-guard.log)" },
	{ "BOX_IMPORT_MAX_MB", "the most an import may unpack to (default: "
	  "the pool's free space, else 65536)" },
	{ "BOX_DOCTOR_PROBE_ADDR, BOX_DOCTOR_PROBE_NAME", "the public address "
	  "and name doctor probes" },
	{ "BOX_VERIFY_*", "verify's targets and timeout (see box help "
	  "verify)" },
	{ "BOX_MIGRATE_TIMEOUT, BOX_MIGRATE_PROBE_NAME, BOX_MIGRATE_ONLY",
	  "migrate-host (see box help migrate-host)" },
	{ "BOX_HOME, BOX_BIN", "the install root and where its links go" },
	{ "BOX_SHARE", "install.sh: where box.1 and the completions go "
	  "(default: share/ beside BOX_BIN)" },
	{ "BOX_INSTALL_SOURCE, BOX_RELEASE_URL", "install.sh: a local "
	  "release, or where to fetch one" },
	{ "BOX_VERSION, BOX_REINSTALL", "install.sh: which version, and "
	  "replacing one whose bytes differ" },
	{ "BOX_SKIP_SETUP_HOST", "install.sh: do not offer box setup-host" },
	{ "BOX_REMOTE", "ssh://[user@]host[:port]: as --remote" },
	{ "BOX_REMOTE_SOCKET", "the remote daemon's socket (default "
	  "/var/lib/incus/unix.socket, or unix.socket.user there when the "
	  "login may not open that)" },
	{ "XDG_RUNTIME_DIR", "where --remote makes its private socket "
	  "directory (else /tmp)" },
	{ "HOME", "where a user's install lives (~/.local/share/box)" },
	{ "TERM", "passed to a box's terminal session" },
	{ "BOX_DOCTOR_INSIDE, BOX_INBOX_REPORT", "set by box for its own "
	  "in-box runs; not for you" },
	{ "BOX_MIGRATE_INSIDE, BOX_MIGRATE_GATEWAY", "the same, for "
	  "migrate-host" },
	{ NULL, NULL }
};

/* The table as text: names, then their line from column 25, wrapped. */
const char *
box_environment_text(char *buf, size_t cap)
{
	const struct box_env *v;
	size_t at = 0;
	FILE *f;

	buf[0] = '\0';
	if (cap < 2 || (f = fmemopen(buf, cap - 1, "w")) == NULL)
		return buf;
	for (v = box_env; v->names != NULL; v++) {
		const char *t = v->text;
		int col = fprintf(f, "  %s", v->names);

		if (col > 24) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%*s", 25 - col, "");
		while (*t != '\0') {
			int n = (int)strlen(t), cut = n;

			if (n > 78 - 25) {
				for (cut = 78 - 25; cut > 0 && t[cut] != ' ';
				    cut--)
					;
				if (cut == 0)
					cut = n;
			}
			fprintf(f, "%.*s\n", cut, t);
			t += cut;
			while (*t == ' ')
				t++;
			if (*t != '\0')
				fprintf(f, "%25s", "");
		}
	}
	at = (size_t)ftell(f);
	fclose(f);
	buf[at < cap ? at : cap - 1] = '\0';
	return buf;
}

const char *
verb_group_title(int g)
{
	if (g < 0 || g >= (int)(sizeof(verb_groups) / sizeof(verb_groups[0])))
		g = VG_OTHER;
	return verb_groups[g];
}

static void
usage_group(int g)
{
	const struct verb *v;
	int any = 0;

	for (v = box_verbs; v->name != NULL; v++) {
		if ((v->flags & V_HIDDEN) || v->group != g)
			continue;
		if (!any++)
			printf("\n%s\n", verb_groups[g]);
		printf("  %-14s %s\n", v->name, v->summary);
	}
}

static void
usage_aliases(void)
{
	const struct verb_alias *a;
	const char *last = NULL;
	int col = 0;

	fputs("\nALIASES", stdout);
	for (a = box_aliases; a->word != NULL; a++) {
		if (last == NULL || strcmp(last, a->verb) != 0) {
			if (col > 56)
				col = 0;
			col += printf("%s%s: %s", col ? ";  " : "\n  ",
			    a->verb, a->word);
		} else
			col += printf(", %s", a->word);
		last = a->verb;
	}
	fputs("\n", stdout);
}

void
box_usage(void)
{
	char env[4096];
	int g;

	printf("box %s — network-isolated, throwaway Incus boxes for coding "
	    "agents\n\n", BOX_VERSION);
	fputs("USAGE\n  box <command> [<args>] [options]\n"
	    "  box --remote ssh://[user@]host[:port] <command> ...   that "
	    "host's boxes,\n    through ssh (README: Remote use over SSH)\n",
	    stdout);
	for (g = VG_BOXES; g <= VG_INSTALL; g++)
		usage_group(g);
	usage_group(VG_OTHER);
	usage_aliases();
	puts("\nOPTIONS (after the command)\n"
	    "  -h, --help     help for that command\n"
	    "  -V, --version  print the version\n"
	    "  --json         machine-readable output, where offered\n");
	fputs("ENVIRONMENT\n", stdout);
	fputs(box_environment_text(env, sizeof(env)), stdout);
	puts("\nEXIT STATUS\n"
	    "  0 ok, 1 it went wrong, 2 you asked wrong\n\n"
	    "THE MODEL\n"
	    "  A box reaches the public internet and nothing else: not the host,\n"
	    "  not the LAN, not another box.  box only ever touches instances it\n"
	    "  minted (tagged user.box=1).");
}

int
cmd_version(int argc, char **argv, struct box_err *e)
{
	int json;
	const struct opt rows[] = {
		OPT_FLAG("--json", NULL, &json, "{version, path}"),
		OPT_END
	};
	struct opt_result res;
	char self[4096];
	ssize_t n;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	if (!json) {
		puts(box_version_string(self, sizeof(self)));
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	fputs("{\"version\":", stdout);
	json_str_out(BOX_VERSION);
	fputs(",\"path\":", stdout);
	if (n > 0)
		json_str_out(self);
	else
		fputs("null", stdout);
	puts("}");
	return 0;
}
