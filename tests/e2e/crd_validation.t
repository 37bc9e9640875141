#!/usr/bin/env bash
# CustomResourceDefinitions on a real kgate: a good CRD is created (201) with kube's v1
# defaults, its status reset and the storage version in status.storedVersions; bad ones get
# kube's 422 (aggregate message, causes, the internal form's paths: spec.validation for a
# schema every version shares, spec.versions[i].schema otherwise); updates keep group and
# plural, move generation with the spec and add a new storage version to storedVersions, and
# refuse to drop a stored version; the status subresource keeps the spec; the first DELETE
# marks the CRD (deletionTimestamp, the cleanup finalizer, Terminating) and it stays until the
# finalizer goes; stock kubectl creates a real-world CRD (cert-manager's Certificate, trimmed)
# and shows kube's error for a bad one.
set -u
cd "$(dirname "$0")/../.."
source tests/lib/etcd.sh
source tests/e2e/kgate.sh
source tests/e2e/api_lib.sh
source tests/e2e/registry_lib.sh
e2e_require crd_validation

PKI=$KGATE_TEST_TMP/pki
api_pki "$PKI"
set_users
trap stop_all EXIT
check "kgate starts" api_start crdval --workers=2
CRDS=/apis/apiextensions.k8s.io/v1/customresourcedefinitions
QK=CustomResourceDefinition.apiextensions.k8s.io
MERGE=application/merge-patch+json

# causes_are PY-LIST: the 422's causes, as [(reason, field, message), ...] in order.
causes_are() {
    jpy "[(c['reason'], c.get('field'), c['message']) for c in d['details']['causes']] == $1"
}

# crd NAME GROUP PLURAL KIND VERSIONS [EXTRA-SPEC-MEMBERS]: a v1 CRD document.
crd() {
    echo "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
\"metadata\":{\"name\":\"$1\"},\"spec\":{\"group\":\"$2\",\"scope\":\"Namespaced\",\
\"names\":{\"plural\":\"$3\",\"kind\":\"$4\"},\"versions\":$5${6:+,$6}}}"
}
SCHEMA='{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
"properties":{"size":{"type":"integer"}}}}}}'
v() { echo "{\"name\":\"$1\",\"served\":true,\"storage\":$2,\"schema\":${3:-$SCHEMA}}"; }

# ---- a good CRD ----------------------------------------------------------------------------
GOOD=$(crd widgets.example.com example.com widgets Widget "[$(v v1 true)]")
GOOD=${GOOD%\}}',"status":{"storedVersions":["bogus"],"acceptedNames":{"plural":"x","kind":"X"},
"conditions":[{"type":"Established","status":"True"}]}}'
req POST $CRDS "$GOOD"
check "a good CRD: 201" code_is 201
check "... v1 defaults: singular, listKind, conversion None" \
    jpy "d['spec']['names'] == {'plural': 'widgets', 'kind': 'Widget', 'singular': 'widget', 'listKind': 'WidgetList'} and d['spec']['conversion'] == {'strategy': 'None'}"
check "... status reset, the storage version stored" \
    jpy "d['status']['storedVersions'] == ['v1'] and not d['status'].get('conditions') and d['status']['acceptedNames'].get('plural', '') == ''"
check "... generation 1" jpy "d['metadata']['generation'] == 1"
RV=$(jget "d['metadata']['resourceVersion']")

# ---- bad CRDs --------------------------------------------------------------------------------
req POST $CRDS "$(crd foo.example.com example.com bars Bar \
    "[$(v v1 true '{"openAPIV3Schema":{"type":"object","properties":{"spec":{"description":"x"}}}}')]")"
check "a bad name and an untyped field: 422 with kube's message" is_status 422 Invalid \
    "$QK \"foo.example.com\" is invalid: [metadata.name: Invalid value: \"foo.example.com\": must be spec.names.plural+\".\"+spec.group, spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields]"
