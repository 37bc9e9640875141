/*
 * A CustomResourceDefinition's conversion as kube validates it (validation.go's
 * validateCustomResourceConversion, with apiserver's util/webhook ValidateWebhookURL and
 * ValidateWebhookService, gw_webhook_client_valid.h): the strategy, the webhook's client config
 * and the ConversionReview versions, at the internal form's paths
 * (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions). Not checked: a
 * caBundle's PEM.
 */
#include "gw_crd_valid_int.h"

#include <stdlib.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_names.h"
#include "gw_webhook_client_valid.h"

#define MEMBER(o, k) gw_crd__get((o), (k))
#define STR(o, k) gw_crd__str((o), (k))

static void
invalid_str(gw_field_errors_t *e, const char *field, const char *value, const char *detail)
{
    gw_ferr_invalid_str(e, field, value, detail);
}

bool
gw_crd__accepted_review_version(const char *v)
{
    return strcmp(v, "v1") == 0 || strcmp(v, "v1beta1") == 0;
}

static void
review_versions(const json_t *crv, bool require_recognized, gw_field_errors_t *e)
{
    const char *path = "spec.conversion.conversionReviewVersions";
    json_t *seen = json_object(), *x;
    bool accepted = false;
    size_t i;

    if (json_array_size(crv) == 0) {
        gw_ferr_required(e, path, NULL);
        json_decref(seen);
        return;
    }
    json_array_foreach(crv, i, x)
    {
        const char *v = json_is_string(x) ? json_string_value(x) : "", *msg;
        char *p = gw_sprintf("%s[%zu]", path, i);
        if (json_object_get(seen, v) != NULL) {
            invalid_str(e, p, v, "duplicate version");
        } else {
            json_object_set_new(seen, v, json_true());
            if ((msg = gw_valid_dns1035_label(v)) != NULL)
                invalid_str(e, p, v, msg);
            accepted |= gw_crd__accepted_review_version(v);
        }
        free(p);
    }
    json_decref(seen);
    if (require_recognized && !accepted)
        gw_crd__invalid_strings(e, path, crv, "must include at least one of v1, v1beta1");
}

static void
webhook_client_config(const json_t *cc, gw_field_errors_t *e)
{
    const json_t *url = MEMBER(cc, "url"), *svc = MEMBER(cc, "service");

    if ((url == NULL) == (svc == NULL))
        gw_ferr_required(e, "spec.conversion.webhookClientConfig",
                         "exactly one of url or service is required");
    else if (url != NULL)
        gw_webhook_url_validate(json_is_string(url) ? json_string_value(url) : "",
                                "spec.conversion.webhookClientConfig.url", e);
    else
        gw_webhook_service_validate(svc, "spec.conversion.webhookClientConfig.service", e);
}

void
gw_crd__validate_conversion(const json_t *spec, bool require_recognized, gw_field_errors_t *e)
{
    static const char *const strategies[] = {"None", "Webhook", NULL};
    const json_t *conv = MEMBER(spec, "conversion"), *wh = MEMBER(conv, "webhook");
    const json_t *cc = MEMBER(wh, "clientConfig"), *crv = MEMBER(wh, "conversionReviewVersions");
    const char *strategy = STR(conv, "strategy");

    if (conv == NULL)
        return;
    if (strcmp(strategy, "None") != 0 &&
        json_is_true(json_object_get(spec, "preserveUnknownFields")))
        invalid_str(e, "spec.conversion.strategy", strategy,
                    "must be None if spec.preserveUnknownFields is true");
    if (strategy[0] == '\0')
        gw_ferr_required(e, "spec.conversion.strategy", NULL);
    else if (strcmp(strategy, "None") != 0 && strcmp(strategy, "Webhook") != 0)
        gw_ferr_not_supported(e, "spec.conversion.strategy", strategy, strategies);
    if (strcmp(strategy, "Webhook") == 0) {
        if (cc == NULL)
            gw_ferr_required(e, "spec.conversion.webhookClientConfig",
                             "required when strategy is set to Webhook");
        else
            webhook_client_config(cc, e);
        review_versions(crv, require_recognized, e);
        return;
    }
    if (cc != NULL)
        gw_ferr_forbidden(e, "spec.conversion.webhookClientConfig",
                          "should not be set when strategy is not set to Webhook");
    if (json_array_size(crv) > 0)
        gw_ferr_forbidden(e, "spec.conversion.conversionReviewVersions",
                          "should not be set when strategy is not set to Webhook");
}
