/*
 * The Kubernetes URL library: url(), isURL() and the URL accessors. A string is a URL when
 * Go's url.ParseRequestURI accepts it (an absolute URI or an absolute path); the value kept is
 * what url.Parse makes of it (which also splits off the fragment), as kube-apiserver does. The
 * parser follows Go's net/url: its escaping rules per URL part, its host and port checks and
 * its messages. Two URLs are equal when Go would print them the same.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

typedef struct url_str {
    const char *s;
    size_t n;
} url_str_t;

/* Go's net/url encoding modes: which bytes each URL part must escape. */
typedef enum url_mode {
    URL_PATH,
    URL_USER,
    URL_QUERY,
    URL_FRAGMENT,
    URL_HOST,
    URL_ZONE,
} url_mode_t;

typedef struct url_obj {
    cel_object_t base;
    url_str_t scheme, opaque, user, pass, host, path, raw_path, raw_query, fragment, raw_fragment;
    bool has_user, has_pass, force_query, omit_host;
    url_str_t text; /* Go's URL.String(), for equality */
} url_obj_t;

static url_str_t
url_sub(const char *s, size_t from, size_t to)
{
    return (url_str_t){s + from, to - from};
}

static long
url_find(url_str_t s, const char *what)
{
    const char *p = memmem(s.s, s.n, what, strlen(what));
    return p ? (long)(p - s.s) : -1;
}

static long
url_find_last(url_str_t s, char c)
{
    for (size_t i = s.n; i-- > 0;) {
        if (s.s[i] == c)
            return (long)i;
    }
    return -1;
}

static bool
url_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Go's shouldEscape. */
static bool
url_should_escape(unsigned char c, url_mode_t mode)
{
    if (url_alnum(c))
        return false;
    if ((mode == URL_HOST || mode == URL_ZONE) && c != 0 && strchr("!$&'()*+,;=:[]<>\"", c))
        return false;
    if (c == '-' || c == '_' || c == '.' || c == '~')
        return false;
    if (c != 0 && strchr("$&+,/:;=?@", c) != NULL) {
        switch (mode) {
        case URL_PATH:
            return c == '?';
        case URL_USER:
            return c == '@' || c == '/' || c == '?' || c == ':';
        case URL_QUERY:
            return true;
        case URL_FRAGMENT:
            return false;
        default:
            break;
        }
    }
    return !(mode == URL_FRAGMENT && c != 0 && strchr("!()*", c) != NULL);
}

static int
url_unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Check one "%XX" at s[i] for `mode`; the error, or NULL. */
static const char *
url_check_percent(cel_arena_t *a, url_str_t s, size_t i, url_mode_t mode)
{
    cel__buf_t e;
    cel__buf_init(&e, a, 32);
    if (i + 2 >= s.n || url_unhex(s.s[i + 1]) < 0 || url_unhex(s.s[i + 2]) < 0) {
        cel__buf_puts(&e, "invalid URL escape ");
        cel__go_quote(&e, s.s + i, s.n - i > 3 ? 3 : s.n - i);
        return e.data;
    }
    int v = url_unhex(s.s[i + 1]) << 4 | url_unhex(s.s[i + 2]);
    bool pct25 = memcmp(s.s + i, "%25", 3) == 0;
    /* Hosts escape only non-ASCII bytes; zones only what a host could hold anyway. */
    if ((mode == URL_HOST && v < 0x80 && !pct25) ||
        (mode == URL_ZONE && !pct25 && v != ' ' && url_should_escape((unsigned char)v, URL_HOST))) {
        cel__buf_puts(&e, "invalid URL escape ");
        cel__go_quote(&e, s.s + i, 3);
        return e.data;
    }
    return NULL;
}

