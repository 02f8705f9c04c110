/* doctor_shape.c - a box's whole shape as findings (see doctor_shape.h). */
#include "host/doctor/doctor_shape.h"

void
dr_shape(struct dr_report *r, const struct incus_instance *in,
    const char *subject)
{
	struct shape_report s;
	int i;

	if (shape_check(in, &s) == 0) {
		dr_add(r, "box.shape", subject, DR_PASS, NULL, "exactly box's "
		    "shape: one NIC eth0 with the contract's keys, the root "
		    "disk, no device but its doors, no privilege, no raw.* "
		    "key");
		return;
	}
	for (i = 0; i < s.n; i++)
		dr_add(r, "box.shape", subject, DR_FAIL, "take it off the box "
		    "(or off the profile it comes from), or mint the box anew "
		    "with box new", "%s", s.what[i]);
	if (s.more > 0)
		dr_add(r, "box.shape", subject, DR_FAIL, NULL, "and %d more "
		    "problem%s with its shape", s.more, s.more == 1 ? "" : "s");
}