check "... kube's causes" causes_are "[('FieldValueInvalid', 'metadata.name', \
'Invalid value: \"foo.example.com\": must be spec.names.plural+\".\"+spec.group'), \
('FieldValueRequired', 'spec.validation.openAPIV3Schema.properties[spec].type', \
'Required value: must not be empty for specified object fields')]"
check "... the details name the kind and group" \
    jpy "d['details']['kind'] == 'CustomResourceDefinition' and d['details']['group'] == 'apiextensions.k8s.io'"
req GET $CRDS/foo.example.com
check "... nothing is stored" code_is 404

req POST $CRDS "$(crd things.example.com example.com things Thing \
    "[$(v v1 true), $(v v2 false '{"openAPIV3Schema":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}}}}}')]")"
check "versions with their own schemas: errors at spec.versions[i].schema" is_status 422 Invalid \
    "$QK \"things.example.com\" is invalid: spec.versions[1].schema.openAPIV3Schema.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"

req POST $CRDS "$(crd hooks.example.com example.com hooks Hook "[$(v v1 true), $(v v2 false)]" \
    '"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"url":"http://example.com/convert?x=1"}}}')"
check "a conversion webhook: kube's URL rules, review versions required (at the internal paths)" is_status 422 Invalid \
    "$QK \"hooks.example.com\" is invalid: [spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid value: \"x=1\": query parameters are not permitted in the URL, spec.conversion.conversionReviewVersions: Required value]"

req POST $CRDS "$(crd hooks.example.com example.com hooks Hook "[$(v v1 true), $(v v2 false)]" \
    '"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"service":{"namespace":"ns","name":"conv"}}}}')"
check "a conversion webhook service: 201" code_is 201
check "... its port defaults to 443" \
    jpy "d['spec']['conversion']['webhook']['clientConfig']['service']['port'] == 443"

req POST $CRDS "$(crd gadgets.k8s.io k8s.io gadgets Gadget "[$(v v1 true)]")"
check "a protected group without approval: 422" is_status 422 Invalid \
    "$QK \"gadgets.k8s.io\" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111"

req POST $CRDS "$(crd tools.example.com example.com tools Tool "[$(v v1 false)]")"
check "no storage version: 422" code_is 422
check "... spec.versions and status.storedVersions" \
    jpy "[c['field'] for c in d['details']['causes']] == ['spec.versions', 'status.storedVersions'] and d['details']['causes'][0]['message'].endswith('must have exactly one version marked as storage version') and d['details']['causes'][1]['message'] == 'Invalid value: []string(nil): must have at least one stored version'"

req POST $CRDS "$(crd parts.example.com example.com parts Part '[{"name":"v1","storage":true,"schema":'"$SCHEMA"'}]')"
check "a version without served: 201 (kube requires only what its validation does)" code_is 201
check "... not served" jpy "d['spec']['versions'][0]['served'] == False"

# ---- updates ---------------------------------------------------------------------------------
W=$CRDS/widgets.example.com
req GET $W
BODY=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["metadata"]["resourceVersion"]; print(json.dumps(d))' "$OUT")
req PUT $W "$BODY"
check "an update needs a resourceVersion (conditional updates)" code_is 422
req GET $W
edit() { # edit PY-STATEMENT: $BODY = the last answer changed by the statement on d
    BODY=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1; print(json.dumps(d))" "$OUT")
}
edit "d['spec']['group'] = 'other.com'; d['spec']['names']['plural'] = 'gizmos'"
req PUT $W "$BODY"
check "group and plural are immutable" is_status 422 Invalid \
    "$QK \"widgets.example.com\" is invalid: [spec.group: Invalid value: \"other.com\": field is immutable, spec.names.plural: Invalid value: \"gizmos\": field is immutable]"
req GET $W
edit "d['spec']['versions'].append($(v v2 false | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)))')); d['status']['storedVersions'] = ['x']"
req PUT $W "$BODY"
check "a served version added: 200" code_is 200
check "... generation 2, status kept" \
    jpy "d['metadata']['generation'] == 2 and d['status']['storedVersions'] == ['v1']"
