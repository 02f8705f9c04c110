/*
 * completion.c - `box completion bash|zsh|fish` and `box help --man`:
 * shell completion and the manual page, both written from the verb table
 * (cmd/verbs.c), so a verb added there is completed and documented
 * without anyone touching this file.
 *
 * A verb's options are the --words its synopsis and help page name; a
 * verb whose synopsis starts with <box> completes box names, which the
 * scripts ask `box list` for when the user presses tab.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

#define MAX_OPTS 24
#define OPT_LEN	 32

struct verb_opts {
	char name[MAX_OPTS][OPT_LEN];
	int n;
};

static int
opt_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

static void
opts_add(struct verb_opts *o, const char *p, size_t len)
{
	int i;

	if (len < 3 || len >= OPT_LEN || o->n >= MAX_OPTS)
		return;
	for (i = 0; i < o->n; i++)
		if (strlen(o->name[i]) == len &&
		    memcmp(o->name[i], p, len) == 0)
			return;
	memcpy(o->name[o->n], p, len);
	o->name[o->n][len] = '\0';
	o->n++;
}

/* Every "--word" in text: an option of the verb. */
static void
opts_scan(struct verb_opts *o, const char *text)
{
	const char *p = text;

	while (p != NULL && (p = strstr(p, "--")) != NULL) {
		size_t len = 2;

		if (p > text && opt_char(p[-1])) {	/* a-b--c: not one */
			p += 2;
			continue;
		}
		while (opt_char(p[len]) && len < OPT_LEN)
			len++;
		if (len > 2 && p[2] != '-')
			opts_add(o, p, len);
		p += len;
	}
}

/*
 * A page's option list: lines that start (after the indent) with "-",
 * up to the gap before the description.  Prose that mentions another
 * program's flag (incus image import --alias) is not an option of ours.
 */
static void
opts_scan_page(struct verb_opts *o, const char *page)
{
	char line[128];
	const char *p = page, *nl, *s;
	size_t len;

	for (; *p != '\0'; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		for (s = p; s < nl && *s == ' '; s++)
			;
		if (s == p || *s != '-')
			continue;
		len = (size_t)(nl - s);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		if ((s = strstr(line, "   ")) != NULL)
			line[s - line] = '\0';
		opts_scan(o, line);
	}
}

static void
verb_opts(const struct verb *v, struct verb_opts *o)
{
	memset(o, 0, sizeof(*o));
	opts_scan(o, v->synopsis);
	if (v->page != NULL)
		opts_scan_page(o, v->page);
	opts_add(o, "--help", 6);
}

static int
takes_box(const struct verb *v)
{
	return strncmp(v->synopsis, "<box>", 5) == 0 ||
	    strstr(v->synopsis, "[<box>") != NULL;
}

/* The verb and its aliases, space-separated, for a case pattern. */
static void
print_names(const struct verb *v, const char *sep)
{
	const struct verb_alias *a;

	fputs(v->name, stdout);
	for (a = box_aliases; a->word != NULL; a++)
		if (strcmp(a->verb, v->name) == 0)
			printf("%s%s", sep, a->word);
}

static void
print_opts(const struct verb *v, const char *sep)
{
	struct verb_opts o;
	int i;

	verb_opts(v, &o);
	for (i = 0; i < o.n; i++)
		printf("%s%s", i ? sep : "", o.name[i]);
}

/* Words that follow some verbs: their own sub-words. */
static const char *
verb_words(const struct verb *v)
{
	if (strcmp(v->name, "firewall") == 0)
		return "apply show";
	if (strcmp(v->name, "completion") == 0)
		return "bash zsh fish";
	return NULL;
}

static void
all_verbs(const char *sep, int with_aliases)
{
	const struct verb *v;
	const struct verb_alias *a;
	int n = 0;

	for (v = box_verbs; v->name != NULL; v++)
		if (!(v->flags & V_HIDDEN))
			printf("%s%s", n++ ? sep : "", v->name);
	if (with_aliases)
		for (a = box_aliases; a->word != NULL; a++)
			printf("%s%s", sep, a->word);
}

/* What follows the verb besides options: sub-words, or (help) verbs. */
static void
print_words(const struct verb *v, const char *sep)
{
	if (strcmp(v->name, "help") == 0)
		all_verbs(sep, 0);
	else if (verb_words(v) != NULL)
		fputs(verb_words(v), stdout);
}

#define BOX_NAMES "box list 2>/dev/null | awk 'NR > 1 { print $1 }'"

static void
bash_script(void)
{
	const struct verb *v;

	puts("# bash completion for box (written by box completion bash)");
	puts("_box()\n{\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} opts= words= boxes=0");
	fputs("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"", stdout);
	all_verbs(" ", 1);
	puts("\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in");
	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		fputs("\t", stdout);
		print_names(v, "|");
		fputs(") opts=\"", stdout);
		print_opts(v, " ");
		fputs("\"; words=\"", stdout);
		print_words(v, " ");
		printf("\"; boxes=%d ;;\n", takes_box(v));
	}
	puts("\tesac\n"
	    "\tcase $cur in\n"
	    "\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
	    "\t*)  if [ \"$boxes\" = 1 ]; then\n"
	    "\t\t\twords=\"$words $(" BOX_NAMES ")\"\n"
	    "\t\tfi\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\")) ;;\n"
	    "\tesac\n}\ncomplete -F _box box");
}

