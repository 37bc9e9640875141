/* The bootstrap signer's detached JWS against signatures made independently (HS256 over
 * "<base64url header>.<base64url payload>", keyed with the full token), for text, an empty
 * payload and bytes that need base64url's - and _. */
#include "gw_bootstrapsigner.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define HEADER "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9"

static void
is_sig(const char *content, size_t len, const char *want, const char *name)
{
    char *got = gw_bootstrapsigner_sign(content, len, "abcdef", "0123456789abcdef");
    tap_is_str(got, want, name);
    free(got);
}

int
main(void)
{
    const char *kc = "apiVersion: v1\nkind: Config\n";
    is_sig(kc, strlen(kc), HEADER "..OL26IkIRSLex9f6p5BswKn_8IIjkARMnpB3RuAHgpIA", "a kubeconfig");
    is_sig("", 0, HEADER "..rMMZo3KDfCvfU9EBqDbThq-pyogiCyshYGBIhJ-4a2s", "an empty payload");
    is_sig("\xff\xfe?>", 4, HEADER "..S9o-MTi6ES8SuikpSJ7cCJZ-yYJoOjA9PDRsidtLvwU",
           "bytes whose base64 has + and /");
    char *other = gw_bootstrapsigner_sign(kc, strlen(kc), "abcdef", "0123456789abcdee");
    tap_ok(strcmp(other, HEADER "..OL26IkIRSLex9f6p5BswKn_8IIjkARMnpB3RuAHgpIA") != 0,
           "another secret, another signature");
    free(other);
    return tap_done();
}
