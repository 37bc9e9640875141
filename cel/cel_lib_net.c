/*
 * The Kubernetes IP and CIDR libraries. Addresses parse as Go's net/netip parses them (no
 * leading zeros in IPv4 fields, "::" rules, its error messages), then kube-apiserver's rules
 * apply: zones and IPv4-mapped IPv6 addresses are refused. Strings are netip's canonical
 * forms (RFC 5952 for IPv6). containsCIDR compares as kube-apiserver v1.32 does: the other
 * prefix's address must equal this prefix's masked address (a subnet written with host bits
 * of its own, such as 10.1.0.0/16 inside 10.0.0.0/8, is not "contained").
 */
#include "cel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_int.h"

/* An address as netip keeps it: 16 bytes, IPv4 in the IPv4-mapped IPv6 layout. */
typedef struct net_addr {
    uint8_t b[16];
    bool v4;
} net_addr_t;

typedef struct net_ip {
    cel_object_t base;
    net_addr_t addr;
} net_ip_t;

typedef struct net_cidr {
    cel_object_t base;
    net_addr_t addr; /* as written, host bits included */
    int bits;
} net_cidr_t;

int64_t
cel__net_size(const cel_value_t *v)
{
    /* kube-apiserver's IP and CIDR Size(): address bytes, and prefix bits rounded up to bytes. */
    if (cel__is_object(v, &cel__type_ip))
        return ((const net_ip_t *)v->v.obj)->addr.v4 ? 4 : 16;
    if (cel__is_object(v, &cel__type_cidr))
        return (((const net_cidr_t *)v->v.obj)->bits + 7) / 8;
    return -1;
}

/* netip's parseAddrError text: ParseAddr("in"): msg[ (at "at")]. */
static const char *
net_addr_error(cel_arena_t *a, const char *in, size_t n, const char *msg, const char *at,
               size_t atn)
{
    cel__buf_t b;
    cel__buf_init(&b, a, n + 64);
    cel__buf_puts(&b, "ParseAddr(");
    cel__go_quote(&b, in, n);
    cel__buf_printf(&b, "): %s", msg);
    if (at != NULL && atn > 0) {
        cel__buf_puts(&b, " (at ");
        cel__go_quote(&b, at, atn);
        cel__buf_putc(&b, ')');
    }
    return b.data;
}

typedef struct net_parse {
    cel_arena_t *a;
    const char *in; /* the whole input, for messages */
    size_t n;
    const char *err;
} net_parse_t;

static bool
net_fail(net_parse_t *p, const char *msg, const char *at, size_t atn)
{
    p->err = net_addr_error(p->a, p->in, p->n, msg, at, atn);
    return false;
}

/* Go's parseIPv4Fields over s[0..len) into `out`. */
static bool
net_ipv4(net_parse_t *p, const char *s, size_t len, uint8_t out[4])
{
    int val = 0, pos = 0, digits = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            if (digits == 1 && val == 0)
                return net_fail(p, "IPv4 field has octet with leading zero", NULL, 0);
            val = val * 10 + (s[i] - '0');
            digits++;
            if (val > 255)
                return net_fail(p, "IPv4 field has value >255", NULL, 0);
        } else if (s[i] == '.') {
            if (i == 0 || i == len - 1 || s[i - 1] == '.')
                return net_fail(p, "IPv4 field must have at least one digit", s + i, len - i);
            if (pos == 3)
                return net_fail(p, "IPv4 address too long", NULL, 0);
            out[pos++] = (uint8_t)val;
            val = 0, digits = 0;
        } else {
            return net_fail(p, "unexpected character", s + i, len - i);
        }
    }
    if (pos < 3)
        return net_fail(p, "IPv4 address too short", NULL, 0);
    out[3] = (uint8_t)val;
    return true;
}

