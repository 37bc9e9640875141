#ifndef GATEWAY_APIEXT_GW_CRD_CONVERSION_H
#define GATEWAY_APIEXT_GW_CRD_CONVERSION_H

/*
 * The ConversionReview exchange of a CRD's `Webhook` conversion strategy, without the call
 * itself (apiextensions-apiserver's webhook_converter.go and converter.go): the request for a
 * batch of objects and a desired apiVersion, and the check of the answer: the review's type
 * and uid, its result, the number, apiVersion, kind and identity of the converted objects, and
 * their metadata, of which only labels and annotations may change (the rest is restored from
 * the originals). Errors carry kube's texts. Pure: no I/O, any thread.
 */

#include <stddef.h>

#include <jansson.h>

/**
 * The ConversionReview version spoken with a webhook: the first of conversionReviewVersions
 * (a JSON array) that kgate knows ("v1" or "v1beta1"), as a static string, or NULL (kube then
 * fails every conversion with "no supported conversion review versions").
 */
const char *gw_crd_review_version(const json_t *review_versions);

/** One conversion of a batch of objects. All borrowed. */
typedef struct {
    const char *review_version; /* "v1" or "v1beta1" */
    const char *uid;            /* the request's uid (a UUID) */
    const char *desired;        /* desiredAPIVersion: "<group>/<version>" */
    const char *from_gvk;       /* what kube names the input: "<group>/<version>, Kind=<Kind>" */
    const char *call_gvk;       /* what the webhook call names it ("/, Kind=" for one object) */
    const json_t *objects;      /* the objects to convert (none already in `desired`) */
} gw_crd_review_t;

/**
 * The ConversionReview request body (compact JSON, malloc'd, NUL-terminated; its length in
 * *len). Thread: any.
 */
char *gw_crd_review_request(const gw_crd_review_t *rv, size_t *len);

/**
 * Check the webhook's answer (an HTTP status and body) to rv: 0 with *out a new array of the
 * converted objects in rv->objects' order, metadata restored as kube restores it; or
 * GW_EINVAL with kube's whole message in err ("conversion for <gvk> failed: conversion webhook
 * for <gvk> failed: ...", "conversion for <gvk> returned 0 objects, expected 1", ...).
 * Thread: any.
 */
int gw_crd_review_response(const gw_crd_review_t *rv, int http_status, const char *body, size_t len,
                           json_t **out, char *err, size_t err_len);

/**
 * kube's message for a call that got no answer (cannot connect, timeout, no address), whose
 * cause is `why` in Go's words (`Post "https://...": dial tcp ...: connect: connection
 * refused`). Thread: any.
 */
void gw_crd_review_call_failed(const gw_crd_review_t *rv, const char *why, char *err,
                               size_t err_len);

/**
 * encoding/json's error for a webhook's answer that is not a JSON object, as far as its first
 * bad byte shows it: garbage at the start (the usual non-JSON answer: HTML, plain text) in
 * Go's words, anything subtler as "unexpected end of JSON input" or a syntax error at the
 * right character; what kube's client quotes after "couldn't get version/kind; json parse
 * error: ". Conversion and admission webhooks share it. Thread: any.
 */
void gw_crd_review_json_error(const char *body, size_t len, char *out, size_t n);

#endif
