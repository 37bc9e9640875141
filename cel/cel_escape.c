/*
 * Property-name escaping as kube-apiserver does it for CEL: a JSON property name becomes an
 * identifier ("__" -> "__underscores__", "." -> "__dot__", "-" -> "__dash__", "/" ->
 * "__slash__", a CEL reserved word w -> "__w__"); names with other characters, or starting with a
 * digit, have no identifier and stay out of reach of field selection.
 */
#include "cel.h"

#include <string.h>

#include "cel_int.h"

static const char *const esc_reserved[] = {
    "true",      "false",  "null",     "in",   "as",     "break", "const", "continue",
    "else",      "for",    "function", "if",   "import", "let",   "loop",  "package",
    "namespace", "return", "var",      "void", "while",  NULL,
};

static const struct {
    const char *seq;
    const char *text;
} esc_seqs[] = {
    {"__underscores__", "__"},
    {"__dot__", "."},
    {"__dash__", "-"},
    {"__slash__", "/"},
};

static bool
esc_is_reserved(const char *s, size_t n)
{
    for (int i = 0; esc_reserved[i] != NULL; i++) {
        if (strlen(esc_reserved[i]) == n && memcmp(esc_reserved[i], s, n) == 0)
            return true;
    }
    return false;
}

static bool
esc_allowed(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '/';
}

/* The escape sequence standing for name[i] ("__" counting as one character), or NULL. */
static const char *
esc_seq_for(const char *name, size_t len, size_t i)
{
    switch (name[i]) {
    case '.':
        return esc_seqs[1].seq;
    case '-':
        return esc_seqs[2].seq;
    case '/':
        return esc_seqs[3].seq;
    case '_':
        return i + 1 < len && name[i + 1] == '_' ? esc_seqs[0].seq : NULL;
    default:
        return NULL;
    }
}

const char *
cel_escape_property(cel_arena_t *a, const char *name, size_t len)
{
    if (len == 0 || (name[0] >= '0' && name[0] <= '9'))
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (!esc_allowed(name[i]))
            return NULL;
    }
    if (esc_is_reserved(name, len))
        return cel__arena_sprintf(a, "__%.*s__", (int)len, name);
    cel__buf_t b;
    cel__buf_init(&b, a, len + 16);
    for (size_t i = 0; i < len; i++) {
        const char *seq = esc_seq_for(name, len, i);
        if (seq == NULL)
            cel__buf_putc(&b, name[i]);
        else
            cel__buf_puts(&b, seq);
        i += seq == esc_seqs[0].seq;
    }
    return b.data;
}

/* The escape sequence at s[0..n), or -1. */
static int
esc_seq_at(const char *s, size_t n)
{
    for (int k = 0; k < 4; k++) {
        size_t l = strlen(esc_seqs[k].seq);
        if (n >= l && memcmp(s, esc_seqs[k].seq, l) == 0)
            return k;
    }
    return -1;
}

const char *
cel_unescape_property(cel_arena_t *a, const char *ident, size_t len, size_t *outlen)
{
    if (len >= 4 && memcmp(ident, "__", 2) == 0 && memcmp(ident + len - 2, "__", 2) == 0 &&
        esc_is_reserved(ident + 2, len - 4)) {
        *outlen = len - 4;
        return ident + 2;
    }
    if (memmem(ident, len, "__", 2) == NULL) {
        *outlen = len;
        return ident;
    }
    cel__buf_t b;
    cel__buf_init(&b, a, len);
    for (size_t i = 0; i < len;) {
        if (i + 1 < len && ident[i] == '_' && ident[i + 1] == '_') {
            int k = esc_seq_at(ident + i, len - i);
            if (k < 0)
                return NULL;
            cel__buf_puts(&b, esc_seqs[k].text);
            i += strlen(esc_seqs[k].seq);
        } else {
            cel__buf_putc(&b, ident[i++]);
        }
    }
    *outlen = b.len;
    return b.data;
}