/* Go's unescape: the decoded text in `*out`, or the error. */
static const char *
url_unescape(cel_arena_t *a, url_str_t s, url_mode_t mode, url_str_t *out)
{
    cel__buf_t b;
    cel__buf_init(&b, a, s.n + 1);
    for (size_t i = 0; i < s.n;) {
        unsigned char c = (unsigned char)s.s[i];
        if (c == '%') {
            const char *err = url_check_percent(a, s, i, mode);
            if (err != NULL)
                return err;
            cel__buf_putc(&b, (char)(url_unhex(s.s[i + 1]) << 4 | url_unhex(s.s[i + 2])));
            i += 3;
            continue;
        }
        if ((mode == URL_HOST || mode == URL_ZONE) && c < 0x80 && url_should_escape(c, mode)) {
            cel__buf_t e;
            cel__buf_init(&e, a, 32);
            cel__buf_puts(&e, "invalid character ");
            cel__go_quote(&e, s.s + i, 1);
            cel__buf_puts(&e, " in host name");
            return e.data;
        }
        cel__buf_putc(&b, c == '+' && mode == URL_QUERY ? ' ' : (char)c);
        i++;
    }
    *out = (url_str_t){b.data, b.len};
    return NULL;
}

static void
url_escape(cel__buf_t *b, url_str_t s, url_mode_t mode)
{
    for (size_t i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.s[i];
        if (c == ' ' && mode == URL_QUERY)
            cel__buf_putc(b, '+');
        else if (url_should_escape(c, mode))
            cel__buf_printf(b, "%%%02X", c);
        else
            cel__buf_putc(b, (char)c);
    }
}

static url_str_t
url_escaped(cel_arena_t *a, url_str_t s, url_mode_t mode)
{
    cel__buf_t b;
    cel__buf_init(&b, a, s.n + 8);
    url_escape(&b, s, mode);
    return (url_str_t){b.data, b.len};
}

static bool
url_same(url_str_t x, url_str_t y)
{
    return x.n == y.n && memcmp(x.s, y.s, x.n) == 0;
}

/* ---- Parsing ---- */

/* ":" followed by digits only, or nothing. */
static bool
url_valid_port(url_str_t p)
{
    if (p.n == 0)
        return true;
    if (p.s[0] != ':')
        return false;
    for (size_t i = 1; i < p.n; i++) {
        if (p.s[i] < '0' || p.s[i] > '9')
            return false;
    }
    return true;
}

static const char *
url_bad_port(cel_arena_t *a, url_str_t port)
{
    cel__buf_t e;
    cel__buf_init(&e, a, 32);
    cel__buf_puts(&e, "invalid port ");
    cel__go_quote(&e, port.s, port.n);
    cel__buf_puts(&e, " after host");
    return e.data;
}

/* An IP literal "[...]" with an optional port; an RFC 6874 zone ("%25...") unescaped apart. */
static const char *
url_parse_literal(cel_arena_t *a, url_str_t h, url_str_t *out)
{
    long close = url_find_last(h, ']');
    if (close < 0)
        return "missing ']' in host";
    url_str_t port = url_sub(h.s, (size_t)close + 1, h.n);
    if (!url_valid_port(port))
        return url_bad_port(a, port);
    long zone = url_find(url_sub(h.s, 0, (size_t)close), "%25");
    if (zone < 0)
        return url_unescape(a, h, URL_HOST, out);
    url_str_t parts[3];
    const char *err = url_unescape(a, url_sub(h.s, 0, (size_t)zone), URL_HOST, &parts[0]);
    if (err == NULL)
        err = url_unescape(a, url_sub(h.s, (size_t)zone, (size_t)close), URL_ZONE, &parts[1]);
    if (err == NULL)
        err = url_unescape(a, url_sub(h.s, (size_t)close, h.n), URL_HOST, &parts[2]);
    if (err != NULL)
        return err;
    cel__buf_t b;
    cel__buf_init(&b, a, h.n);
    for (int i = 0; i < 3; i++)
        cel__buf_put(&b, parts[i].s, parts[i].n);
    *out = (url_str_t){b.data, b.len};
    return NULL;
}