/* One hex field of at most four digits at s; its length (0: none). */
static bool
net_hex_field(net_parse_t *p, const char *s, size_t len, size_t *off, uint32_t *acc)
{
    *acc = 0;
    for (*off = 0; *off < len; (*off)++) {
        int d = s[*off] >= '0' && s[*off] <= '9'                     ? s[*off] - '0'
                : (s[*off] | 0x20) >= 'a' && (s[*off] | 0x20) <= 'f' ? (s[*off] | 0x20) - 'a' + 10
                                                                     : -1;
        if (d < 0)
            break;
        *acc = (*acc << 4) + (uint32_t)d;
        if (*off > 3)
            return net_fail(p, "each group must have 4 or less digits", s, len);
        if (*acc > 0xFFFF)
            return net_fail(p, "IPv6 field has value >=2^16", s, len);
    }
    if (*off == 0)
        return net_fail(p, "each colon-separated field must have at least one digit", s, len);
    return true;
}

/* Fill the "::" gap: the `i` bytes parsed so far, with the ones after `ellipsis` moved to the
 * end. */
static bool
net_expand(net_parse_t *p, uint8_t ip[16], int i, int ellipsis)
{
    if (i < 16) {
        if (ellipsis < 0)
            return net_fail(p, "address string too short", NULL, 0);
        int gap = 16 - i;
        memmove(ip + ellipsis + gap, ip + ellipsis, (size_t)(i - ellipsis));
        memset(ip + ellipsis, 0, (size_t)gap);
    } else if (ellipsis >= 0) {
        return net_fail(p, "the :: must expand to at least one field of zeros", NULL, 0);
    }
    return true;
}

/* The fields of an IPv6 address (zone already split off) into ip; Go's parseIPv6 loop. */
static bool
net_ipv6_fields(net_parse_t *p, const char *s, size_t len, uint8_t ip[16])
{
    int ellipsis = -1, i = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0, s += 2, len -= 2;
        if (len == 0)
            return true;
    }
    while (i < 16) {
        size_t off;
        uint32_t acc;
        if (!net_hex_field(p, s, len, &off, &acc))
            return false;
        if (off < len && s[off] == '.') {
            if (ellipsis < 0 && i != 12)
                return net_fail(
                    p, "embedded IPv4 address must replace the final 2 fields of the address", s,
                    len);
            if (i + 4 > 16)
                return net_fail(
                    p, "too many hex fields to fit an embedded IPv4 at the end of the address", s,
                    len);
            if (!net_ipv4(p, s, len, ip + i))
                return false;
            len = 0, i += 4;
            break;
        }
        ip[i] = (uint8_t)(acc >> 8), ip[i + 1] = (uint8_t)acc, i += 2;
        s += off, len -= off;
        if (len == 0)
            break;
        if (s[0] != ':')
            return net_fail(p, "unexpected character, want colon", s, len);
        if (len == 1)
            return net_fail(p, "colon must be followed by more characters", s, len);
        s++, len--;
        if (s[0] == ':') {
            if (ellipsis >= 0)
                return net_fail(p, "multiple :: in address", s, len);
            ellipsis = i, s++, len--;
            if (len == 0)
                break;
        }
    }
    if (len != 0)
        return net_fail(p, "trailing garbage after address", s, len);
    return net_expand(p, ip, i, ellipsis);
}

/* Go's netip.ParseAddr; `*zone` says whether an IPv6 zone was present. */
static bool
net_parse_addr(net_parse_t *p, net_addr_t *out, bool *zone)
{
    const char *s = p->in;
    size_t n = p->n;
    memset(out, 0, sizeof(*out));
    *zone = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            out->v4 = true;
            out->b[10] = out->b[11] = 0xff;
            return net_ipv4(p, s, n, out->b + 12);
        }
        if (s[i] == ':') {
            const char *pct = memchr(s, '%', n);
            size_t end = pct ? (size_t)(pct - s) : n;
            if (pct != NULL && end + 1 == n)
                return net_fail(p, "zone must be a non-empty string", NULL, 0);
            *zone = pct != NULL;
            return net_ipv6_fields(p, s, end, out->b);
        }
        if (s[i] == '%')
            return net_fail(p, "missing IPv6 address", NULL, 0);
    }
    return net_fail(p, "unable to parse IP", NULL, 0);
}