edit "d['spec']['versions'][0]['storage'] = False; d['spec']['versions'][1]['storage'] = True"
req PUT $W "$BODY"
check "v2 the storage version: storedVersions [v1, v2], generation 3" \
    jpy "d['status']['storedVersions'] == ['v1', 'v2'] and d['metadata']['generation'] == 3"
edit "d['metadata']['labels'] = {'a': 'b'}"
req PUT $W "$BODY"
check "a label only: generation stays" jpy "d['metadata']['generation'] == 3"
edit "d['spec']['versions'] = d['spec']['versions'][1:]"
req PUT $W "$BODY"
check "dropping a stored version: 422" is_status 422 Invalid \
    "$QK \"widgets.example.com\" is invalid: status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions"

# ---- the status subresource ------------------------------------------------------------------
req GET $W
edit "d['status']['acceptedNames'] = {'plural': 'Bad', 'kind': 'Widget'}"
req PUT $W/status "$BODY"
check "status: acceptedNames are validated" is_status 422 Invalid \
    "$QK \"widgets.example.com\" is invalid: status.acceptedNames.plural: Invalid value: \"Bad\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
req GET $W
edit "d['status']['acceptedNames'] = {'plural': 'widgets', 'kind': 'Widget'}; d['spec']['group'] = 'ignored.com'"
req PUT $W/status "$BODY"
check "status: 200, the spec kept" \
    jpy "d['status']['acceptedNames']['plural'] == 'widgets' and d['spec']['group'] == 'example.com' and d['metadata']['generation'] == 3"

# ---- delete --------------------------------------------------------------------------------
# A finalizer of the test's own holds the CRD: the finalizer controller removes its cleanup
# finalizer at once (the CRD has no objects), and this part looks at the registry's steps.
req PATCH $W '{"metadata":{"finalizers":["example.com/hold"]}}' $MERGE
req GET $W
UID_W=$(jget "d['metadata']['uid']")
req DELETE $W '{"preconditions":{"uid":"nope"}}'
check "a DELETE with another UID: 409 in the CRD registry's words" is_status 409 Conflict \
    "Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io \"widgets.example.com\": Precondition failed: UID in precondition: nope, UID in object meta: $UID_W"
check "... the details name the resource" \
    jpy "d['details'] == {'name': 'widgets.example.com', 'group': 'apiextensions.k8s.io', 'kind': 'customresourcedefinitions'}"
req DELETE "$W?dryRun=All"
check "a dry-run DELETE answers the marked CRD" \
    jpy "'deletionTimestamp' in d['metadata'] and d['metadata']['finalizers'] == ['example.com/hold', 'customresourcecleanup.apiextensions.k8s.io']"
req GET $W
check "... and writes nothing" jpy "'deletionTimestamp' not in d['metadata'] and d['metadata']['finalizers'] == ['example.com/hold']"
req DELETE $W
check "DELETE: 200" code_is 200
check "... deletionTimestamp and the cleanup finalizer" \
    jpy "'deletionTimestamp' in d['metadata'] and d['metadata']['finalizers'] == ['example.com/hold', 'customresourcecleanup.apiextensions.k8s.io'] and 'deletionGracePeriodSeconds' not in d['metadata']"
check "... Terminating=True InstanceDeletionPending" \
    jpy "[(c['type'], c['status'], c['reason'], c['message']) for c in d['status']['conditions'] if c['type'] == 'Terminating'] == [('Terminating', 'True', 'InstanceDeletionPending', 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon')] and all(c.get('lastTransitionTime') for c in d['status']['conditions'])"
req GET $W
check "... the CRD stays" code_is 200
req DELETE $W
check "a second DELETE: the generic delete, the finalizer keeps it" \
    jpy "'example.com/hold' in d['metadata']['finalizers'] and d['metadata']['deletionGracePeriodSeconds'] == 0"
req PATCH $W '{"metadata":{"finalizers":null}}' $MERGE
check "removing the finalizer deletes it" code_is 200
req GET $W
check "... gone" code_is 404

