/*
 * completion.c - `box completion bash|zsh|fish` and `box help --man`:
 * shell completion and the manual page, both written from the verb table
 * (cmd/verbs.def) and each verb's own option rows (util/opt.h), so a verb
 * added there is completed and documented without anyone touching this
 * file.
 *
 * Each verb's rows are read by running it in describe mode (opt_describe):
 * its options (and which of them take a value, and what completes that
 * value), and its positional arguments in order with what completes each
 * one: a box name (asked of `box list` when the user presses tab), a verb,
 * a template (asked of `box templates`), a file, or fixed words.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/opt.h"

#define MAX_ROWS 32

struct shape {
	struct opt row[MAX_ROWS + 1];	/* copies: the texts, not the bindings */
	int n;
};

static void
copy_hook(const char *verb, const struct opt *rows, void *ctx)
{
	struct shape *sh = ctx;

	(void)verb;
	for (sh->n = 0; rows[sh->n].kind != OK_END && sh->n < MAX_ROWS;
	    sh->n++) {
		sh->row[sh->n] = rows[sh->n];
		sh->row[sh->n].bind = NULL;
	}
}

static void
shape_of(const struct verb *v, struct shape *sh)
{
	memset(sh, 0, sizeof(*sh));
	if (!opt_describe(v->name, v->fn, copy_hook, sh))
		sh->n = 0;
}

static int
is_opt(const struct opt *o)
{
	return o->kind >= OK_FLAG && o->kind <= OK_OPTVAL &&
	    !(o->flags & OPT_HIDDEN);
}

static int
takes_value(const struct opt *o)
{
	return o->kind == OK_STR || o->kind == OK_INT || o->kind == OK_LIST;
}

/* A kind as the scripts spell it: box, verb, template, file, =w1,w2, -. */
static void
print_kind(int comp, const char *words)
{
	const char *p;

	switch (comp) {
	case OC_BOX:
		fputs("box", stdout);
		break;
	case OC_VERB:
		fputs("verb", stdout);
		break;
	case OC_TEMPLATE:
		fputs("template", stdout);
		break;
	case OC_FILE:
		fputs("file", stdout);
		break;
	case OC_WORDS:
		putchar('=');
		for (p = words; p != NULL && *p != '\0'; p++)
			putchar(*p == ' ' ? ',' : *p);
		break;
	default:
		putchar('-');
	}
}

/* The verb and its aliases, for a case pattern. */
static void
print_names(const struct verb *v, const char *sep)
{
	const struct verb_alias *a;

	fputs(v->name, stdout);
	for (a = box_aliases; a->word != NULL; a++)
		if (strcmp(a->verb, v->name) == 0)
			printf("%s%s", sep, a->word);
}

/* Every option word (and alias) of the verb, then --help. */
static void
print_opts(const struct shape *sh, const char *sep)
{
	int i;

	for (i = 0; i < sh->n; i++) {
		if (!is_opt(&sh->row[i]))
			continue;
		printf("%s%s", sh->row[i].name, sep);
		if (sh->row[i].alias != NULL)
			printf("%s%s", sh->row[i].alias, sep);
	}
	fputs("--help", stdout);
}

/* The options that take a value, as --opt=kind, space-separated. */
static void
print_vals(const struct shape *sh)
{
	int i, n = 0;

	for (i = 0; i < sh->n; i++) {
		const struct opt *o = &sh->row[i];

		if (!is_opt(o) || !takes_value(o))
			continue;
		printf("%s%s=", n++ ? " " : "", o->name);
		print_kind(o->comp, o->words);
		if (o->alias != NULL) {
			printf(" %s=", o->alias);
			print_kind(o->comp, o->words);
		}
	}
}

/*
 * The positions: one kind per argument slot, in order; a trailing "+"
 * when the last slot repeats (<name>...).  An argument row of up to n
 * takes n slots.
 */
static void
print_args(const struct shape *sh)
{
	int i, n = 0, k;

	for (i = 0; i < sh->n; i++) {
		const struct opt *o = &sh->row[i];
		int slots;

		if (o->kind != OK_ARG || (o->flags & OPT_HIDDEN))
			continue;
		slots = o->max == OPT_ANY ? 1 : o->max;
		for (k = 0; k < slots; k++) {
			if (n++)
				putchar(' ');
			print_kind(o->comp, o->words);
		}
		if (o->max == OPT_ANY) {
			putchar('+');
			break;
		}
	}
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

#define BOX_NAMES "box list 2>/dev/null | awk 'NR > 1 { print $1 }'"
#define TEMPLATES "box templates 2>/dev/null | " \
	"awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }'"

/* One line per verb: its names) opts=...; vals=...; args=... ;; */
static void
verb_cases(const char *pre, const char *open, const char *close)
{
	const struct verb *v;
	struct shape sh;

	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		shape_of(v, &sh);
		fputs(pre, stdout);
		print_names(v, "|");
		printf(") opts=%s", open);
		print_opts(&sh, " ");
		printf("%s; vals=%s", close, open);
		print_vals(&sh);
		printf("%s; args=%s", close, open);
		print_args(&sh);
		printf("%s ;;\n", close);
	}
}