static void
zsh_script(void)
{
	const struct verb *v;

	puts("#compdef box\n"
	    "# zsh completion for box (written by box completion zsh)\n"
	    "_box()\n{\n\tlocal -a opts words\n\tlocal boxes=0");
	fputs("\tif (( CURRENT == 2 )); then\n\t\tcompadd -- ", stdout);
	all_verbs(" ", 1);
	puts("\n\t\treturn\n\tfi\n\tcase $words[2] in");
	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		fputs("\t", stdout);
		print_names(v, "|");
		fputs(") opts=(", stdout);
		print_opts(v, " ");
		fputs("); words=(", stdout);
		print_words(v, " ");
		printf("); boxes=%d ;;\n", takes_box(v));
	}
	puts("\tesac\n"
	    "\tif [[ $PREFIX == -* ]]; then\n"
	    "\t\tcompadd -- $opts\n"
	    "\telse\n"
	    "\t\t(( boxes )) && words+=(${(f)\"$(" BOX_NAMES ")\"})\n"
	    "\t\tcompadd -- $words\n"
	    "\tfi\n}\n"
	    "compdef _box box");
}

/* fish wants one line per verb and per option, each with its condition. */
static void
fish_script(void)
{
	const struct verb *v;
	const struct verb_alias *a;
	struct verb_opts o;
	int i;

	puts("# fish completion for box (written by box completion fish)\n"
	    "complete -c box -f");
	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		printf("complete -c box -n __fish_use_subcommand -a %s "
		    "-d '", v->name);
		for (i = 0; v->summary[i] != '\0'; i++) {
			if (v->summary[i] == '\'' || v->summary[i] == '\\')
				putchar('\\');
			putchar(v->summary[i]);
		}
		puts("'");
	}
	for (a = box_aliases; a->word != NULL; a++)
		printf("complete -c box -n __fish_use_subcommand -a %s "
		    "-d 'same as %s'\n", a->word, a->verb);
	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		verb_opts(v, &o);
		for (i = 0; i < o.n; i++) {
			fputs("complete -c box -n '__fish_seen_subcommand_from ",
			    stdout);
			print_names(v, " ");
			printf("' -l %s\n", o.name[i] + 2);
		}
		if (verb_words(v) != NULL || strcmp(v->name, "help") == 0) {
			fputs("complete -c box -n '__fish_seen_subcommand_from ",
			    stdout);
			print_names(v, " ");
			fputs("' -a '", stdout);
			print_words(v, " ");
			puts("'");
		}
		if (takes_box(v)) {
			fputs("complete -c box -n '__fish_seen_subcommand_from ",
			    stdout);
			print_names(v, " ");
			puts("' -a '(" BOX_NAMES ")'");
		}
	}
}

int
cmd_completion(int argc, char **argv, struct box_err *e)
{
	if (argc != 2)
		return err_usage(e, "usage: box completion bash|zsh|fish");
	if (strcmp(argv[1], "bash") == 0)
		bash_script();
	else if (strcmp(argv[1], "zsh") == 0)
		zsh_script();
	else if (strcmp(argv[1], "fish") == 0)
		fish_script();
	else
		return err_usage(e, "completion for %s: box writes bash, zsh "
		    "and fish", argv[1]);
	return 0;
}

/* --- the manual page -------------------------------------------------------- */

/*
 * Text as roff: backslashes and dashes escaped, a line that would start
 * with a control character guarded, the em dash named.
 */
static void
roff_text(const char *s)
{
	int bol = 1;

	for (; *s != '\0'; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", stdout);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-')
			fputs("\\-", stdout);
		else if (strncmp(s, "\xe2\x80\x94", 3) == 0) {
			fputs("\\(em", stdout);
			s += 2;
		} else
			putchar(*s);
	}
}

static void
man_verb(const struct verb *v)
{
	const struct verb_alias *a;
	int n = 0;

	fputs(".TP\n.B box ", stdout);
	roff_text(v->name);
	if (v->synopsis[0] != '\0') {
		putchar(' ');
		roff_text(v->synopsis);
	}
	putchar('\n');
	roff_text(v->summary);
	for (a = box_aliases; a->word != NULL; a++)
		if (strcmp(a->verb, v->name) == 0)
			printf("%s%s", n++ ? ", " : " (also: ", a->word);
	puts(n ? ")." : ".");
	if (v->page != NULL) {
		puts(".IP\n.nf");
		roff_text(v->page);
		puts(".fi");
	}
}

void
box_manpage(void)
{
	const struct verb *v;
	int g;

	printf(".TH BOX 1 \"\" \"box %s\" \"User Commands\"\n", BOX_VERSION);
	puts(".SH NAME\nbox \\- network\\-isolated, throwaway Incus boxes for "
	    "coding agents\n.SH SYNOPSIS\n.B box\n.I command\n"
	    "[\\fIargs\\fR] [\\fIoptions\\fR]\n.SH DESCRIPTION\n"
	    "A box reaches the public internet and nothing else: not the "
	    "host, not the LAN, not another box.\n"
	    "box only ever touches instances it minted (tagged user.box=1).\n"
	    "Options come after the command; \\-\\-help after any command "
	    "shows its page.");
	for (g = VG_BOXES; g <= VG_INSTALL; g++) {
		printf(".SH %s\n", verb_group_title(g));
		for (v = box_verbs; v->name != NULL; v++)
			if (!(v->flags & V_HIDDEN) && v->group == g)
				man_verb(v);
	}
	for (v = box_verbs; v->name != NULL; v++)
		if (!(v->flags & V_HIDDEN) && v->group == VG_OTHER)
			man_verb(v);
	puts(".SH ENVIRONMENT\n.nf");
	roff_text(box_environment_text());
	puts(".fi\n.SH EXIT STATUS\n0 ok, 1 it went wrong, 2 you asked wrong "
	    "(a usage error, or a destructive verb without consent).\n"
	    ".SH SEE ALSO\n.BR incus (1)");
}
