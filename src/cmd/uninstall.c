/*
 * box uninstall [<version>] [--all] [--purge-host] [--force]
 *
 * One version: removes <root>/versions/<v>, never the default one.
 * Everything: the PATH links that lead into the install first (so nothing
 * can start a half-removed tree), the manual page and completions the
 * installer wrote (listed in <root>/DOCS), then the install root; refused while
 * boxes exist unless --purge-host takes the host stack (and its boxes)
 * down first through `box teardown-host`.  Each form ends with an absence
 * check that names whatever survived (exit 1).
 *
 * Consent (checklist §1.6): --force or a yes in BOX_YES (consent_parse:
 * 1, yes, true) skip the question; without a terminal and without either,
 * exit 2.  BOX_YES=0/no/false is no yes; a BOX_YES that is neither is a
 * usage error before anything is looked at.  With --purge-host the one
 * question covers both the teardown and the removal, and teardown-host is
 * then run with --yes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "host/install/install.h"
#include "host/install/nestguard.h"
#include "host/install/presence.h"
#include "util/opt.h"
#include "util/prompt.h"

#define MAX_LINKS 4
#define MAX_DOCS 4
#define CONSENT_FLAG "--force (or BOX_YES=1)"

static int
writable(const struct inst *in, struct box_err *e)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/versions", in->root);
	if (access(in->root, W_OK) == 0 && access(p, W_OK) == 0)
		return 0;
	err_set(e, -EACCES, "%s is not writable by this user", in->root);
	err_fix(e, "%s", geteuid() != 0 ? "a global install is uninstalled "
	    "as root: sudo box uninstall" : "check the install's permissions");
	return -EACCES;
}

static int
one(const struct inst *in, const char *v, int force, struct box_err *e)
{
	char cur[PATH_MAX], dir[PATH_MAX + 96], q[PATH_MAX + 160];
	int rc;

	if (!inst_version_ok(v))
		return err_set(e, -EINVAL, "'%s' is not a version name", v);
	if (!inst_has(in, v)) {
		err_set(e, -ENOENT, "no such version: %s (in %s)", v, in->root);
		err_fix(e, "see: box versions");
		return -ENOENT;
	}
	if (inst_current(in, cur, sizeof(cur)) != 0) {
		err_set(e, -ESTALE, "%s/current is missing or broken, so the "
		    "default version is unknown — nothing was removed",
		    in->root);
		err_fix(e, "repair the default first: box use <version>");
		return -ESTALE;
	}
	if (strcmp(cur, v) == 0) {
		err_set(e, -EBUSY, "%s is the default version", v);
		err_fix(e, "switch first (box use <other>), or remove "
		    "everything: box uninstall --all");
		return -EBUSY;
	}
	snprintf(q, sizeof(q), "remove box version %s from %s", v, in->root);
	if (!force && (rc = prompt_consent(q, CONSENT_FLAG, e)) < 0)
		return rc;
	snprintf(dir, sizeof(dir), "%s/versions/%s", in->root, v);
	inst_rmtree(dir);
	if (inst_exists(dir)) {
		err_set(e, -EIO, "uninstall INCOMPLETE — still present: %s",
		    dir);
		return -EIO;
	}
	fprintf(stderr,
	    "box: removed version %s (the default stays %s)\n", v, cur);
	return 0;
}

static int
teardown(struct box_err *e)
{
	const struct verb *t = verb_find("teardown-host");
	char *targv[] = { (char *)"teardown-host", (char *)"--yes", NULL };
	int rc;

	rc = t->fn(2, targv, e);
	if (rc != 0) {
		if (rc > 0)
			err_set(e, -EIO, "teardown-host exited %d", rc);
		err_context(e, "teardown-host did not complete, so the "
		    "install was left in place");
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

/*
 * The manual page and completions the installer wrote (<root>/DOCS, one
 * absolute path a line).  The list is the install's own, but a path is
 * taken only when it is one of the four names the installer writes, so a
 * tampered list cannot aim the removal elsewhere.
 */
