/*
 * box new - mint a box from a template, or clone one: the options read
 * and checked here, the pipeline run by box/mint_run.c (which narrates its
 * stages and removes a half-made box), its result printed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box/each.h"
#include "box/egress.h"
#include "box/mint.h"
#include "box/mint_run.h"
#include "cmd/cmd.h"
#include "util/opt.h"

/* --egress: a policy as box/egress.h has it, or a usage error. */
static int
egress_usage(const char *v, struct box_err *e)
{
	struct egress *p = malloc(sizeof(*p));
	char why[200];
	int rc;

	if (p == NULL)
		return err_set(e, -ENOMEM, "out of memory");
	rc = egress_parse(v, p, why, sizeof(why));
	free(p);
	if (rc < 0)
		return err_usage(e, "--egress: %s", why);
	return 0;
}

int
cmd_new(int argc, char **argv, struct box_err *e)
{
	struct opt_result res;
	struct box_mint_req q;
	struct box_mint_out out;
	const char *name, *tpl, *from, *cpu, *memory, *disk, *image, *egress;
	int rc, vm, ct;
	const struct opt rows[] = {
		OPT_NEED("--name", "<box>", &name, OC_NONE, "the new box's "
		    "name"),
		OPT_STR("--template", "<t>", &tpl, OC_TEMPLATE, "the template "
		    "(default blank; see box templates)"),
		OPT_STR("--from", "<box>[/<snap>]", &from, OC_BOX, "clone a "
		    "box or one of its snapshots instead: re-stamped as a "
		    "clone, its source's doors left behind, a machine "
		    "identity (and so a DHCP lease) of its own; resources, "
		    "mode and image come from the source"),
		OPT_STR("--cpu", "n", &cpu, OC_NONE, "CPUs; --cpu, --memory "
		    "and --disk are passed to Incus as given; they win over "
		    "BOX_CPU/BOX_MEMORY/BOX_DISK, which win over the template"),
		OPT_STR("--memory", "s", &memory, OC_NONE, "memory, as 2GiB"),
		OPT_STR("--disk", "s", &disk, OC_NONE, "a VM's disk size; a "
		    "container's disk limit where its pool enforces one "
		    "(btrfs, zfs, lvm: a write past it fails)"),
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
		OPT_STR("--egress", "allow:<name>,...", &egress, OC_NONE, "the "
		    "egress policy: open, or allow:<name>[,...] (wins over the "
		    "template's BOX_EGRESS; a clone inherits its source's; see "
		    "box help egress)"),
		OPT_END
	};

	rc = opt_parse(argc, argv, rows, &res, e);
	if (rc < 0)
		return rc;
	if ((rc = box_new_name_ok(name, "", e)) < 0)
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
	}
	if (egress != NULL && (rc = egress_usage(egress, e)) < 0)
		return rc;
	memset(&q, 0, sizeof(q));
	q.name = name;
	q.from = from;
	q.template_ = tpl;
	q.cpu = cpu;
	q.memory = memory;
	q.disk = disk;
	q.image = image;
	q.egress = egress;
	q.mode = vm ? MINT_VM : ct ? MINT_CT : MINT_AUTO;
	if ((rc = box_mint(&q, &out, e)) < 0)
		return rc;
	printf("%s\n", out.ready);
	if (out.note[0] != '\0')
		printf("%s\n", out.note);
	return 0;
}
