#ifndef GATEWAY_ADMISSION_GW_MAP_INT_H
#define GATEWAY_ADMISSION_GW_MAP_INT_H

/* The compiled MutatingAdmissionPolicy's layout, shared by gw_map_compile.c (which builds it)
 * and gw_map_eval.c (which reads it). Folder-internal. */

#include "gw_map_compile.h"
#include "gw_vap_int.h"

typedef struct {
    gw_map_patch_t type;
    gw_vap__expr_t expr; /* src NULL: not compiled (GW_MAP_NONE) */
} gw_map__mutation_t;

struct gw_map_compiled {
    gw_vap_compiled_t *base; /* name, failure policy, params, variables, matchConditions */
    bool reinvoke;
    gw_map__mutation_t *mutations;
    size_t nmutations;
};

#endif