static bool
net_is_4in6(const net_addr_t *x)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return !x->v4 && memcmp(x->b, prefix, 12) == 0;
}

/* ---- Printing ---- */

static void
net_put_addr(cel__buf_t *b, const net_addr_t *x)
{
    if (x->v4) {
        cel__buf_printf(b, "%u.%u.%u.%u", x->b[12], x->b[13], x->b[14], x->b[15]);
        return;
    }
    if (net_is_4in6(x)) {
        cel__buf_printf(b, "::ffff:%u.%u.%u.%u", x->b[12], x->b[13], x->b[14], x->b[15]);
        return;
    }
    /* The first longest run of two or more zero groups becomes "::". */
    int zs = -1, ze = -1;
    for (int i = 0; i < 8; i++) {
        int j = i;
        while (j < 8 && x->b[2 * j] == 0 && x->b[2 * j + 1] == 0)
            j++;
        if (j - i >= 2 && j - i > ze - zs)
            zs = i, ze = j;
    }
    for (int i = 0; i < 8; i++) {
        if (i == zs) {
            cel__buf_puts(b, "::");
            i = ze - 1;
            continue;
        }
        if (i > 0 && i != ze)
            cel__buf_putc(b, ':');
        cel__buf_printf(b, "%x", (unsigned)(x->b[2 * i] << 8 | x->b[2 * i + 1]));
    }
}

static cel_value_t
net_addr_string(cel_arena_t *a, const net_addr_t *x)
{
    cel__buf_t b;
    cel__buf_init(&b, a, 48);
    net_put_addr(&b, x);
    return cel__buf_string(&b);
}

/* ---- Values ---- */

static bool
net_addr_eq(const net_addr_t *x, const net_addr_t *y)
{
    return x->v4 == y->v4 && memcmp(x->b, y->b, 16) == 0;
}

static bool
net_ip_equal(const cel_object_t *x, const cel_object_t *y)
{
    return net_addr_eq(&((const net_ip_t *)x)->addr, &((const net_ip_t *)y)->addr);
}

static bool
net_cidr_equal(const cel_object_t *x, const cel_object_t *y)
{
    const net_cidr_t *p = (const net_cidr_t *)x, *q = (const net_cidr_t *)y;
    return p->bits == q->bits && net_addr_eq(&p->addr, &q->addr);
}

static const cel__object_ops_t net_ip_ops = {.type = &cel__type_ip, .equal = net_ip_equal};
static const cel__object_ops_t net_cidr_ops = {.type = &cel__type_cidr, .equal = net_cidr_equal};

static cel_value_t
net_ip_value(cel_arena_t *a, const net_addr_t *x)
{
    net_ip_t *ip = cel_arena_alloc(a, sizeof(*ip));
    ip->base.ops = &net_ip_ops;
    ip->addr = *x;
    return cel__object_value(&ip->base);
}

static cel_value_t
net_cidr_value(cel_arena_t *a, const net_addr_t *x, int bits)
{
    net_cidr_t *c = cel_arena_alloc(a, sizeof(*c));
    c->base.ops = &net_cidr_ops;
    c->addr = *x;
    c->bits = bits;
    return cel__object_value(&c->base);
}

/* kube-apiserver's parseIPAddr: netip.ParseAddr, then no zone and no IPv4-mapped IPv6. */
static const char *
net_parse_ip(cel_arena_t *a, const cel_value_t *s, net_addr_t *out)
{
    net_parse_t p = {.a = a, .in = s->v.str.data, .n = s->v.str.len};
    bool zone;
    cel__buf_t b;
    cel__buf_init(&b, a, s->v.str.len + 64);
    if (!net_parse_addr(&p, out, &zone)) {
        cel__buf_puts(&b, "IP Address ");
        cel__go_quote(&b, p.in, p.n);
        cel__buf_printf(&b, " parse error during conversion from string: %s", p.err);
    } else if (zone || net_is_4in6(out)) {
        cel__buf_puts(&b, zone ? "IP address " : "IPv4-mapped IPv6 address ");
        cel__go_quote(&b, p.in, p.n);
        cel__buf_puts(&b, zone ? " with zone value is not allowed" : " is not allowed");
    } else {
        return NULL;
    }
    return b.data;
}