static void
bash_script(void)
{
	puts("# bash completion for box (written by box completion bash)\n"
	    "# Each verb's options and arguments come from its option table:\n"
	    "# vals are the options that take a value (and what completes it),\n"
	    "# args what completes each positional, in order (+ repeats the "
	    "last).");
	puts("_box_kind()\n{\n\tcase $1 in\n"
	    "\tbox) " BOX_NAMES " ;;\n"
	    "\ttemplate) " TEMPLATES " ;;");
	fputs("\tverb) echo \"", stdout);
	all_verbs(" ", 0);
	puts("\" ;;\n"
	    "\t=*) _w=${1#=}; echo \"${_w//,/ }\" ;;\n"
	    "\tesac\n}");
	puts("_box()\n{\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} opts= vals= args= kind=- "
	    "w v i n=0 skip=");
	fputs("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"", stdout);
	all_verbs(" ", 1);
	puts("\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in");
	verb_cases("\t", "\"", "\"");
	puts("\t*) return ;;\n\tesac\n"
	    "\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
	    "\t\tw=${COMP_WORDS[i]}\n"
	    "\t\tif [ -n \"$skip\" ]; then skip=; continue; fi\n"
	    "\t\tcase $w in\n"
	    "\t\t--) COMPREPLY=(); return ;;\n"
	    "\t\t--*=*) ;;\n"
	    "\t\t-?*) for v in $vals; do\n"
	    "\t\t\t[ \"${v%%=*}\" = \"$w\" ] && skip=${v#*=}\n"
	    "\t\t    done ;;\n"
	    "\t\t*) n=$((n + 1)) ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\tif [ -n \"$skip\" ]; then\n"
	    "\t\tkind=$skip\n"
	    "\telif [[ $cur == -* ]]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	    "\t\treturn\n"
	    "\telse\n"
	    "\t\tset -- $args\n"
	    "\t\tif [ \"$n\" -lt $# ]; then\n"
	    "\t\t\tshift \"$n\"; kind=$1\n"
	    "\t\telif [ $# -gt 0 ] && [[ ${!#} == *+ ]]; then\n"
	    "\t\t\tkind=${!#}\n"
	    "\t\tfi\n"
	    "\t\tkind=${kind%+}\n"
	    "\tfi\n"
	    "\tcase $kind in\n"
	    "\tfile) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	    "\t-) COMPREPLY=() ;;\n"
	    "\t*) COMPREPLY=($(compgen -W \"$(_box_kind \"$kind\")\" -- "
	    "\"$cur\")) ;;\n"
	    "\tesac\n}\ncomplete -F _box box");
}

/* The same walk as bash's, in zsh (words is zsh's, 1-based). */
static void
zsh_script(void)
{
	puts("#compdef box\n"
	    "# zsh completion for box (written by box completion zsh)\n"
	    "_box_kind()\n{\n\tcase $1 in\n"
	    "\tbox) " BOX_NAMES " ;;\n"
	    "\ttemplate) " TEMPLATES " ;;");
	fputs("\tverb) print -l ", stdout);
	all_verbs(" ", 0);
	puts(" ;;\n"
	    "\t=*) print -l ${(s:,:)${1#=}} ;;\n"
	    "\tesac\n}");
	puts("_box()\n{\n"
	    "\tlocal opts= vals= args= kind=- w v i n=0 skip=\n"
	    "\tlocal -a al");
	fputs("\tif (( CURRENT == 2 )); then\n\t\tcompadd -- ", stdout);
	all_verbs(" ", 1);
	puts("\n\t\treturn\n\tfi\n\tcase $words[2] in");
	verb_cases("\t", "'", "'");
	puts("\t*) return ;;\n\tesac\n"
	    "\tfor (( i = 3; i < CURRENT; i++ )); do\n"
	    "\t\tw=$words[i]\n"
	    "\t\tif [[ -n $skip ]]; then skip=; continue; fi\n"
	    "\t\tcase $w in\n"
	    "\t\t--) return ;;\n"
	    "\t\t--*=*) ;;\n"
	    "\t\t-?*) for v in ${=vals}; do\n"
	    "\t\t\t[[ ${v%%=*} == $w ]] && skip=${v#*=}\n"
	    "\t\t    done ;;\n"
	    "\t\t*) (( n++ )) ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\tal=(${=args})\n"
	    "\tif [[ -n $skip ]]; then\n"
	    "\t\tkind=$skip\n"
	    "\telif [[ $PREFIX == -* ]]; then\n"
	    "\t\tcompadd -- ${=opts}\n"
	    "\t\treturn\n"
	    "\telif (( n < $#al )); then\n"
	    "\t\tkind=$al[n+1]\n"
	    "\telif (( $#al )) && [[ $al[-1] == *+ ]]; then\n"
	    "\t\tkind=$al[-1]\n"
	    "\tfi\n"
	    "\tkind=${kind%+}\n"
	    "\tcase $kind in\n"
	    "\tfile) _files ;;\n"
	    "\t-) ;;\n"
	    "\t*) compadd -- ${(f)\"$(_box_kind $kind)\"} ;;\n"
	    "\tesac\n}\n"
	    "# autoloaded from fpath this file is _box's first run: complete now\n"
	    "if [[ $funcstack[1] == _box ]]; then _box \"$@\"; "
	    "else compdef _box box; fi");
}

