#ifndef GATEWAY_SERVER_GW_FEATURES_H
#define GATEWAY_SERVER_GW_FEATURES_H

/*
 * Feature gates as kube-apiserver 1.32 knows them (component-base/featuregate): every gate
 * has a default, a stage and may be locked to its default. --feature-gates names gates to
 * change; an unknown name, a value strconv.ParseBool refuses, or a locked gate set to the
 * other value stops start-up with kube's words. AllAlpha=true and AllBeta=true turn on every
 * alpha (beta) gate not named itself. One set of gates per process.
 */

#include <stdbool.h>
#include <stddef.h>

/**
 * Whether "Name=value" (one item of --feature-gates, spaces around either side allowed) is
 * acceptable: NULL, or kube's error text in a buffer of this thread's, valid until the next
 * call. Thread: any.
 */
const char *gw_features_check(const char *item);

/** s as Go's strconv.ParseBool reads it ("1", "t", "T", "true", "TRUE", "True" and their
 *  false forms) into *out: 0, or -1 for anything else. Thread: any. */
int gw_parse_bool(const char *s, bool *out);

/**
 * Apply the items of --feature-gates in order (a later item for a gate wins), logging kube's
 * warning for each GA or deprecated gate set. Returns 0, or -1 with kube's error in err.
 * Thread: main, before anything reads a gate.
 */
int gw_features_set(const char *const *items, size_t n, char *err, size_t len);

/** Whether gate `name` is on: what gw_features_set made it, else its default; false for a
 *  name kube does not know. Thread: any, after gw_features_set. */
bool gw_feature_enabled(const char *name);

/** Set kubernetes_feature_enabled{name,stage} (BETA) for every gate in the process registry.
 *  Thread: main. */
void gw_features_publish(void);

/** Back to every gate's default (tests). Thread: main. */
void gw_features_reset(void);

#endif