/* Go's parseHost: host[:port]. */
static const char *
url_parse_host(cel_arena_t *a, url_str_t h, url_str_t *out)
{
    if (h.n > 0 && h.s[0] == '[')
        return url_parse_literal(a, h, out);
    long colon = url_find_last(h, ':');
    if (colon >= 0 && !url_valid_port(url_sub(h.s, (size_t)colon, h.n)))
        return url_bad_port(a, url_sub(h.s, (size_t)colon, h.n));
    return url_unescape(a, h, URL_HOST, out);
}

static bool
url_valid_userinfo(url_str_t s)
{
    for (size_t i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.s[i];
        if (!url_alnum(c) && (c == 0 || strchr("-._:~!$&'()*+,;=%@", c) == NULL))
            return false;
    }
    return true;
}

static const char *
url_parse_authority(cel_arena_t *a, url_str_t auth, url_obj_t *u)
{
    long at = url_find_last(auth, '@');
    const char *err = url_parse_host(a, url_sub(auth.s, (size_t)(at + 1), auth.n), &u->host);
    if (err != NULL || at < 0)
        return err;
    url_str_t info = url_sub(auth.s, 0, (size_t)at);
    if (!url_valid_userinfo(info))
        return "net/url: invalid userinfo";
    long colon = url_find(info, ":");
    u->has_user = true;
    u->has_pass = colon >= 0;
    err = url_unescape(a, colon < 0 ? info : url_sub(info.s, 0, (size_t)colon), URL_USER, &u->user);
    if (err == NULL && colon >= 0)
        err = url_unescape(a, url_sub(info.s, (size_t)colon + 1, info.n), URL_USER, &u->pass);
    return err;
}

/* Go's getScheme: the scheme (possibly empty) and the rest. */
static const char *
url_get_scheme(url_str_t raw, url_str_t *scheme, url_str_t *rest)
{
    *scheme = (url_str_t){raw.s, 0};
    *rest = raw;
    for (size_t i = 0; i < raw.n; i++) {
        char c = raw.s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            continue;
        if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
            if (i == 0)
                return NULL;
            continue;
        }
        if (c == ':') {
            if (i == 0)
                return "missing protocol scheme";
            *scheme = url_sub(raw.s, 0, i);
            *rest = url_sub(raw.s, i + 1, raw.n);
        }
        return NULL;
    }
    return NULL;
}

static const char *
url_set_path(cel_arena_t *a, url_obj_t *u, url_str_t p)
{
    const char *err = url_unescape(a, p, URL_PATH, &u->path);
    if (err == NULL && !url_same(url_escaped(a, u->path, URL_PATH), p))
        u->raw_path = p;
    return err;
}

/* Split "?query" off `rest` as Go does (a lone trailing "?" forces an empty query). */
static void
url_split_query(url_obj_t *u, url_str_t *rest)
{
    long q = url_find(*rest, "?");
    if (q < 0)
        return;
    if ((size_t)q == rest->n - 1) {
        u->force_query = true;
    } else {
        u->raw_query = url_sub(rest->s, (size_t)q + 1, rest->n);
    }
    rest->n = (size_t)q;
}

static bool
url_has_prefix(url_str_t s, const char *p)
{
    return s.n >= strlen(p) && memcmp(s.s, p, strlen(p)) == 0;
}

/* After the scheme and query: "//authority" when there is one, then the path. */
static const char *
url_parse_hier(cel_arena_t *a, url_str_t rest, bool via_request, url_obj_t *u)
{
    if ((u->scheme.n > 0 || (!via_request && !url_has_prefix(rest, "///"))) &&
        url_has_prefix(rest, "//")) {
        url_str_t auth = url_sub(rest.s, 2, rest.n);
        long slash = url_find(auth, "/");
        rest = slash < 0 ? url_sub(auth.s, auth.n, auth.n) : url_sub(auth.s, (size_t)slash, auth.n);
        auth.n = slash < 0 ? auth.n : (size_t)slash;
        const char *err = url_parse_authority(a, auth, u);
        if (err != NULL)
            return err;
    } else if (u->scheme.n > 0 && url_has_prefix(rest, "/")) {
        u->omit_host = true;
    }
    return url_set_path(a, u, rest);
}

