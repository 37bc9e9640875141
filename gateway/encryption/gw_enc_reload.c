/*
 * --encryption-provider-config-automatic-reload: kube's controller looks at the file and, when
 * its content changed, builds the new configuration and swaps it in; a configuration it cannot
 * build leaves the current one in force. Both outcomes are counted in kube's
 * apiserver_encryption_config_controller_automatic_reload* families (gw_metric_reload).
 */
#include "gw_encryption.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gw_alloc.h"
#include "gw_file.h"
#include "gw_log.h"
#include "gw_metric.h"

#define MAX_CONFIG_BYTES (4u << 20)

struct gw_enc_reloader {
    gw_enc_transformer_t *t; /* borrowed */
    char *path;
    const gw_catalog_t *builtin;
    struct stat seen;                   /* the file as last looked at */
    uint8_t hash[SHA256_DIGEST_LENGTH]; /* the content in force */
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
    gw_metric_reload(GW_RELOAD_ENCRYPTION, c != NULL);
    if (c == NULL) {
        gw_log_warn(NULL, "failed to process encryption config: %s", why);
        return;
    }
    gw_enc_transformer_swap(r->t, c);
    gw_log_info(NULL, "Loaded new kms encryption config content");
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

void
gw_enc_reloader_free(gw_enc_reloader_t *r)
{
    if (r == NULL)
        return;
    free(r->path);
    free(r);
}
