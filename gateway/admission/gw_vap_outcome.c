/*
 * The ValidatingAdmissionPolicy dispatcher's words: denials, warnings and audit annotations.
 */
#include "gw_vap_outcome.h"

#include <stdint.h>
#include <string.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_vap_int.h"

void
gw_vap_outcome_clear(gw_vap_outcome_t *o)
{
    free(o->deny_message);
    for (size_t i = 0; i < o->nwarnings; i++)
        free(o->warnings[i]);
    free(o->warnings);
    for (size_t i = 0; i < o->nannotations; i++) {
        free(o->annotations[i].key);
        free(o->annotations[i].value);
    }
    free(o->annotations);
    for (size_t i = 0; i < o->npending; i++) {
        free(o->pending[i].key);
        free(o->pending[i].value);
    }
    free(o->pending);
    memset(o, 0, sizeof(*o));
}

int
gw_vap_reason_code(const char *reason)
{
    if (reason == NULL)
        return 422;
    if (strcmp(reason, "Unauthorized") == 0)
        return 401;
    if (strcmp(reason, "Forbidden") == 0)
        return 403;
    if (strcmp(reason, "RequestEntityTooLarge") == 0)
        return 413;
    return 422;
}

/* The static form of a reason kube allows (the policy's copy may be freed before the answer
 * goes out); anything else is Invalid, as validation only lets these through. */
static const char *
static_reason(const char *reason)
{
    static const char *const known[] = {"Unauthorized", "Forbidden", "RequestEntityTooLarge",
                                        "Invalid"};
    for (size_t i = 0; reason != NULL && i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(reason, known[i]) == 0)
            return known[i];
    return "Invalid";
}

char *
gw_vap_deny_message(const char *policy, const char *binding, const char *message)
{
    if (binding == NULL)
        return gw_sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", policy, message);
    return gw_sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policy,
                      binding, message);
}

char *
gw_vap_warning_text(const char *policy, const char *binding, const char *message)
{
    return gw_sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s",
                      policy, binding, message);
}

/* A string as Go's encoding/json writes it: HTML-sensitive characters and U+2028/U+2029
 * escaped, invalid UTF-8 replaced by U+FFFD. */