/* Go's url.parse(rawURL, viaRequest) into `*u`; the error, or NULL. */
static const char *
url_parse(cel_arena_t *a, url_str_t raw, bool via_request, url_obj_t *u)
{
    url_str_t rest;
    for (size_t i = 0; i < raw.n; i++) {
        if ((unsigned char)raw.s[i] < 0x20 || raw.s[i] == 0x7f)
            return "net/url: invalid control character in URL";
    }
    if (raw.n == 0 && via_request)
        return "empty url";
    if (raw.n == 1 && raw.s[0] == '*') {
        u->path = raw;
        return NULL;
    }
    const char *err = url_get_scheme(raw, &u->scheme, &rest);
    if (err != NULL)
        return err;
    char *lower = cel_arena_strndup(a, u->scheme.s, u->scheme.n);
    for (size_t i = 0; i < u->scheme.n; i++)
        lower[i] = (char)(lower[i] >= 'A' && lower[i] <= 'Z' ? lower[i] + 32 : lower[i]);
    u->scheme.s = lower;
    url_split_query(u, &rest);
    if (!url_has_prefix(rest, "/")) {
        if (u->scheme.n > 0) {
            u->opaque = rest; /* a rootless path: opaque, per RFC 3986 */
            return NULL;
        }
        if (via_request)
            return "invalid URI for request";
        long slash = url_find(rest, "/");
        if (url_find(url_sub(rest.s, 0, slash < 0 ? rest.n : (size_t)slash), ":") >= 0)
            return "first path segment in URL cannot contain colon";
    }
    return url_parse_hier(a, rest, via_request, u);
}

/* Go's "parse %q: err" wrapping, with kube-apiserver's prefix. */
static cel_value_t
url_error(cel__eval_t *ev, url_str_t raw, const char *err)
{
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, raw.n + 64);
    cel__buf_puts(&b, "URL parse error during conversion from string: parse ");
    cel__go_quote(&b, raw.s, raw.n);
    cel__buf_printf(&b, ": %s", err);
    return (cel_value_t){.kind = CEL_ERROR, .v.err = b.data};
}

/* ---- Printing (Go's URL.String) ---- */

/* Go's EscapedPath / EscapedFragment: the raw form when it is a valid encoding of the
 * decoded one, else the decoded one escaped. */
static url_str_t
url_escaped_form(cel_arena_t *a, url_str_t raw, url_str_t dec, url_mode_t mode)
{
    if (raw.n > 0) {
        bool valid = true;
        for (size_t i = 0; i < raw.n && valid; i++) {
            unsigned char c = (unsigned char)raw.s[i];
            valid =
                (c != 0 && strchr("!$&'()*+,;=:@[]%", c) != NULL) || !url_should_escape(c, mode);
        }
        url_str_t back;
        if (valid && url_unescape(a, raw, mode, &back) == NULL && url_same(back, dec))
            return raw;
    }
    if (mode == URL_PATH && dec.n == 1 && dec.s[0] == '*')
        return dec;
    return url_escaped(a, dec, mode);
}

static void
url_put_authority(cel__buf_t *b, const url_obj_t *u, url_str_t path)
{
    if (u->scheme.n == 0 && u->host.n == 0 && !u->has_user)
        return;
    if (u->omit_host && u->host.n == 0 && !u->has_user)
        return;
    if (u->host.n > 0 || path.n > 0 || u->has_user)
        cel__buf_puts(b, "//");
    if (u->has_user) {
        url_escape(b, u->user, URL_USER);
        if (u->has_pass) {
            cel__buf_putc(b, ':');
            url_escape(b, u->pass, URL_USER);
        }
        cel__buf_putc(b, '@');
    }
    url_escape(b, u->host, URL_HOST);
}

