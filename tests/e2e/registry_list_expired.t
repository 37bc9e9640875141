#!/usr/bin/env bash
# Lists against compacted revisions, on an etcd of its own (compacting the shared one would
# disturb the other scenarios): 410 Expired for an exact resourceVersion, and for a continue
# token kube's "inconsistent continue" 410 whose token goes on at the latest revision.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require registry_list_expired

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
etcd_start own >/dev/null
check "an etcd of its own" etcd_wait "$ETCD_URL"
KGATE_TEST_ETCD=$ETCD_URL
# Without kube-root-ca.crt in every namespace, so that ConfigMaps can be counted.
check "kgate starts" api_start expired --workers=2 '--controllers=*,-root-ca-cert-publisher'

for i in 1 2 3 4 5; do req POST $CORE/configmaps "$(cm "cm$i")"; done
req GET "$CORE/configmaps?limit=2"
rv=$(jget "d['metadata']['resourceVersion']")
tok=$(jget "d['metadata']['continue']")
check "a first page" jpy "len(d['items']) == 2"
req POST $CORE/configmaps "$(cm cm6)"
now=$(jget "d['metadata']['resourceVersion']")
check "etcd compacts past the list's revision" \
    bash -c 'ETCDCTL_API=3 etcdctl --endpoints="$0" compact "$1" >/dev/null' "$ETCD_URL" "$now"

req GET "$CORE/configmaps?limit=2&continue=$tok"
check "the continue token is 410 Expired" jpy "d['code'] == 410 and d['reason'] == 'Expired' and \
d['message'].startswith('The provided continue parameter is too old to display a consistent list \
result. You can start a new list without the continue parameter, or use the continue token in \
this response')"
tok2=$(jget "d['metadata']['continue']")
check "... with a token that goes on at the latest revision (rv -1) from the same key" python3 -c "
import base64, json, sys
t = sys.argv[1]
d = json.loads(base64.urlsafe_b64decode(t + '=' * (-len(t) % 4)))
sys.exit(not (d == {'v': 'meta.k8s.io/v1', 'rv': -1, 'start': 'cm3'}))" "$tok2"
req GET "$CORE/configmaps?limit=10&continue=$tok2"
check "that token lists the rest as it is now (cm6 included)" jpy "[i['metadata']['name'] for i \
in d['items']] == ['cm3', 'cm4', 'cm5', 'cm6']"
req GET "$CORE/configmaps?limit=2&resourceVersion=$rv"
check "an exact list at a compacted revision is 410" is_status 410 Expired \
    'The resourceVersion for the provided list is too old.'
req GET "$CORE/configmaps?resourceVersionMatch=Exact&resourceVersion=$rv"
check "... also with resourceVersionMatch=Exact" code_is 410

check "kgate exits cleanly, no sanitizer report (leaks included)" clean_exit
tap_end
