/*
 * fuzz_doctor.c - what box doctor reads from elsewhere, under arbitrary
 * bytes: a box's own report, a line record (a box is not trusted), the
 * dnsmasq lease file (its names are the boxes' choice), a dnsmasq
 * command line and configuration and /proc/net/if_inet6 (a DNS reply and
 * resolv.conf: fuzz_dnsq.c); and an
 * instance object judged for its shape (its device and key names are
 * whoever configured the box's choice).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/doctor/doctor.h"
#include "host/doctor/doctor_shape.h"
#include "incus/instance.h"
#include "incus/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dr_report r;
	static struct shape_report shape;
	static int ready;
	struct json_doc doc;
	struct incus_instance in;
	char names[8][64], dev[16], where[32], *copy;
	struct dr_dnsmasq dm;
	struct dr_dns d;
	struct box_err e;

	if (!ready && dr_report_init(&r) == 0)
		ready = 1;
	if (!ready)
		return 0;
	copy = malloc(size + 1);	/* exact size: ASan sees overreads */
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	dr_dnsmasq_argv(copy, size, "boxnet", &dm);
	dr_dns_parse(copy, size, &d);
	dr_leases_names(copy, size, names, 8);
	dr_inet6_global(copy, size, dev, sizeof(dev));
	dr_report_reset(&r);
	err_clear(&e);
	dr_merge_box(&r, "box fuzz", copy, size, where, sizeof(where), &e);
	err_clear(&e);
	if (json_parse(&doc, copy, size, &e) == 0) {
		err_clear(&e);
		if (incus_instance_from_json(&doc, 0, INCUS_INST_STATE, &in,
		    &e) == 0) {
			shape_check(&in, &shape);
			dr_report_reset(&r);
			dr_shape(&r, &in, "box fuzz");
			incus_instance_free(&in);
		}
		json_free(&doc);
	}
	free(copy);
	return 0;
}
