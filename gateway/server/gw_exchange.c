/* The exchange's getters, and its answer's calls handed to the transport's operations. */
#include "gw_exchange_int.h"

gw_http_version_t
gw_exchange_version(const gw_exchange_t *x)
{
    return x->version;
}

const char *
gw_exchange_method(const gw_exchange_t *x)
{
    return x->method;
}

const char *
gw_exchange_target(const gw_exchange_t *x)
{
    return x->target;
}

const char *
gw_exchange_path(const gw_exchange_t *x)
{
    return x->path;
}

const char *
gw_exchange_query(const gw_exchange_t *x)
{
    return x->query;
}

struct evkeyvalq *
gw_exchange_input_headers(gw_exchange_t *x)
{
    return x->input_headers;
}

struct evbuffer *
gw_exchange_body(gw_exchange_t *x)
{
    return x->body;
}

SSL *
gw_exchange_ssl(const gw_exchange_t *x)
{
    return x->ssl;
}

const struct sockaddr *
gw_exchange_peer(const gw_exchange_t *x)
{
    return x->peer;
}

struct evkeyvalq *
gw_exchange_output_headers(gw_exchange_t *x)
{
    return x->output_headers;
}

void
gw_exchange_reply(gw_exchange_t *x, int code, struct evbuffer *body)
{
    x->ops->reply(x, code, body);
}

void
gw_exchange_reply_start(gw_exchange_t *x, int code)
{
    x->ops->reply_start(x, code);
}

void
gw_exchange_reply_chunk(gw_exchange_t *x, struct evbuffer *data)
{
    x->ops->reply_chunk(x, data);
}

void
gw_exchange_reply_ref(gw_exchange_t *x, const void *data, size_t len,
                      gw_exchange_release_fn release, void *arg)
{
    x->ops->reply_ref(x, data, len, release, arg);
}

void
gw_exchange_reply_end(gw_exchange_t *x)
{
    x->ops->reply_end(x);
}

size_t
gw_exchange_queued(gw_exchange_t *x)
{
    return x->ops->queued(x);
}

void
gw_exchange_on_drained(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    x->ops->on_drained(x, fn, arg);
}

void
gw_exchange_on_gone(gw_exchange_t *x, gw_exchange_fn fn, void *arg)
{
    x->ops->on_gone(x, fn, arg);
}

void
gw_exchange_long_running(gw_exchange_t *x)
{
    x->ops->long_running(x);
}

void
gw_exchange_release_request(gw_exchange_t *x)
{
    if (x->ops->release_request != NULL)
        x->ops->release_request(x);
    x->method = x->target = x->path = "";
    x->query = NULL;
}