/* The prefix length after the slash as Go reads it: decimal digits, no sign, no leading zero;
 * -1 when it is not a number (or overflows), else the value (capped: anything that large is
 * out of range anyway). */
static long
net_bits(const char *d, size_t n)
{
    if (n == 0 || (n > 1 && d[0] == '0'))
        return -1;
    unsigned long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] < '0' || d[i] > '9' || v > 922337203685477580ULL)
            return -1;
        v = v * 10 + (unsigned)(d[i] - '0');
    }
    return v > 1000 ? 1000 : (long)v;
}

static const char *
net_done(cel__buf_t *b, const char *msg)
{
    cel__buf_puts(b, msg);
    return b->data;
}

/* netip's ParsePrefix, then kube-apiserver's refusal of IPv4-mapped addresses; the error text
 * (with one of kube-apiserver's two prefixes; the function adds the other), or NULL. */
static const char *
net_parse_cidr(cel_arena_t *a, const cel_value_t *s, net_addr_t *addr, int *bits)
{
    const char *in = s->v.str.data;
    size_t n = s->v.str.len, slash = n;
    while (slash > 0 && in[slash - 1] != '/')
        slash--;
    cel__buf_t b;
    cel__buf_init(&b, a, n + 96);
    cel__buf_puts(&b, "network address parse error during conversion from string: ");
    size_t head = b.len;
    cel__buf_puts(&b, "netip.ParsePrefix(");
    cel__go_quote(&b, in, n);
    cel__buf_puts(&b, "): ");
    if (slash == 0)
        return net_done(&b, "no '/'");
    net_parse_t p = {.a = a, .in = in, .n = slash - 1};
    bool zone;
    if (!net_parse_addr(&p, addr, &zone))
        return net_done(&b, p.err);
    if (zone)
        return net_done(&b, "IPv6 zones cannot be present in a prefix");
    long v = net_bits(in + slash, n - slash);
    if (v < 0) {
        cel__buf_puts(&b, "bad bits after slash: ");
        cel__go_quote(&b, in + slash, n - slash);
        return b.data;
    }
    if (v > (addr->v4 ? 32 : 128))
        return net_done(&b, "prefix length out of range");
    *bits = (int)v;
    if (!net_is_4in6(addr))
        return NULL;
    b.len = head;
    cel__buf_puts(&b, "IPv4-mapped IPv6 address ");
    cel__go_quote(&b, in, n);
    return net_done(&b, " is not allowed");
}

/* ---- Predicates ---- */

static bool
net_is_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] != 0)
            return false;
    }
    return true;
}

static bool
net_unspecified(const net_addr_t *x)
{
    return x->v4 ? net_is_zero(x->b + 12, 4) : net_is_zero(x->b, 16);
}

static bool
net_loopback(const net_addr_t *x)
{
    return x->v4 ? x->b[12] == 127 : net_is_zero(x->b, 15) && x->b[15] == 1;
}

static bool
net_multicast(const net_addr_t *x)
{
    return x->v4 ? (x->b[12] & 0xf0) == 0xe0 : x->b[0] == 0xff;
}

static bool
net_link_local_multicast(const net_addr_t *x)
{
    if (x->v4)
        return x->b[12] == 224 && x->b[13] == 0 && x->b[14] == 0;
    return x->b[0] == 0xff && (x->b[1] & 0x0f) == 0x02;
}

static bool
net_link_local_unicast(const net_addr_t *x)
{
    if (x->v4)
        return x->b[12] == 169 && x->b[13] == 254;
    return x->b[0] == 0xfe && (x->b[1] & 0xc0) == 0x80;
}

/* netip's IsGlobalUnicast: private and unique-local addresses count as global. */
static bool
net_global_unicast(const net_addr_t *x)
{
    static const uint8_t bcast[4] = {255, 255, 255, 255};
    if (x->v4 && memcmp(x->b + 12, bcast, 4) == 0)
        return false;
    return !net_unspecified(x) && !net_loopback(x) && !net_multicast(x) &&
           !net_link_local_unicast(x);
}

