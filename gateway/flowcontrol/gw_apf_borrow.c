/* Seat borrowing between priority levels, as kube's apf_controller: every level's seat demand is
 * integrated between adjustments, summed up as statistics, and the NominalCLs' sum is shared out
 * again in proportion to what each level showed it needs, within the bounds its lendablePercent
 * and borrowingLimitPercent set. */
#include <math.h>
#include <stdlib.h>

#include "gw_alloc.h"
#include "gw_apf_int.h"

/* kube's seatDemandSmoothingCoefficient: a 5 minute half-life at one adjustment per 10 s */
#define SMOOTHING 0.977
/* kube's MinTarget (a target of 0 would divide by 0) and its rounding tolerance */
#define MIN_TARGET 0.001
#define EPSILON 0.0000001

/* ---- the demand integrator ------------------------------------------------------------------ */

static void
integrate(demand_t *d, int64_t now_ns)
{
    if (d->last_ns != 0 && now_ns > d->last_ns) {
        double dt = (double)(now_ns - d->last_ns) / 1e9;
        d->ix += d->x * dt;
        d->ixx += d->x * d->x * dt;
        d->secs += dt;
    }
    if (now_ns > d->last_ns)
        d->last_ns = now_ns;
}

void
gw_apf__demand_note(level_t *pl, int64_t now_ns)
{
    demand_t *d = &pl->demand;

    integrate(d, now_ns);
    d->x = pl->seats_in_use + pl->waiting_seats;
    if (d->x > d->max)
        d->max = d->x;
    gw_apf__timing_note(pl, now_ns);
}

/* kube's seatDemandStats.update from the integrator's results, which restarts from now. */
static void
stats_update(level_t *pl, int64_t now_ns)
{
    demand_t *d = &pl->demand;
    demand_stats_t *s = &pl->stats;

    integrate(d, now_ns);
    s->hwm = d->max;
    if (d->secs > 0) {
        double avg = d->ix / d->secs, var = d->ixx / d->secs - avg * avg;
        s->avg = avg;
        s->stdev = var > 0 ? sqrt(var) : 0; /* rounding may leave a constant's a tiny minus */
        double envelope = avg + s->stdev;
        s->smoothed = fmax(envelope, SMOOTHING * s->smoothed + (1 - SMOOTHING) * envelope);
    }
    d->ix = d->ixx = d->secs = 0;
    d->max = d->x;
}

/* ---- the allocation ------------------------------------------------------------------------- */

static double
clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* What the allocation sums to when every item gets `fair` times its target, within bounds. */
static double
sum_at(const gw_apf_alloc_item_t *items, const double *targets, size_t n, double fair)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += clamp(fair * targets[i], items[i].lower, items[i].upper);
    return sum;
}

static int
by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The sum is piecewise linear and non-decreasing in `fair`, bending only where an item reaches a
 * bound: find the stretch between two such points that crosses `required` and solve there. */
static double
solve(double required, const gw_apf_alloc_item_t *items, const double *targets, size_t n)
{
    double *points = gw_calloc(2 * n, sizeof(*points));
    double fair = 0;

    for (size_t i = 0; i < n; i++) {
        points[2 * i] = items[i].lower / targets[i];
        points[2 * i + 1] = items[i].upper / targets[i];
    }
    qsort(points, 2 * n, sizeof(*points), by_value);
    double lo = points[0], lo_sum = sum_at(items, targets, n, lo);
    for (size_t k = 1; k < 2 * n; k++) {
        double hi = points[k], hi_sum = sum_at(items, targets, n, hi);
        if (hi_sum >= required) {
            fair = hi_sum > lo_sum ? lo + (required - lo_sum) * (hi - lo) / (hi_sum - lo_sum) : hi;
            break;
        }
        lo = hi;
        lo_sum = hi_sum;
    }
    free(points);
    return fair;
}

bool
gw_apf_allocate(int required, const gw_apf_alloc_item_t *items, size_t n, double *allocs,
                double *fair)
{
    double low = 0, high = 0, lb_min = INFINITY, ub_max = 0;
    double *targets = gw_calloc(n + 1, sizeof(*targets));
    bool ok = required >= 0;

    for (size_t i = 0; ok && i < n; i++) {
        const gw_apf_alloc_item_t *it = &items[i];
        ok = it->lower >= 0 && it->target >= it->lower && it->upper >= it->lower;
        targets[i] = it->target < MIN_TARGET ? MIN_TARGET : it->target;
        low += it->lower;
        high += it->upper;
        lb_min = fmin(lb_min, it->lower / targets[i]);
        ub_max = fmax(ub_max, it->upper / targets[i]);
    }
    ok = ok && low - required <= EPSILON && required - high <= EPSILON;
    if (ok) {
        double f = required == 0                ? 0
                   : low - required > -EPSILON  ? lb_min /* no room: all at their least */
                   : required - high > -EPSILON ? ub_max /* or all at their most */
                                                : solve(required, items, targets, n);
        for (size_t i = 0; i < n; i++)
            allocs[i] = required == 0 ? 0 : clamp(f * targets[i], items[i].lower, items[i].upper);
        *fair = f;
    }
    free(targets);
    return ok;
}

/* ---- the adjustment ------------------------------------------------------------------------- */

void
gw_apf__adjust_locked(gw_apf_t *a, int64_t now_ns)
{
    size_t n = 0, i = 0;

    for (level_t *l = a->levels; l != NULL; l = l->next)
        n += l->active;
    gw_apf_alloc_item_t *items = gw_calloc(n + 1, sizeof(*items));
    double *allocs = gw_calloc(n + 1, sizeof(*allocs));
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (!l->active)
            continue;
        gw_apf__timing_note(l, now_ns); /* what was observed so far, against the old limit */
        stats_update(l, now_ns);
        /* a level keeps at least what it used lately, up to its nominal seats (KEP-1040) */
        double lower = fmax(l->min_cl, fmin(l->nominal, l->stats.hwm));
        items[i++] = (gw_apf_alloc_item_t){fmax(lower, l->stats.smoothed), lower, l->max_cl};
    }
    double fair = a->fair_frac;
    bool ok = gw_apf_allocate(a->nominal_sum, items, n, allocs, &fair);
    i = 0;
    for (level_t *l = a->levels; l != NULL; l = l->next) {
        if (!l->active)
            continue;
        l->stats.target = items[i].target;
        if (ok) /* otherwise each keeps its limit, as kube's backstop */
            l->cl = (int)round(allocs[i]);
        i++;
    }
    a->fair_frac = fair;
    free(items);
    free(allocs);
}