# ---- kubectl -------------------------------------------------------------------------------
if kubectl_ok; then
    export KUBECONFIG=$KGATE_TEST_TMP/kubeconfig
    kubeconfig "$KUBECONFIG"
    M=$KGATE_TEST_TMP/manifests
    mkdir -p "$M"
    cat >"$M/certificates.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
  labels:
    app: cert-manager
    app.kubernetes.io/name: cert-manager
spec:
  group: cert-manager.io
  names:
    kind: Certificate
    listKind: CertificateList
    plural: certificates
    shortNames:
      - cert
      - certs
    singular: certificate
    categories:
      - cert-manager
  scope: Namespaced
  versions:
    - name: v1
      subresources:
        status: {}
      additionalPrinterColumns:
        - jsonPath: .status.conditions[?(@.type=="Ready")].status
          name: Ready
          type: string
        - jsonPath: .spec.secretName
          name: Secret
          type: string
        - jsonPath: .spec.issuerRef.name
          name: Issuer
          priority: 1
          type: string
        - jsonPath: .status.conditions[?(@.type=="Ready")].message
          name: Status
          priority: 1
          type: string
        - jsonPath: .metadata.creationTimestamp
          description: CreationTimestamp is a timestamp representing the server time when this object was created.
          name: Age
          type: date
      schema:
        openAPIV3Schema:
          description: A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in `spec.secretName`.
          type: object
          properties:
            apiVersion:
              description: APIVersion defines the versioned schema of this representation of an object.
              type: string
            kind:
              description: Kind is a string value representing the REST resource this object represents.
              type: string
            metadata:
              type: object
            spec:
              description: Specification of the desired state of the Certificate resource.
              type: object
              required:
                - issuerRef
                - secretName
              properties:
                additionalOutputFormats:
                  description: Defines extra output formats of the private key and signed certificate chain.
                  type: array
                  items:
                    type: object
                    required:
                      - type
                    properties:
                      type:
                        description: Type is the name of the format type that should be written to the Certificate's target Secret.
                        type: string
                        enum:
                          - DER
                          - CombinedPEM
                commonName:
                  description: Requested common name X509 certificate subject attribute.
                  type: string
                dnsNames:
                  description: Requested DNS subject alternative names.
                  type: array
                  items:
                    type: string
                duration:
                  description: Requested 'duration' (i.e. lifetime) of the Certificate.
                  type: string
                emailAddresses:
                  type: array
                  items:
                    type: string
                encodeUsagesInRequest:
                  type: boolean
                ipAddresses:
                  type: array
                  items:
                    type: string
                isCA:
                  type: boolean
                issuerRef:
                  description: Reference to the issuer responsible for issuing the certificate.
                  type: object
                  required:
                    - name
                  properties:
                    group:
                      type: string
                    kind:
                      type: string
                    name:
                      type: string
                keystores:
                  type: object
                  properties:
                    jks:
                      type: object
                      required:
                        - create
                        - passwordSecretRef
                      properties:
                        alias:
                          type: string
                        create:
                          type: boolean
                        passwordSecretRef:
                          type: object
                          required:
                            - name
                          properties:
                            key:
                              type: string
                            name:
                              type: string
                    pkcs12:
                      type: object
                      required:
                        - create
                      properties:
                        create:
                          type: boolean
                        profile:
                          type: string
                          enum:
                            - LegacyRC2
                            - LegacyDES
                            - Modern2023
                literalSubject:
                  type: string
                nameConstraints:
                  type: object
                  properties:
                    critical:
                      type: boolean
                    permitted:
                      type: object
                      properties:
                        dnsDomains:
                          type: array
                          items:
                            type: string
                          x-kubernetes-list-type: atomic
                privateKey:
                  type: object
                  properties:
                    algorithm:
                      type: string
                      enum:
                        - RSA
                        - ECDSA
                        - Ed25519
                    encoding:
                      type: string
                      enum:
                        - PKCS1
                        - PKCS8
                    rotationPolicy:
                      type: string
                      enum:
                        - Never
                        - Always
                    size:
                      type: integer
                renewBefore:
                  type: string
                renewBeforePercentage:
                  type: integer
                  format: int32
                revisionHistoryLimit:
                  type: integer
                  format: int32
                secretName:
                  type: string
                secretTemplate:
                  type: object
                  properties:
                    annotations:
                      type: object
                      additionalProperties:
                        type: string
                    labels:
                      type: object
                      additionalProperties:
                        type: string
                subject:
                  type: object
                  properties:
                    countries:
                      type: array
                      items:
                        type: string
                    organizations:
                      type: array
                      items:
                        type: string
                    serialNumber:
                      type: string
                uris:
                  type: array
                  items:
                    type: string
                usages:
                  type: array
                  items:
                    type: string
                    enum:
                      - signing
                      - digital signature
                      - key encipherment
                      - server auth
                      - client auth
                port:
                  x-kubernetes-int-or-string: true
                  anyOf:
                    - type: integer
                    - type: string
                extra:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
              x-kubernetes-validations:
                - rule: "!has(self.isCA) || !self.isCA || has(self.commonName)"
                  message: a CA certificate needs a common name
                  fieldPath: .commonName
                  reason: FieldValueRequired
            status:
              description: Status of the Certificate.
              type: object
              properties:
                conditions:
                  type: array
                  items:
                    type: object
                    required:
                      - status
                      - type
                    properties:
                      lastTransitionTime:
                        type: string
                        format: date-time
                      message:
                        type: string
                      observedGeneration:
                        type: integer
                        format: int64
                      reason:
                        type: string
                      status:
                        type: string
                        enum:
                          - "True"
                          - "False"
                          - Unknown
                      type:
                        type: string
                  x-kubernetes-list-map-keys:
                    - type
                  x-kubernetes-list-type: map
                failedIssuanceAttempts:
                  type: integer
                lastFailureTime:
                  type: string
                  format: date-time
                notAfter:
                  type: string
                  format: date-time
                notBefore:
                  type: string
                  format: date-time
                renewalTime:
                  type: string
                  format: date-time
                revision:
                  type: integer
      selectableFields:
        - jsonPath: .spec.secretName
        - jsonPath: .spec.issuerRef.name
      served: true
      storage: true
