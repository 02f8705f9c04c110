/*
 * box new - mint a box from a template, or clone one: the options read
 * and checked here, the pipeline run by box/life/mint_run.c (which narrates its
 * stages and removes a half-made box), its result printed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/conf.h"
#include "box/each.h"
#include "box/life/idle.h"
#include "box/egress/egress.h"
#include "box/input.h"
#include "box/life/mint.h"
#include "box/life/mint_run.h"
#include "cmd/cmd.h"
#include "cmd/model.h"
#include "util/opt.h"

/*
 * --egress: a policy as box/egress/egress.h has it, or a usage error.  Each name
 * of an allow list as people paste it (https://GitHub.com/x) is made a
 * name first, with a note; *out is the policy to use (malloc'd).
 */
static int
egress_usage(const char *v, char **out, struct box_err *e)
{
	struct egress *p = malloc(sizeof(*p));
	char why[200], one[EGRESS_PATMAX + 2];
	size_t at, n;
	const char *q;
	int rc;

	*out = malloc(strlen(v) + 1);
	if (p == NULL || *out == NULL) {
		free(p);
		return err_set(e, -ENOMEM, "out of memory");
	}
	snprintf(*out, strlen(v) + 1, "%s", v);
	if (strncmp(v, "allow:", 6) == 0) {
		at = 6;
		for (q = v + 6; ; q += n + 1) {
			n = strcspn(q, ",");
			snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) -
			    1 ? n : sizeof(one) - 1), q);
			if (egress_normalise(one, why, sizeof(why)))
				fprintf(stderr, "box: note: %s\n", why);
			at += (size_t)snprintf(*out + at, strlen(v) + 1 - at,
			    "%s%s", at > 6 ? "," : "", one);
			if (q[n] == '\0')
				break;
		}
	}
	rc = egress_parse(*out, p, why, sizeof(why));
	free(p);
	if (rc < 0)
		return err_usage(e, "--egress: %s", why);
	return 0;
}

/* --cpu/--memory/--disk: checked and normalised before anything is asked. */
static int
shape_usage(const char **cpu, const char **memory, const char **disk,
    char *mem, char *dsk, size_t cap, struct box_err *e)
{
	char why[200];

	if (*cpu != NULL && input_cpu(*cpu, why, sizeof(why)) < 0)
		return err_usage(e, "%s", why);
	if (*memory != NULL) {
		if (input_size(*memory, IS_MEMORY, mem, cap, why,
		    sizeof(why)) < 0)
			return err_usage(e, "--memory: %s", why);
		*memory = mem;
	}
	if (*disk != NULL) {
		if (input_size(*disk, IS_DISK, dsk, cap, why, sizeof(why)) < 0)
			return err_usage(e, "--disk: %s", why);
		*disk = dsk;
	}
	return 0;
}

