/* Unit tests for gateway/meta/gw_continue: kube-apiserver's continue token format. */
#include <stdlib.h>
#include <string.h>

#include "gw_continue.h"
#include "gw_err.h"
#include "tap.h"

static int
decode(const char *token, int64_t *rev, char **start, char *err)
{
    *start = NULL;
    return gw_continue_decode(token, rev, start, err, 256);
}

static void
test_roundtrip(void)
{
    char err[256], *start;
    int64_t rev = 0;
    char *tok = gw_continue_encode(1234, "ns1/cm-7");

    /* {"v":"meta.k8s.io/v1","rv":1234,"start":"ns1/cm-7"} as Go's base64.RawURLEncoding */
    tap_is_str(tok, "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNCwic3RhcnQiOiJuczEvY20tNyJ9",
               "encoding matches kube-apiserver's");
    tap_is_int(decode(tok, &rev, &start, err), 0, "decodes");
    tap_is_int(rev, 1234, "revision");
    tap_is_str(start, "ns1/cm-7", "start key");
    free(start);
    free(tok);
    for (int n = 1; n <= 4; n++) {
        char key[8] = "abcd";
        key[n] = '\0';
        tok = gw_continue_encode(7, key);
        tap_ok(decode(tok, &rev, &start, err) == 0 && strcmp(start, key) == 0,
               "round trip with a %d-byte key (every padding length)", n);
        free(start);
        free(tok);
    }
}

/* A token over arbitrary JSON text. */
static char *
token_of(const char *json)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t len = strlen(json);
    char *out = malloc(len * 2 + 4), *w = out;

    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned char)json[i] << 16;
        if (i + 1 < len)
            v |= (unsigned char)json[i + 1] << 8;
        if (i + 2 < len)
            v |= (unsigned char)json[i + 2];
        *w++ = b64[v >> 18];
        *w++ = b64[(v >> 12) & 63];
        if (i + 1 < len)
            *w++ = b64[(v >> 6) & 63];
        if (i + 2 < len)
            *w++ = b64[v & 63];
    }
    *w = '\0';
    return out;
}

static void
expect_invalid(const char *json, const char *want, const char *name)
{
    char err[256], *start, *tok = token_of(json);
    int64_t rev;

    tap_is_int(decode(tok, &rev, &start, err), GW_EINVAL, name);
    tap_is_str(err, want, "... message");
    tap_ok(start == NULL, "... no start key");
    free(tok);
}

static void
test_invalid(void)
{
    char err[256], *start;
    int64_t rev;

    tap_is_int(decode("not*base64", &rev, &start, err), GW_EINVAL, "not base64url");
    tap_is_str(err,
               "continue key is not valid: incorrect encoded start resourceVersion (version "
               "meta.k8s.io/v1): illegal base64 data at input byte 3",
               "... message names the byte");
    tap_is_int(decode("eyJ2Ijo=", &rev, &start, err), GW_EINVAL, "padding is not accepted");
    expect_invalid("{\"v\":\"meta.k8s.io/v2\",\"rv\":1,\"start\":\"a\"}",
                   "continue key is not valid: server does not recognize this encoded version "
                   "meta.k8s.io/v2",
                   "unknown version");
    expect_invalid("{\"v\":\"meta.k8s.io/v1\",\"rv\":0,\"start\":\"a\"}",
                   "continue key is not valid: incorrect encoded start resourceVersion (version "
                   "meta.k8s.io/v1)",
                   "zero revision");
    expect_invalid("{\"v\":\"meta.k8s.io/v1\",\"rv\":5}",
                   "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
                   "no start key");
    expect_invalid("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"a/../../secrets/x\"}",
                   "continue key is not valid: a/../../secrets/x", "a key climbing out");
    expect_invalid("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"a//b\"}",
                   "continue key is not valid: a//b", "an empty segment");
    expect_invalid("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"a/\"}",
                   "continue key is not valid: a/", "a trailing slash");
}

static void
test_latest(void)
{
    char err[256], *start, *tok = token_of("{\"v\":\"meta.k8s.io/v1\",\"rv\":-1,\"start\":\"/b\"}");
    int64_t rev = 0;

    tap_is_int(decode(tok, &rev, &start, err), 0, "rv -1 (continue at the latest revision)");
    tap_is_int(rev, -1, "... reads as -1");
    tap_is_str(start, "b", "... a leading slash is dropped");
    free(start);
    free(tok);
}

int
main(void)
{
    test_roundtrip();
    test_invalid();
    test_latest();
    return tap_done();
}