static url_str_t
url_string(cel_arena_t *a, const url_obj_t *u)
{
    cel__buf_t b;
    cel__buf_init(&b, a, 64);
    if (u->scheme.n > 0)
        cel__buf_printf(&b, "%.*s:", (int)u->scheme.n, u->scheme.s);
    if (u->opaque.n > 0) {
        cel__buf_put(&b, u->opaque.s, u->opaque.n);
    } else {
        url_str_t path = url_escaped_form(a, u->raw_path, u->path, URL_PATH);
        url_put_authority(&b, u, path);
        if (path.n > 0 && path.s[0] != '/' && u->host.n > 0)
            cel__buf_putc(&b, '/');
        long slash = url_find(path, "/");
        if (b.len == 0 &&
            url_find(url_sub(path.s, 0, slash < 0 ? path.n : (size_t)slash), ":") >= 0)
            cel__buf_puts(&b, "./");
        cel__buf_put(&b, path.s, path.n);
    }
    if (u->force_query || u->raw_query.n > 0)
        cel__buf_printf(&b, "?%.*s", (int)u->raw_query.n, u->raw_query.s);
    if (u->fragment.n > 0) {
        url_str_t f = url_escaped_form(a, u->raw_fragment, u->fragment, URL_FRAGMENT);
        cel__buf_printf(&b, "#%.*s", (int)f.n, f.s);
    }
    return (url_str_t){b.data, b.len};
}

static bool
url_equal(const cel_object_t *x, const cel_object_t *y)
{
    return url_same(((const url_obj_t *)x)->text, ((const url_obj_t *)y)->text);
}

static const cel__object_ops_t url_ops = {.type = &cel__type_url, .equal = url_equal};

/* ---- Functions ---- */

/* url.Parse(raw): the fragment cut off first. */
static const char *
url_parse_full(cel_arena_t *a, url_str_t raw, url_obj_t *u, url_str_t *failed)
{
    long hash = url_find(raw, "#");
    url_str_t main = hash < 0 ? raw : url_sub(raw.s, 0, (size_t)hash);
    *failed = main;
    const char *err = url_parse(a, main, false, u);
    if (err != NULL || hash < 0 || (size_t)hash + 1 == raw.n)
        return err;
    *failed = raw;
    url_str_t frag = url_sub(raw.s, (size_t)hash + 1, raw.n);
    err = url_unescape(a, frag, URL_FRAGMENT, &u->fragment);
    if (err == NULL && !url_same(url_escaped(a, u->fragment, URL_FRAGMENT), frag))
        u->raw_fragment = frag;
    return err;
}

static cel_value_t
url_new(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "url", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    url_str_t raw = {a[0].v.str.data, a[0].v.str.len}, failed = raw;
    url_obj_t probe = {0}, *u = cel_arena_alloc(ev->arena, sizeof(*u));
    const char *err = url_parse(ev->arena, raw, true, &probe);
    if (err == NULL)
        err = url_parse_full(ev->arena, raw, u, &failed);
    if (err != NULL)
        return url_error(ev, failed, err);
    u->base.ops = &url_ops;
    u->text = url_string(ev->arena, u);
    return cel__object_value(&u->base);
}

static cel_value_t
url_is_url(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "isURL", a, n);
    if (!cel__work_size(ev, a[0].v.str.len))
        return cel__halt_error(ev);
    url_obj_t probe = {0};
    url_str_t raw = {a[0].v.str.data, a[0].v.str.len};
    return cel_bool(url_parse(ev->arena, raw, true, &probe) == NULL);
}

const char *
cel__url_request_error(cel_arena_t *a, const char *s, size_t n)
{
    url_obj_t probe = {0};
    const char *err = url_parse(a, (url_str_t){s, n}, true, &probe);
    if (err == NULL)
        return NULL;
    cel__buf_t b;
    cel__buf_init(&b, a, n + 64);
    cel__buf_puts(&b, "parse ");
    cel__go_quote(&b, s, n);
    cel__buf_printf(&b, ": %s", err);
    return b.data;
}

