/* The static token file (--token-auth-file): kube's CSV format. */
#include "authn_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "gw_alloc.h"
#include "gw_buf.h"
#include "gw_err.h"
#include "gw_log.h"

/* A growing list of fields, for one CSV record. */
typedef struct {
    char **v;
    size_t n;
} record_t;

typedef struct {
    const char *p, *end;
    int line;
} reader_t;

static void
record_push(record_t *r, gw_buf_t *b)
{
    r->v = gw_realloc(r->v, (r->n + 1) * sizeof(*r->v));
    r->v[r->n++] = gw_buf_take(b);
}

static void
record_free(record_t *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
    *r = (record_t){0};
}

/* A quoted field, after its opening quote: "" is a quote, and it may span lines. Returns
 * false for a quote followed by anything but a separator or the end of the line. */
static bool
read_quoted(reader_t *rd, gw_buf_t *b)
{
    while (rd->p < rd->end) {
        char c = *rd->p++;
        if (c == '\n')
            rd->line++;
        if (c != '"') {
            if (c != '\r' || rd->p >= rd->end || *rd->p != '\n')
                gw_buf_char(b, c);
            continue;
        }
        if (rd->p < rd->end && *rd->p == '"') {
            gw_buf_char(b, *rd->p++);
            continue;
        }
        return rd->p >= rd->end || *rd->p == ',' || *rd->p == '\n' ||
               (*rd->p == '\r' && rd->p + 1 < rd->end && rd->p[1] == '\n');
    }
    return false; /* the file ended inside quotes */
}

/* One record into r (empty when only blank lines were left). Returns false on bad quoting. */
static bool
read_record(reader_t *rd, record_t *r)
{
    gw_buf_t b = {0};
    while (rd->p < rd->end &&
           (*rd->p == '\n' || (*rd->p == '\r' && rd->p + 1 < rd->end && rd->p[1] == '\n'))) {
        rd->line += *rd->p == '\n';
        rd->p++;
    }
    if (rd->p >= rd->end)
        return true;
    for (;;) {
        bool quoted = *rd->p == '"';
        if (quoted && (rd->p++, !read_quoted(rd, &b)))
            goto bad;
        while (!quoted && rd->p < rd->end && *rd->p != ',' && *rd->p != '\n') {
            if (*rd->p == '"')
                goto bad;
            if (*rd->p != '\r' || rd->p + 1 >= rd->end || rd->p[1] != '\n')
                gw_buf_char(&b, *rd->p);
            rd->p++;
        }
        if (rd->p < rd->end && *rd->p == '\r')
            rd->p++;
        record_push(r, &b);
        if (rd->p >= rd->end || *rd->p++ == '\n')
            break;
    }
    rd->line++;
    return true;
bad:
    gw_buf_free(&b);
    return false;
}

static char **
split_groups(const char *s, size_t *n)
{
    char **v = NULL;
    *n = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        v = gw_realloc(v, (*n + 1) * sizeof(*v));
        v[(*n)++] = gw_strndup(s, len);
        if (s[len] == '\0')
            return v;
        s += len + 1;
    }
}

static void
token_free(authn__token_t *t)
{
    free(t->token);
    free(t->name);
    free(t->uid);
    for (size_t i = 0; i < t->n_groups; i++)
        free(t->groups[i]);
    free(t->groups);
}

/* Add (or, as kube does for a repeated token, replace with a warning) one entry. */
static void
add_token(authn__tokens_t *t, record_t *r, const char *path, int line)
{
    authn__token_t e = {.token = r->v[0], .name = r->v[1], .uid = r->v[2]};
    if (r->n >= 4)
        e.groups = split_groups(r->v[3], &e.n_groups);
    for (size_t i = 3; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
    *r = (record_t){0};
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->tokens[i].token, e.token) != 0)
            continue;
        gw_log_warn(NULL, "token file %s line %d: duplicate token; the last one counts", path,
                    line);
        token_free(&t->tokens[i]);
        t->tokens[i] = e;
        return;
    }
    t->tokens = gw_realloc(t->tokens, (t->n + 1) * sizeof(*t->tokens));
    t->tokens[t->n++] = e;
}

int
authn__tokens_parse(const char *path, const char *text, size_t len, authn__tokens_t *out, char *err,
                    size_t err_len)
{
    reader_t rd = {text, text + len, 1};
    *out = (authn__tokens_t){0};
    for (;;) {
        record_t r = {0};
        int line = rd.line;
        if (!read_record(&rd, &r)) {
            snprintf(err, err_len, "token file %s line %d: bad quoting", path, rd.line);
            record_free(&r);
            goto bad;
        }
        if (r.n == 0)
            return 0;
        if (r.n < 3) {
            snprintf(err, err_len,
                     "token file %s line %d must have at least 3 columns (token, user name, "
                     "user uid), found %zu",
                     path, line, r.n);
            record_free(&r);
            goto bad;
        }
        if (r.v[0][0] != '\0') {
            add_token(out, &r, path, line);
            continue;
        }
        gw_log_warn(NULL, "token file %s line %d: empty token, ignored", path, line);
        record_free(&r);
    }
bad:
    authn__tokens_free(out);
    return GW_EINVAL;
}

const authn__token_t *
authn__tokens_find(const authn__tokens_t *t, const char *token)
{
    size_t len = strlen(token);
    const authn__token_t *hit = NULL;
    /* Compare every entry in constant time per byte, so timing does not tell how much of a
     * guess was right. */
    for (size_t i = 0; i < t->n; i++) {
        const char *k = t->tokens[i].token;
        if (strlen(k) == len && CRYPTO_memcmp(k, token, len) == 0)
            hit = &t->tokens[i];
    }
    return hit;
}

void
authn__tokens_free(authn__tokens_t *t)
{
    for (size_t i = 0; i < t->n; i++)
        token_free(&t->tokens[i]);
    free(t->tokens);
    *t = (authn__tokens_t){0};
}
