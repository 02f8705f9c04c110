/*
 * doctor_shape.h - a box's whole shape (host/stack/shape.h) as doctor's
 * findings.
 */
#ifndef BOX_DOCTOR_SHAPE_H
#define BOX_DOCTOR_SHAPE_H

#include "host/doctor/doctor.h"
#include "host/stack/shape.h"

/* shape_check as findings "box.shape" under subject: one PASS or FAILs. */
void dr_shape(struct dr_report *r, const struct incus_instance *in,
    const char *subject);

#endif
