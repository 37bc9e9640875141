/* The kubernetes Service's address (the first of the service CIDR, as kube's ServiceIPRange
 * picks it) and kube-apiserver's identity Lease name (expected values computed independently
 * with Python's hashlib and base64 from kube's expectedAPIServerIdentity). */
#include "gw_apiserver_identity.h"
#include "gw_kubesvc.h"

#include <stdbool.h>

#include "tap.h"

static void
first_ip(const char *cidr, const char *want)
{
    char out[64] = "";
    bool ok = gw_kubesvc_first_ip(cidr, out, sizeof(out));

    if (want == NULL)
        tap_ok(!ok, "%s is refused", cidr);
    else
        tap_is_str(out, want, cidr);
}

int
main(void)
{
    char name[64];

    first_ip("10.0.0.0/24", "10.0.0.1");
    first_ip("10.96.0.0/12", "10.96.0.1");
    first_ip("10.96.7.9/12", "10.96.0.1"); /* host bits are ignored */
    first_ip("192.168.1.128/25", "192.168.1.129");
    first_ip("fd00:10:96::/112", "fd00:10:96::1");
    first_ip("fd00::ff00/120", "fd00::ff01");
    first_ip("10.0.0.0", NULL);
    first_ip("10.0.0.0/", NULL);
    first_ip("10.0.0.0/33", NULL);
    first_ip("10.0.0.0/32", NULL);
    first_ip("10.0.0.0/2x", NULL);
    first_ip("nonsense/8", NULL);

    gw_apiserver_identity_name("master-1", name, sizeof(name));
    tap_is_str(name, "apiserver-wj467rbl25eeviqacfhvg2yvnm", "identity of master-1");
    gw_apiserver_identity_name("", name, sizeof(name));
    tap_is_str(name, "apiserver-2ikcnb3wory4bpirwz777r2iv4", "identity of an empty hostname");
    return tap_done();
}