/* Whether the first `bits` bits of the two addresses agree. */
static bool
net_same_prefix(const net_addr_t *x, const net_addr_t *y, int bits)
{
    int off = x->v4 ? 96 : 0, total = off + bits;
    for (int i = 0; i < 16 && i * 8 < total; i++) {
        int keep = total - i * 8 >= 8 ? 8 : total - i * 8;
        uint8_t mask = (uint8_t)(0xff << (8 - keep));
        if ((x->b[i] & mask) != (y->b[i] & mask))
            return false;
    }
    return true;
}

static net_addr_t
net_masked(const net_addr_t *x, int bits)
{
    net_addr_t m = *x;
    int total = (x->v4 ? 96 : 0) + bits;
    for (int i = 0; i < 16; i++) {
        int keep = total - i * 8;
        m.b[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
    }
    return m;
}

/* ---- Functions ---- */

#define FN(name)                                                                                   \
    static cel_value_t name(cel__eval_t *ev, const cel__node_t *call, const cel_value_t *a, int n)

FN(net_ip_fn)
{
    (void)call;
    net_addr_t x;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "ip", a, n);
    const char *err = net_parse_ip(ev->arena, &a[0], &x);
    return err ? cel__err(ev, "%s", err) : net_ip_value(ev->arena, &x);
}

FN(net_is_ip)
{
    (void)call;
    net_addr_t x;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "isIP", a, n);
    return cel_bool(net_parse_ip(ev->arena, &a[0], &x) == NULL);
}

FN(net_is_canonical)
{
    (void)call;
    net_addr_t x;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "ip.isCanonical", a, n);
    const char *err = net_parse_ip(ev->arena, &a[0], &x);
    if (err != NULL)
        return cel__err(ev, "%s", err);
    cel_value_t canon = net_addr_string(ev->arena, &x);
    return cel_bool(cel_value_equal(&canon, &a[0]));
}

/* The IP-address methods: family, isUnspecified, isLoopback, ... */
FN(net_ip_method)
{
    static const struct {
        const char *name;
        bool (*test)(const net_addr_t *);
    } tests[] = {
        {"isUnspecified", net_unspecified},
        {"isLoopback", net_loopback},
        {"isLinkLocalMulticast", net_link_local_multicast},
        {"isLinkLocalUnicast", net_link_local_unicast},
        {"isGlobalUnicast", net_global_unicast},
    };
    const char *name = call->u.call.name;
    if (!cel__is_object(&a[0], &cel__type_ip))
        return cel__no_overload(ev, name, a, n);
    const net_addr_t *x = &((const net_ip_t *)a[0].v.obj)->addr;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        if (strcmp(tests[i].name, name) == 0)
            return cel_bool(tests[i].test(x));
    }
    return cel_int(x->v4 ? 4 : 6);
}

FN(net_cidr_fn)
{
    (void)call;
    net_addr_t x;
    int bits;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "cidr", a, n);
    const char *err = net_parse_cidr(ev->arena, &a[0], &x, &bits);
    if (err != NULL)
        return cel__err(ev, "network address parse error during conversion from string: %s", err);
    return net_cidr_value(ev->arena, &x, bits);
}

FN(net_is_cidr)
{
    (void)call;
    net_addr_t x;
    int bits;
    if (a[0].kind != CEL_STRING)
        return cel__no_overload(ev, "isCIDR", a, n);
    return cel_bool(net_parse_cidr(ev->arena, &a[0], &x, &bits) == NULL);
}