static void
go_json_string(gw_buf_t *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    gw_buf_char(b, '"');
    while (*p) {
        unsigned c = *p;
        if (c < 0x80) {
            if (c == '"' || c == '\\')
                gw_buf_printf(b, "\\%c", c);
            else if (c == '\n')
                gw_buf_str(b, "\\n");
            else if (c == '\r')
                gw_buf_str(b, "\\r");
            else if (c == '\t')
                gw_buf_str(b, "\\t");
            else if (c < 0x20 || c == '<' || c == '>' || c == '&')
                gw_buf_printf(b, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            else
                gw_buf_char(b, (char)c);
            p++;
            continue;
        }
        size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
        bool ok = n > 0 && c < 0xF5 && !(c == 0xC0 || c == 0xC1);
        for (size_t i = 1; ok && i < n; i++)
            ok = (p[i] & 0xC0) == 0x80;
        if (ok && n == 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            gw_buf_printf(b, "\\u202%c", p[2] == 0xA8 ? '8' : '9');
        } else if (ok) {
            gw_buf_add(b, p, n);
        } else {
            gw_buf_str(b, "\xEF\xBF\xBD");
            n = 1;
        }
        p += n;
    }
    gw_buf_char(b, '"');
}

char *
gw_vap_validation_failure_json(const char *policy, const char *binding, size_t index,
                               const char *message, const json_t *actions)
{
    gw_buf_t b = {0};
    gw_buf_str(&b, "[{\"message\":");
    go_json_string(&b, message);
    gw_buf_str(&b, ",\"policy\":");
    go_json_string(&b, policy);
    gw_buf_str(&b, ",\"binding\":");
    go_json_string(&b, binding);
    gw_buf_printf(&b, ",\"expressionIndex\":%zu,\"validationActions\":", index);
    if (!json_is_array(actions)) {
        gw_buf_str(&b, "null");
    } else {
        gw_buf_char(&b, '[');
        for (size_t i = 0; i < json_array_size(actions); i++) {
            const char *s = json_string_value(json_array_get(actions, i));
            if (i > 0)
                gw_buf_char(&b, ',');
            go_json_string(&b, s ? s : "");
        }
        gw_buf_char(&b, ']');
    }
    gw_buf_str(&b, "}]");
    return gw_buf_take(&b);
}

static void
deny(gw_vap_outcome_t *o, const char *policy, const char *binding, const char *reason,
     const char *message)
{
    if (o->deny_message != NULL)
        return; /* the first denial is the answer */
    o->deny_message = gw_vap_deny_message(policy, binding, message);
    o->deny_reason = static_reason(reason);
    o->deny_code = gw_vap_reason_code(o->deny_reason);
}

void
gw_vap_outcome_config_error(gw_vap_outcome_t *o, const char *policy, const char *binding,
                            bool ignore, const char *err)
{
    if (ignore)
        return;
    char *m = gw_sprintf("failed to configure %s: %s", binding ? "binding" : "policy", err);
    deny(o, policy, binding, NULL, m);
    free(m);
}

static void
annotation_add(gw_vap_annotation_t **list, size_t *n, const char *key, const char *value)
{
    *list = gw_realloc(*list, (*n + 1) * sizeof(**list));
    (*list)[*n] = (gw_vap_annotation_t){gw_strdup(key), gw_strdup(value)};
    (*n)++;
}

/* attributes.AddAnnotation: a key once set keeps its value (kube refuses an overwrite with
 * another value, and the dispatcher only logs that). */
static void
publish(gw_vap_outcome_t *o, const char *key, const char *value)
{
    for (size_t i = 0; i < o->nannotations; i++)
        if (strcmp(o->annotations[i].key, key) == 0)
            return;
    annotation_add(&o->annotations, &o->nannotations, key, value);
}

static void
apply_decision(gw_vap_outcome_t *o, const char *policy, const char *binding, const json_t *actions,
               size_t index, const gw_vap_decision_t *d)
{
    for (size_t k = 0; k < json_array_size(actions); k++) {
        const char *act = json_string_value(json_array_get(actions, k));
        if (act == NULL)
            continue;
        if (strcmp(act, "Deny") == 0) {
            deny(o, policy, binding, d->reason, d->message);
        } else if (strcmp(act, "Warn") == 0) {
            o->warnings = gw_realloc(o->warnings, (o->nwarnings + 1) * sizeof(*o->warnings));
            o->warnings[o->nwarnings++] = gw_vap_warning_text(policy, binding, d->message);
        } else if (strcmp(act, "Audit") == 0) {
            char *v = gw_vap_validation_failure_json(policy, binding, index, d->message, actions);
            publish(o, GW_VAP_VALIDATION_FAILURE_KEY, v);
            free(v);
        }
    }
}

void
gw_vap_outcome_add(gw_vap_outcome_t *o, const char *policy, const json_t *binding_doc,
                   const gw_vap_result_t *r)
{
    const char *binding =
        json_string_value(json_object_get(json_object_get(binding_doc, "metadata"), "name"));
    const json_t *actions =
        json_object_get(json_object_get(binding_doc, "spec"), "validationActions");
    binding = binding ? binding : "";
    for (size_t i = 0; i < r->ndecisions; i++)
        if (r->decisions[i].action == GW_VAP_DENY)
            apply_decision(o, policy, binding, actions, i, &r->decisions[i]);
    for (size_t i = 0; i < r->naudits; i++) {
        const gw_vap_audit_t *au = &r->audits[i];
        if (au->action == GW_VAP_AUDIT_ERROR) {
            /* An audit annotation's error denies whatever the validationActions say. */
            deny(o, policy, binding, NULL, au->error);
        } else if (au->action == GW_VAP_AUDIT_PUBLISH) {
            size_t len = strlen(au->value);
            char *v = gw_strndup(au->value, len > GW_VAP__MAX_AUDIT_VALUE_BYTES
                                                ? GW_VAP__MAX_AUDIT_VALUE_BYTES
                                                : len);
            bool seen = false;
            for (size_t j = 0; j < o->npending && !seen; j++)
                seen =
                    strcmp(o->pending[j].key, au->key) == 0 && strcmp(o->pending[j].value, v) == 0;
            if (!seen)
                annotation_add(&o->pending, &o->npending, au->key, v);
            free(v);
        }
    }
}

void
gw_vap_outcome_end_policy(gw_vap_outcome_t *o, const char *policy)
{
    for (size_t i = 0; i < o->npending; i++) {
        if (o->pending[i].key == NULL)
            continue; /* joined into an earlier one */
        gw_buf_t b = {0};
        gw_buf_str(&b, o->pending[i].value);
        for (size_t j = i + 1; j < o->npending; j++) {
            if (o->pending[j].key != NULL && strcmp(o->pending[j].key, o->pending[i].key) == 0) {
                gw_buf_printf(&b, ", %s", o->pending[j].value);
                free(o->pending[j].key);
                o->pending[j].key = NULL;
            }
        }
        char *key = gw_sprintf("%s/%s", policy, o->pending[i].key);
        publish(o, key, gw_buf_cstr(&b));
        free(key);
        gw_buf_free(&b);
    }
    for (size_t i = 0; i < o->npending; i++) {
        free(o->pending[i].key);
        free(o->pending[i].value);
    }
    free(o->pending);
    o->pending = NULL;
    o->npending = 0;
}