/* Go's splitHostPort, behind Hostname() and Port(). */
static void
url_split_host_port(url_str_t hp, url_str_t *host, url_str_t *port)
{
    *host = hp;
    *port = (url_str_t){hp.s, 0};
    long colon = url_find_last(hp, ':');
    if (colon >= 0 && url_valid_port(url_sub(hp.s, (size_t)colon, hp.n))) {
        *host = url_sub(hp.s, 0, (size_t)colon);
        *port = url_sub(hp.s, (size_t)colon + 1, hp.n);
    }
    if (host->n >= 2 && host->s[0] == '[' && host->s[host->n - 1] == ']')
        *host = url_sub(host->s, 1, host->n - 1);
}

static cel_value_t
url_get(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    const char *name = call->u.call.name;
    if (!cel__is_object(&a[0], &cel__type_url))
        return cel__no_overload(ev, name, a, n);
    const url_obj_t *u = (const url_obj_t *)a[0].v.obj;
    url_str_t s, host, port;
    url_split_host_port(u->host, &host, &port);
    if (strcmp(name, "getScheme") == 0)
        s = u->scheme;
    else if (strcmp(name, "getHost") == 0)
        s = u->host;
    else if (strcmp(name, "getHostname") == 0)
        s = host;
    else if (strcmp(name, "getPort") == 0)
        s = port;
    else
        s = url_escaped_form(ev->arena, u->raw_path, u->path, URL_PATH);
    return cel__string_lossy(ev->arena, s.s, s.n);
}

/* One "key=value" of a query into `m`; pairs that do not unescape are skipped, as Go skips
 * them. */
static void
url_query_pair(cel__eval_t *ev, cel_map_t *m, url_str_t pair)
{
    long eq = url_find(pair, "=");
    url_str_t k, v;
    url_str_t kraw = eq < 0 ? pair : url_sub(pair.s, 0, (size_t)eq);
    url_str_t vraw =
        eq < 0 ? url_sub(pair.s, pair.n, pair.n) : url_sub(pair.s, (size_t)eq + 1, pair.n);
    if (url_unescape(ev->arena, kraw, URL_QUERY, &k) != NULL ||
        url_unescape(ev->arena, vraw, URL_QUERY, &v) != NULL)
        return;
    cel_value_t key = cel__string_lossy(ev->arena, k.s, k.n), list;
    cel_value_t val = cel__string_lossy(ev->arena, v.s, v.n);
    if (!cel_map_find(&(cel_value_t){.kind = CEL_MAP, .v.map = m}, &key, &list)) {
        list = cel__list_value(cel__list_new(ev->arena, 1));
        cel__map_put(ev->arena, m, key, list);
    }
    cel__list_push(ev->arena, (cel_list_t *)list.v.list, val);
}

static cel_value_t
url_get_query(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)
{
    (void)call;
    if (!cel__is_object(&a[0], &cel__type_url))
        return cel__no_overload(ev, "getQuery", a, n);
    url_str_t q = ((const url_obj_t *)a[0].v.obj)->raw_query;
    if (!cel__work_size(ev, q.n))
        return cel__halt_error(ev);
    cel_map_t *m = cel__map_new(ev->arena, 4);
    while (q.n > 0) {
        long amp = url_find(q, "&");
        url_str_t pair = amp < 0 ? q : url_sub(q.s, 0, (size_t)amp);
        q = amp < 0 ? url_sub(q.s, q.n, q.n) : url_sub(q.s, (size_t)amp + 1, q.n);
        /* Go refuses ";" as a separator: such a pair is dropped. */
        if (pair.n > 0 && url_find(pair, ";") < 0)
            url_query_pair(ev, m, pair);
    }
    return cel__map_value(m);
}

const cel__fn_t cel__url_fns[] = {
    {"url", false, 1, 1, url_new},
    {"isURL", false, 1, 1, url_is_url},
    {"getScheme", true, 1, 1, url_get},
    {"getHost", true, 1, 1, url_get},
    {"getHostname", true, 1, 1, url_get},
    {"getPort", true, 1, 1, url_get},
    {"getEscapedPath", true, 1, 1, url_get},
    {"getQuery", true, 1, 1, url_get_query},
    {NULL, false, 0, 0, NULL},
};