YAML
    check "kubectl create -f a real-world CRD (cert-manager's Certificate)" \
        k create -f "$M/certificates.yaml"
    check "... kubectl reads it back with its storage version" \
        k get crd certificates.cert-manager.io -o 'jsonpath={.status.storedVersions}'
    check "... [\"v1\"]" has '["v1"]'
    sed 's/      - certs$/      - certs\n      - crt/' "$M/certificates.yaml" >"$M/applied.yaml"
    check "kubectl apply of a changed CRD (a strategic merge patch)" k apply -f "$M/applied.yaml"
    check "... the change is there" \
        k get crd certificates.cert-manager.io -o 'jsonpath={.spec.names.shortNames}'
    check "... [cert certs crt]" has '["cert","certs","crt"]'
    check "kubectl apply --server-side of it" \
        k apply --server-side --force-conflicts -f "$M/certificates.yaml"
    check "... the shortName dropped again, generation moved" \
        k get crd certificates.cert-manager.io -o 'jsonpath={.spec.names.shortNames} {.metadata.generation}'
    check "... [cert certs] 3" has '["cert","certs"] 3'
    sed 's/name: certificates.cert-manager.io/name: certs.cert-manager.io/' \
        "$M/certificates.yaml" >"$M/bad.yaml"
    check "kubectl create -f a CRD whose name is not <plural>.<group> fails" \
        bash -c "! kubectl --request-timeout=20s create -f '$M/bad.yaml' >'$M/out' 2>&1"
    KOUT=$(cat "$M/out")
    check "... with kube's error" has 'The CustomResourceDefinition "certs.cert-manager.io" is invalid: metadata.name: Invalid value: "certs.cert-manager.io": must be spec.names.plural+"."+spec.group'
fi

check "kgate exits cleanly" clean_exit
tap_end