static void
fish_text(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\'' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

static void
fish_source(int comp, const char *words)
{
	switch (comp) {
	case OC_BOX:
		fputs(" -a '(", stdout);
		fish_text(BOX_NAMES);
		fputs(")'", stdout);
		break;
	case OC_TEMPLATE:
		fputs(" -a '(", stdout);
		fish_text(TEMPLATES);
		fputs(")'", stdout);
		break;
	case OC_VERB:
		fputs(" -a '", stdout);
		all_verbs(" ", 0);
		putchar('\'');
		break;
	case OC_FILE:
		fputs(" -F", stdout);
		break;
	case OC_WORDS:
		printf(" -a '%s'", words != NULL ? words : "");
		break;
	}
}

/* fish: one line per verb, per option and per kind of argument. */
static void
fish_verb(const struct verb *v)
{
	struct shape sh;
	int i;

	shape_of(v, &sh);
	for (i = 0; i < sh.n; i++) {
		const struct opt *o = &sh.row[i];

		if (!is_opt(o) && o->kind != OK_ARG)
			continue;
		if (o->kind == OK_ARG && o->comp == OC_NONE)
			continue;
		fputs("complete -c box -n '__fish_seen_subcommand_from ",
		    stdout);
		print_names(v, " ");
		putchar('\'');
		if (is_opt(o)) {
			printf(" -l %s", o->name + 2);
			if (o->alias != NULL)
				printf(" -s %s", o->alias + 1);
			if (takes_value(o))
				fputs(" -r", stdout);
		}
		if (o->kind == OK_ARG || takes_value(o))
			fish_source(o->comp, o->words);
		if (o->help != NULL && is_opt(o)) {
			char d[60];
			char *cut;

			/* fish shows one short line: the help's first clause */
			snprintf(d, sizeof(d), "%s", o->help);
			if (strlen(o->help) >= sizeof(d)) {
				if ((cut = strpbrk(d, ";:(")) != NULL &&
				    cut - d > 8)
					*cut = '\0';
				else if ((cut = strrchr(d, ' ')) != NULL)
					*cut = '\0';
			}
			while ((cut = d + strlen(d)) > d && (cut[-1] == ' ' ||
			    cut[-1] == ','))
				cut[-1] = '\0';
			fputs(" -d '", stdout);
			fish_text(d);
			putchar('\'');
		}
		putchar('\n');
	}
}

static void
fish_script(void)
{
	const struct verb *v;
	const struct verb_alias *a;

	puts("# fish completion for box (written by box completion fish)\n"
	    "complete -c box -f");
	for (v = box_verbs; v->name != NULL; v++) {
		if (v->flags & V_HIDDEN)
			continue;
		printf("complete -c box -n __fish_use_subcommand -a %s -d '",
		    v->name);
		fish_text(v->summary);
		puts("'");
	}
	for (a = box_aliases; a->word != NULL; a++)
		printf("complete -c box -n __fish_use_subcommand -a %s "
		    "-d 'same as %s'\n", a->word, a->verb);
	for (v = box_verbs; v->name != NULL; v++)
		if (!(v->flags & V_HIDDEN))
			fish_verb(v);
}

int
cmd_completion(int argc, char **argv, struct box_err *e)
{
	const struct opt rows[] = {
		OPT_WORDS("bash|zsh|fish", 1, 1, "bash zsh fish", NULL),
		OPT_END
	};
	struct opt_result res;
	const char *sh;
	int rc;

	if ((rc = opt_parse(argc, argv, rows, &res, e)) < 0)
		return rc;
	sh = res.pos[0];
	if (strcmp(sh, "bash") == 0)
		bash_script();
	else if (strcmp(sh, "zsh") == 0)
		zsh_script();
	else if (strcmp(sh, "fish") == 0)
		fish_script();
	else
		return err_usage(e, "completion for %s: box writes bash, zsh "
		    "and fish", sh);
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

/* The rows with help, as an indented list under the verb's entry. */
static void
man_rows(const struct shape *sh)
{
	char label[120];
	int i, any = 0;

	for (i = 0; i < sh->n; i++) {
		const struct opt *o = &sh->row[i];

		if (o->help == NULL || (o->flags & OPT_HIDDEN))
			continue;
		if (!any++)
			puts(".RS");
		opt_label(o, label, sizeof(label));
		fputs(".TP\n.B ", stdout);
		roff_text(label);
		putchar('\n');
		roff_text(o->help);
		putchar('\n');
	}
	if (any)
		puts(".RE");
}

static void
man_verb(const struct verb *v)
{
	const struct verb_alias *a;
	struct shape sh;
	char syn[400];
	int n = 0;

	shape_of(v, &sh);
	sh.row[sh.n].kind = OK_END;
	opt_synopsis(sh.row, syn, sizeof(syn));
	fputs(".TP\n.B box ", stdout);
	roff_text(v->name);
	if (syn[0] != '\0') {
		putchar(' ');
		roff_text(syn);
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
	man_rows(&sh);
}

/* EXAMPLES: one verb's, or (NULL) every verb's, in table order. */
static void
man_examples(const struct verb *only)
{
	const struct verb *v;
	const char *x, *nl, *tab;
	char line[256];

	puts(".SH EXAMPLES");
	for (v = box_verbs; v->name != NULL; v++) {
		if ((only != NULL && v != only) || (v->flags & V_HIDDEN) ||
		    (x = verb_examples(v->name)) == NULL)
			continue;
		for (; *x != '\0'; x = *nl ? nl + 1 : nl) {
			nl = x + strcspn(x, "\n");
			tab = memchr(x, '\t', (size_t)(nl - x));
			if (tab == NULL)
				tab = nl;
			snprintf(line, sizeof(line), "%.*s", (int)(tab - x), x);
			fputs(".TP\n.B ", stdout);
			roff_text(line);
			putchar('\n');
			snprintf(line, sizeof(line), "%.*s", tab < nl ?
			    (int)(nl - tab - 1) : 0, tab < nl ? tab + 1 : "");
			roff_text(line);
			putchar('\n');
		}
	}
}

void
verb_manpage(const struct verb *v)
{
	struct shape sh;
	char syn[400], up[64];
	size_t i;

	for (i = 0; v->name[i] != '\0' && i < sizeof(up) - 1; i++)
		up[i] = (char)(v->name[i] >= 'a' && v->name[i] <= 'z' ?
		    v->name[i] - 'a' + 'A' : v->name[i]);
	up[i] = '\0';
	shape_of(v, &sh);
	sh.row[sh.n].kind = OK_END;
	opt_synopsis(sh.row, syn, sizeof(syn));
	printf(".TH BOX\\-");
	roff_text(up);
	printf(" 1 \"\" \"box %s\" \"User Commands\"\n.SH NAME\nbox\\-",
	    BOX_VERSION);
	roff_text(v->name);
	fputs(" \\- ", stdout);
	roff_text(v->summary);
	fputs("\n.SH SYNOPSIS\n.B box ", stdout);
	roff_text(v->name);
	putchar(' ');
	roff_text(syn);
	puts("\n.SH DESCRIPTION\n.nf");
	roff_text(v->page != NULL ? v->page : v->summary);
	puts("\n.fi\n.SH OPTIONS");
	man_rows(&sh);
	if (verb_examples(v->name) != NULL)
		man_examples(v);
	puts(".SH SEE ALSO\n.BR box (1)");
}

void
box_manpage(void)
{
	const struct verb *v;
	char env[4096];
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
	man_examples(NULL);
	puts(".SH ENVIRONMENT\n.nf");
	roff_text(box_environment_text(env, sizeof(env)));
	puts(".fi\n.SH EXIT STATUS\n0 ok, 1 it went wrong, 2 you asked wrong "
	    "(a usage error, or a destructive verb without consent).\n"
	    ".SH SEE ALSO\n.BR incus (1)");
}