FN(net_contains_ip)
{
    (void)call;
    net_addr_t x;
    if (!cel__is_object(&a[0], &cel__type_cidr))
        return cel__no_overload(ev, "containsIP", a, n);
    if (a[1].kind == CEL_STRING) {
        /* kube-apiserver drops the parse error and reports no overload. */
        if (net_parse_ip(ev->arena, &a[1], &x) != NULL)
            return cel__err(ev, "no such overload");
    } else if (cel__is_object(&a[1], &cel__type_ip)) {
        x = ((const net_ip_t *)a[1].v.obj)->addr;
    } else {
        return cel__no_overload(ev, "containsIP", a, n);
    }
    const net_cidr_t *c = (const net_cidr_t *)a[0].v.obj;
    return cel_bool(c->addr.v4 == x.v4 && net_same_prefix(&c->addr, &x, c->bits));
}

FN(net_contains_cidr)
{
    (void)call;
    net_cidr_t other;
    if (!cel__is_object(&a[0], &cel__type_cidr))
        return cel__no_overload(ev, "containsCIDR", a, n);
    if (a[1].kind == CEL_STRING) {
        const char *err = net_parse_cidr(ev->arena, &a[1], &other.addr, &other.bits);
        if (err != NULL)
            return cel__err(ev, "network address parse error during conversion from string: %s",
                            err);
    } else if (cel__is_object(&a[1], &cel__type_cidr)) {
        other = *(const net_cidr_t *)a[1].v.obj;
    } else {
        return cel__no_overload(ev, "containsCIDR", a, n);
    }
    const net_cidr_t *c = (const net_cidr_t *)a[0].v.obj;
    net_addr_t mine = net_masked(&c->addr, c->bits);
    return cel_bool(net_addr_eq(&mine, &other.addr) && c->bits <= other.bits);
}

/* cidr.ip(), cidr.masked(), cidr.prefixLength(). */
FN(net_cidr_method)
{
    const char *name = call->u.call.name;
    if (!cel__is_object(&a[0], &cel__type_cidr))
        return cel__no_overload(ev, name, a, n);
    const net_cidr_t *c = (const net_cidr_t *)a[0].v.obj;
    if (strcmp(name, "ip") == 0)
        return net_ip_value(ev->arena, &c->addr);
    if (strcmp(name, "prefixLength") == 0)
        return cel_int(c->bits);
    net_addr_t m = net_masked(&c->addr, c->bits);
    return net_cidr_value(ev->arena, &m, c->bits);
}

/* string() of an IP address or a CIDR. */
FN(net_to_string)
{
    if (cel__is_object(&a[0], &cel__type_ip))
        return net_addr_string(ev->arena, &((const net_ip_t *)a[0].v.obj)->addr);
    if (!cel__is_object(&a[0], &cel__type_cidr))
        return cel__fn_next(ev, call, net_to_string, a, n);
    const net_cidr_t *c = (const net_cidr_t *)a[0].v.obj;
    cel__buf_t b;
    cel__buf_init(&b, ev->arena, 52);
    net_put_addr(&b, &c->addr);
    cel__buf_printf(&b, "/%d", c->bits);
    return cel__buf_string(&b);
}

const cel__fn_t cel__net_fns[] = {
    {"ip", false, 1, 1, net_ip_fn},
    {"isIP", false, 1, 1, net_is_ip},
    {"ip.isCanonical", false, 1, 1, net_is_canonical},
    {"family", true, 1, 1, net_ip_method},
    {"isUnspecified", true, 1, 1, net_ip_method},
    {"isLoopback", true, 1, 1, net_ip_method},
    {"isLinkLocalMulticast", true, 1, 1, net_ip_method},
    {"isLinkLocalUnicast", true, 1, 1, net_ip_method},
    {"isGlobalUnicast", true, 1, 1, net_ip_method},
    {"cidr", false, 1, 1, net_cidr_fn},
    {"isCIDR", false, 1, 1, net_is_cidr},
    {"containsIP", true, 2, 2, net_contains_ip},
    {"containsCIDR", true, 2, 2, net_contains_cidr},
    {"ip", true, 1, 1, net_cidr_method},
    {"masked", true, 1, 1, net_cidr_method},
    {"prefixLength", true, 1, 1, net_cidr_method},
    {"string", false, 1, 1, net_to_string},
    {NULL, false, 0, 0, NULL},
};

#undef FN
