/*
 * --encryption-provider-config-automatic-reload: kube's controller looks at the file and, when
 * its content changed, builds the new configuration and swaps it in; a configuration it cannot
 * build leaves the current one in force. Both outcomes are counted as kube's metrics
 * apiserver_encryption_config_controller_automatic_reloads_total{status,apiserver_id_hash} and
 * _automatic_reload_last_timestamp_seconds.
 */
#include "gw_encryption.h"

#include <openssl/sha.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_file.h"
#include "gw_log.h"
#include "gw_uuid.h"

#define MAX_CONFIG_BYTES (4u << 20)

struct gw_enc_reloader {
    gw_enc_transformer_t *t; /* borrowed */
    char *path;
    const gw_catalog_t *builtin;
    struct stat seen;                   /* the file as last looked at */
    uint8_t hash[SHA256_DIGEST_LENGTH]; /* the content in force */
    char id_hash[80];                   /* "sha256:<hex>" of kube's apiserver ID */
    _Atomic unsigned long long ok, failed;
    _Atomic long long ok_at, failed_at; /* seconds since the epoch; 0: never */
};

gw_enc_reloader_t *
gw_enc_reloader_new(gw_enc_transformer_t *t, const char *path, const gw_catalog_t *builtin)
{
    gw_enc_reloader_t *r = gw_calloc(1, sizeof(*r));
    size_t len;
    char *text = gw_file_read(path, MAX_CONFIG_BYTES, &len);

    r->t = t;
    r->path = gw_strdup(path);
    r->builtin = builtin;
    stat(path, &r->seen);
    if (text != NULL)
        SHA256((const uint8_t *)text, len, r->hash);
    free(text);
    gw_apiserver_id_hash(r->id_hash, sizeof(r->id_hash));
    return r;
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static void
reloaded(gw_enc_reloader_t *r, gw_enc_config_t *c, const char *why)
{
    long long now = (long long)time(NULL);

    if (c == NULL) {
        gw_log_warn(NULL, "failed to process encryption config: %s", why);
        atomic_fetch_add(&r->failed, 1);
        atomic_store(&r->failed_at, now);
        return;
    }
    gw_enc_transformer_swap(r->t, c);
    gw_log_info(NULL, "Loaded new kms encryption config content");
    atomic_fetch_add(&r->ok, 1);
    atomic_store(&r->ok_at, now);
}

void
gw_enc_reload_check(gw_enc_reloader_t *r)
{
    struct stat st;
    uint8_t hash[SHA256_DIGEST_LENGTH];
    char err[1024] = "";
    size_t len;
    char *text;

    gw_enc_transformer_collect(r->t); /* what earlier reloads replaced, once unused */
    if (stat(r->path, &st) != 0 || same_file(&st, &r->seen))
        return;
    r->seen = st;
    text = gw_file_read(r->path, MAX_CONFIG_BYTES, &len);
    if (text == NULL || len == 0) {
        free(text);
        /* an editor's truncate-then-write: the next look sees the whole file */
        return;
    }
    SHA256((const uint8_t *)text, len, hash);
    if (memcmp(hash, r->hash, sizeof(hash)) != 0) {
        gw_enc_config_t *c = gw_enc_config_parse(text, len, r->path, r->builtin, err, sizeof(err));
        if (c != NULL) {
            memcpy(r->hash, hash, sizeof(hash));
            gw_enc_config_start(c); /* its KMS plugins primed before it serves */
        }
        reloaded(r, c, err);
    }
    free(text);
}

static unsigned long long
count_of(const gw_enc_reloader_t *r, bool ok)
{
    gw_enc_reloader_t *m = (gw_enc_reloader_t *)r; /* atomics are read through a mutable type */
    return atomic_load(ok ? &m->ok : &m->failed);
}

/* apiserver_encryption_config_controller_automatic_reload_{failures,success}_total */
static void
deprecated(gw_buf_t *b, const char *name, const char *what, const gw_enc_reloader_t *r, bool ok)
{
    gw_buf_printf(b,
                  "# HELP apiserver_encryption_config_controller_automatic_reload_%s_total [ALPHA] "
                  "(Deprecated since 1.30.0) Automatic reloads of the encryption configuration "
                  "that %s, by apiserver identity.\n# TYPE "
                  "apiserver_encryption_config_controller_automatic_reload_%s_total counter\n",
                  name, what, name);
    if (r != NULL && count_of(r, ok) != 0)
        gw_buf_printf(b,
                      "apiserver_encryption_config_controller_automatic_reload_%s_total{"
                      "apiserver_id_hash=\"%s\"} %llu\n",
                      name, r->id_hash, count_of(r, ok));
}

char *
gw_enc_reload_metrics(const gw_enc_reloader_t *r)
{
    static const char *const status[] = {"failure", "success"};
    gw_buf_t b = {0};

    /* kube 1.32 still serves the two counters 1.30 deprecated, beside the new one */
    deprecated(&b, "failures", "failed", r, false);
    gw_buf_str(&b, "# HELP apiserver_encryption_config_controller_automatic_reload_last_timestamp_"
                   "seconds [ALPHA] When the encryption configuration was last reloaded, by status "
                   "and apiserver identity.\n# TYPE "
                   "apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds "
                   "gauge\n");
    for (int i = 0; r != NULL && i < 2; i++) {
        long long at = atomic_load(i ? &((gw_enc_reloader_t *)r)->ok_at
                                     : &((gw_enc_reloader_t *)r)->failed_at);
        if (at != 0)
            gw_buf_printf(&b,
                          "apiserver_encryption_config_controller_automatic_reload_last_timestamp_"
                          "seconds{apiserver_id_hash=\"%s\",status=\"%s\"} %lld\n",
                          r->id_hash, status[i], at);
    }
    deprecated(&b, "success", "succeeded", r, true);
    gw_buf_str(&b, "# HELP apiserver_encryption_config_controller_automatic_reloads_total [ALPHA] "
                   "Automatic reloads of the encryption configuration, by status and apiserver "
                   "identity.\n# TYPE "
                   "apiserver_encryption_config_controller_automatic_reloads_total counter\n");
    for (int i = 0; r != NULL && i < 2; i++) {
        unsigned long long n = count_of(r, i == 1);
        if (n != 0)
            gw_buf_printf(&b,
                          "apiserver_encryption_config_controller_automatic_reloads_total{"
                          "apiserver_id_hash=\"%s\",status=\"%s\"} %llu\n",
                          r->id_hash, status[i], n);
    }
    return gw_buf_take(&b);
}

void
gw_enc_reloader_free(gw_enc_reloader_t *r)
{
    if (r == NULL)
        return;
    free(r->path);
    free(r);
}