int
cmd_new(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_mint_req q;
	struct box_mint_out out;
	const char *name, *tpl, *from, *cpu, *memory, *disk, *image, *egress;
	const char *target = NULL;
	const char *idle, *idle_from;
	char mem[32], dsk[32], idl[24], why[80], *egn = NULL;
	long idle_s;
	int rc, vm, ct, json;
	const struct opt rows[] = {
		OPT_ARG("<name>", 0, 1, OC_NONE, "the new box's name; without "
		    "one (or --name) a readable one is made up and printed"),
		OPT_STR("--name", "<box>", &name, OC_NONE, "the new box's "
		    "name (the same as <name>)"),
		OPT_STR("--template", "<t>", &tpl, OC_TEMPLATE, "the template "
		    "(default blank; see box templates)"),
		OPT_STR("--from", "<box>[/<snap>]", &from, OC_BOX, "clone a "
		    "box or one of its snapshots instead: re-stamped as a "
		    "clone, its source's doors left behind, a machine "
		    "identity (and so a DHCP lease) of its own; resources, "
		    "mode and image come from the source; left as its source "
		    "box is: a stopped box's clone stays stopped (box start), "
		    "a running box's is started"),
		OPT_STR("--cpu", "n", &cpu, OC_NONE, "CPUs: a count (2) or a "
		    "set to pin (0-3); --cpu, --memory and --disk are checked "
		    "before anything is made, and win over "
		    "BOX_CPU/BOX_MEMORY/BOX_DISK, which win over the template"),
		OPT_STR("--memory", "s", &memory, OC_NONE, "memory: 2G, 2GiB, "
		    "512M (binary; 2GB is decimal) or 50% of the host's"),
		OPT_STR("--disk", "s", &disk, OC_NONE, "a VM's disk size, as "
		    "--memory; a container's disk limit where its pool "
		    "enforces one (btrfs, zfs, lvm: a write past it fails)"),
		OPT_FLAG("--vm", NULL, &vm, "a VM; by default a VM where the "
		    "host can run one (/dev/kvm and a VM driver in Incus), "
		    "else a container"),
		OPT_FLAG("--container", NULL, &ct, "a container, which shares "
		    "the host's kernel: weaker isolation, said so when chosen"),
		OPT_STR("--image", "<alias>", &image, OC_NONE, "the image, "
		    "over BOX_IMAGE and the template's: 'images:<alias>' is "
		    "the public image server, a bare alias a local image.  "
		    "Air-gapped hosts import one first (incus image import "
		    "<tarball> --alias <a>) and mint with --image <a>"),
		OPT_STR("--target", "<member>", &target, OC_NONE, "on an Incus "
		    "cluster: the member it lands on (one in cluster group "
		    "box); by default any of them"),
		OPT_STR("--egress", "allow:<name>,...", &egress, OC_NONE, "the "
		    "egress policy: open, or allow:<name>[,...] (wins over the "
		    "template's BOX_EGRESS; a clone inherits its source's; see "
		    "box help egress)"),
		OPT_STR("--idle-stop", "<duration>", &idle, OC_NONE, "stop "
		    "the box once nothing has used it this long (90s, 30m, 2h, "
		    "1d): no exec or shell session and under 2% of a CPU, by "
		    "the daemon's counters; checked by box new, list and "
		    "prune (over BOX_IDLE_STOP, the config files and the "
		    "template's)"),
		OPT_FLAG("--json", NULL, &json, "the new box as box list "
		    "--json shows it, on stdout"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if (res.npos == 1 && name != NULL && strcmp(name, res.pos[0]) != 0)
		return err_usage(e, "two names for one box: '%s' and --name "
		    "'%s'", res.pos[0], name);
	if (res.npos == 1)
		name = res.pos[0];
	if (name != NULL && (rc = box_new_name_ok(name, "", e)) < 0)
		return rc;
	if (vm && ct)
		return err_usage(e, "--vm and --container contradict each "
		    "other");
	if (from != NULL) {
		if (tpl != NULL)
			return err_usage(e, "--from clones an existing box; "
			    "its template rides along (drop --template)");
		if (cpu != NULL || memory != NULL || disk != NULL)
			return err_usage(e, "--cpu/--memory/--disk shape a "
			    "fresh mint; a clone carries its source's "
			    "resources (change them later with: box incus "
			    "<box> -- config set {} limits.cpu=N)");
		if (vm || ct)
			return err_usage(e, "a clone is the same kind of "
			    "instance as its source (drop --vm/--container)");
		if (image != NULL)
			return err_usage(e, "a clone's disk comes from its "
			    "source, not an image (drop --image)");
		if (idle != NULL)
			return err_usage(e, "a clone keeps its source's "
			    "idle-stop (drop --idle-stop)");
	}
	/* below the flags: BOX_* from the environment, then the files */
	if ((rc = conf_load(e)) < 0)
		return rc;
	if (from == NULL && tpl == NULL)
		tpl = conf_get(CONF_TEMPLATE);
	if (from == NULL && egress == NULL)
		egress = conf_get(CONF_EGRESS);
	idle_from = "--idle-stop";
	if (from == NULL && idle == NULL) {
		idle = conf_get(CONF_IDLE_STOP);
		idle_from = conf_from(CONF_IDLE_STOP);
	}
	if (idle != NULL) {
		if (idle_duration(idle, &idle_s, why, sizeof(why)) < 0)
			return err_usage(e, "%s: %s", idle_from, why);
		snprintf(idl, sizeof(idl), "%ld", idle_s);
		idle = idl;
	}
	if (egress != NULL && (rc = egress_usage(egress, &egn, e)) < 0)
		goto out;
	if (egn != NULL)
		egress = egn;
	if ((rc = shape_usage(&cpu, &memory, &disk, mem, dsk, sizeof(mem),
	    e)) < 0)
		goto out;
	memset(&q, 0, sizeof(q));
	q.name = name;
	q.from = from;
	q.template_ = tpl;
	q.cpu = cpu;
	q.memory = memory;
	q.disk = disk;
	q.image = image;
	q.egress = egress;
	q.target = target;
	q.idle_stop = idle;
	q.mode = vm ? MINT_VM : ct ? MINT_CT : MINT_AUTO;
	box_idle_sweep_once();
	if ((rc = box_mint(&q, &out, e)) < 0)
		goto out;
	/* the name on stdout (b=$(box new)); the sentence is for people */
	fflush(stdout);
	fprintf(stderr, "%s\n", out.ready);
	if (out.note[0] != '\0')
		fprintf(stderr, "%s\n", out.note);
	if (json)
		rc = model_print(out.name, e);
	else
		printf("%s\n", out.name);
out:
	free(egn);
	return rc;
}
