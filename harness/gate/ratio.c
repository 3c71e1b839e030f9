/* gate/ratio.c: a result's ratio to the gate's baseline (ratio.h). */
#include "gate/ratio.h"

#include "evidence/result_ratio.h"

int gate_result_ratio(const gate_config *c, const run_data *run, const run_result *res,
                      double *ratio, double *lo, double *hi)
{
    return result_ratio(run, res, c->baseline, ratio, lo, hi);
}

int gate_result_point_ratio(const gate_config *c, const run_data *run, const run_result *res, double *ratio)
{
    return result_point_ratio(run, res, c->baseline, ratio);
}