static int
docs_read(const struct inst *in, char (*out)[PATH_MAX], int max)
{
	static const char *const ends[] = { "/man/man1/box.1",
	    "/bash-completion/completions/box", "/zsh/site-functions/_box",
	    "/fish/vendor_completions.d/box.fish" };
	char path[PATH_MAX + 8], line[PATH_MAX];
	FILE *f;
	int n = 0;
	size_t i, len, el;

	snprintf(path, sizeof(path), "%s/DOCS", in->root);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		len = strcspn(line, "\n");
		line[len] = '\0';
		if (line[0] != '/' || strstr(line, "/../") != NULL)
			continue;
		for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			el = strlen(ends[i]);
			if (len > el && strcmp(line + len - el, ends[i]) == 0) {
				snprintf(out[n++], PATH_MAX, "%s", line);
				break;
			}
		}
	}
	fclose(f);
	return n;
}

/* " path path..." of whatever still exists, "" when nothing does. */
static void
survivors(const struct inst *in, char (*links)[PATH_MAX], int n, char *buf,
    size_t cap)
{
	size_t k = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i <= n && k < cap; i++) {
		const char *p = i < n ? links[i] : in->root;

		if (inst_exists(p))
			k += (size_t)snprintf(buf + k, cap - k, " %s", p);
	}
}

static int
everything(const struct inst *in, int purge, int force, struct box_err *e)
{
	char links[MAX_LINKS + MAX_DOCS][PATH_MAX], q[PATH_MAX + 160];
	struct presence p;
	char left[1024];
	int n, i, rc;

	if (purge && verb_find("teardown-host") == NULL) {
		err_set(e, -ENOTSUP, "--purge-host needs 'box teardown-host', "
		    "which this box (%s) does not have — nothing was removed",
		    BOX_VERSION);
		err_fix(e, "take the host stack down with a box that has "
		    "teardown-host, or uninstall just the CLI: box uninstall "
		    "--all");
		return -ENOTSUP;
	}
	if (purge && (rc = nestguard_check("uninstall --purge-host",
	    NG_CHANGE, NULL, e)) < 0)
		return rc;
	if (!purge) {
		presence_probe(&p, 0);
		rc = presence_refuse_boxes(&p, "uninstall box", e);
		if (rc < 0) {
			err_fix(e, "remove them first (box down, box export, "
			    "box rm), or take everything down: box uninstall "
			    "--all --purge-host");
			return rc;
		}
	}
	snprintf(q, sizeof(q), "%sremove the ENTIRE box install at %s "
	    "(every version)", purge ? "tear down the box host stack (every "
	    "box with it) and " : "", in->root);
	if (!force && (rc = prompt_consent(q, CONSENT_FLAG, e)) < 0)
		return rc;
	if (purge && (rc = teardown(e)) < 0)
		return rc;
	n = inst_links(in, NULL, links, MAX_LINKS);
	n += docs_read(in, links + n, MAX_DOCS);	/* box.1, completions */
	for (i = 0; i < n; i++)
		inst_rmtree(links[i]);
	inst_rmtree(in->root);
	survivors(in, links, n, left, sizeof(left));
	if (left[0] != '\0')
		return err_set(e, -EIO, "uninstall INCOMPLETE — still "
		    "present:%s", left);
	fprintf(stderr, "box: uninstalled — removed:\n");
	for (i = 0; i < n; i++)
		fprintf(stderr, "  %s\n", links[i]);
	fprintf(stderr, "  %s\n", in->root);
	if (!purge)
		fprintf(stderr,
		    "the host stack was not touched (box teardown-host "
		    "removes it)\n");
	return 0;
}

int
cmd_uninstall(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct inst in;
	int rc, force, yes, all, purge_host;
	const struct opt rows[] = {
		OPT_ARG("<version>", 0, 1, OC_NONE, "remove this version only "
		    "(never the default)"),
		OPT_FLAG("--all", NULL, &all, "the whole install (the default "
		    "without a version)"),
		OPT_FLAG("--purge-host", NULL, &purge_host, "first take the "
		    "box host stack and its boxes down with 'box "
		    "teardown-host'"),
		OPT_FLAG("--force", "-f", &force, "do not ask (as BOX_YES=1)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos == 1 && all)
		return err_usage(e, "a version or --all, not both");
	if (res.npos == 1 && purge_host)
		return err_usage(e, "--purge-host goes with removing "
		    "everything, not one version");
	if ((yes = consent_env(e)) < 0)
		return yes;
	force = force || yes;
	rc = inst_locate(&in, 0, e);
	if (rc == 0)
		rc = writable(&in, e);
	if (rc < 0)
		return rc;
	if (res.npos == 1)
		return one(&in, res.pos[0], force, e);
	return everything(&in, purge_host, force, e);
}
