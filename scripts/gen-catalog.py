#!/usr/bin/env python3
"""Derive gateway/catalog/catalog.json from the Kubernetes v1.32 OpenAPI v2 document.

Usage: scripts/gen-catalog.py [OPENAPI_JSON] [OUTPUT]
  OPENAPI_JSON  default ../shared/data/kubernetes-openapi-v2-v1.32.json (from the repo root)
  OUTPUT        default gateway/catalog/catalog.json

Run by hand when the source document or the fact tables below change; the build only embeds
the committed output. The output carries structure only (types, fields, markers, resource
facts), never descriptions, and is byte-for-byte reproducible (sorted keys, fixed order).

Output shape:
  groups       [{name, versions: [{version, enabled}]}] in the order kube-apiserver lists
               /apis (core first), versions preferred first; `enabled` is the v1.32 default.
  resources    [{group, version, name, singular, kind, listKind, listDefinition, namespaced, verbs,
                 shortNames, categories, subresources: [{name, group, version, kind, verbs,
                 definition, connect}], definition, deleteReturnsObject, storagePath,
                 storageVersionHash, keepsGeneration, virtual}]
               deleteReturnsObject: a delete answers with the object rather than a Status
               (kube's ReturnDeletedObject), read from the delete operation's 200 response.
  definitions  {name: schema}: the OpenAPI schema minus prose; "$ref" holds a bare definition
               name; "x-kgate-type" marks the special types (int-or-string, quantity, time, any).
  lifecycle    [{group, version, kind, introduced, deprecated, removed, replacement}] sorted by
               (group, version, kind): the prerelease lifecycle of the served kinds that have one
               (scripts/api-lifecycle.txt, with the generator's default releases filled in);
               releases are [major, minor] or null, replacement {group, version, kind} or null.
  protobuf     {messages, types}: the Kubernetes protobuf wire form, present when
               gateway/catalog/proto-fields.json is (scripts/gen-proto-fields.py makes it).
               messages: {definition: [[property, field number path..., flags], ...]},
               copied for the definitions kept; types: {definition: wire type} for the definitions whose wire
               message is not their JSON shape (PROTO_TYPES below).
"""
import base64
import hashlib
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_INPUT = os.path.join(REPO, '..', 'shared', 'data', 'kubernetes-openapi-v2-v1.32.json')
DEFAULT_OUTPUT = os.path.join(REPO, 'gateway', 'catalog', 'catalog.json')
PROTO_FIELDS = os.path.join(REPO, 'gateway', 'catalog', 'proto-fields.json')
LIFECYCLE = os.path.join(REPO, 'scripts', 'api-lifecycle.txt')

# ---- facts about kube-apiserver v1.32 that the OpenAPI document does not carry -------------

# /apis order: the aggregator lists its own group first, then groups by APIService
# GroupPriorityMinimum (descending), ties by APIService name.
GROUP_PRIORITY = {
    '': 18000,
    'apps': 17800,
    'events.k8s.io': 17750,
    'authentication.k8s.io': 17700,
    'authorization.k8s.io': 17600,
    'autoscaling': 17500,
    'batch': 17400,
    'certificates.k8s.io': 17300,
    'networking.k8s.io': 17200,
    'policy': 17100,
    'rbac.authorization.k8s.io': 17000,
    'storage.k8s.io': 16800,
    'admissionregistration.k8s.io': 16700,
    'apiextensions.k8s.io': 16700,
    'scheduling.k8s.io': 16600,
    'coordination.k8s.io': 16500,
    'node.k8s.io': 16300,
    'discovery.k8s.io': 16200,
    'flowcontrol.apiserver.k8s.io': 16100,
    'internal.apiserver.k8s.io': 16000,
    'resource.k8s.io': 15900,
    'storagemigration.k8s.io': 15800,
}
AGGREGATOR_GROUP = 'apiregistration.k8s.io'

# ShortNamesProvider answers of the v1.32 registries, in their order.
SHORT_NAMES = {
    ('', 'componentstatuses'): ['cs'],
    ('', 'configmaps'): ['cm'],
    ('', 'endpoints'): ['ep'],
    ('', 'events'): ['ev'],
    ('', 'limitranges'): ['limits'],
    ('', 'namespaces'): ['ns'],
    ('', 'nodes'): ['no'],
    ('', 'persistentvolumeclaims'): ['pvc'],
    ('', 'persistentvolumes'): ['pv'],
    ('', 'pods'): ['po'],
    ('', 'replicationcontrollers'): ['rc'],
    ('', 'resourcequotas'): ['quota'],
    ('', 'serviceaccounts'): ['sa'],
    ('', 'services'): ['svc'],
    ('apiextensions.k8s.io', 'customresourcedefinitions'): ['crd', 'crds'],
    ('apps', 'daemonsets'): ['ds'],
    ('apps', 'deployments'): ['deploy'],
    ('apps', 'replicasets'): ['rs'],
    ('apps', 'statefulsets'): ['sts'],
    ('autoscaling', 'horizontalpodautoscalers'): ['hpa'],
    ('batch', 'cronjobs'): ['cj'],
    ('certificates.k8s.io', 'certificatesigningrequests'): ['csr'],
    ('events.k8s.io', 'events'): ['ev'],
    ('networking.k8s.io', 'ingresses'): ['ing'],
    ('networking.k8s.io', 'networkpolicies'): ['netpol'],
    ('policy', 'poddisruptionbudgets'): ['pdb'],
    ('scheduling.k8s.io', 'priorityclasses'): ['pc'],
    ('storage.k8s.io', 'storageclasses'): ['sc'],
    ('storage.k8s.io', 'volumeattributesclasses'): ['vac'],
}

# CategoriesProvider answers.
_ALL = ['all']
_API_EXTENSIONS = ['api-extensions']
CATEGORIES = {
    ('', 'pods'): _ALL,
    ('', 'replicationcontrollers'): _ALL,
    ('', 'services'): _ALL,
    ('apps', 'daemonsets'): _ALL,
    ('apps', 'deployments'): _ALL,
    ('apps', 'replicasets'): _ALL,
    ('apps', 'statefulsets'): _ALL,
    ('autoscaling', 'horizontalpodautoscalers'): _ALL,
    ('batch', 'cronjobs'): _ALL,
    ('batch', 'jobs'): _ALL,
    ('apiextensions.k8s.io', 'customresourcedefinitions'): _API_EXTENSIONS,
    ('apiregistration.k8s.io', 'apiservices'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'validatingwebhookconfigurations'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'validatingadmissionpolicies'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'validatingadmissionpolicybindings'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'mutatingadmissionpolicies'): _API_EXTENSIONS,
    ('admissionregistration.k8s.io', 'mutatingadmissionpolicybindings'): _API_EXTENSIONS,
}

# etcd paths that are not the plural name: kube-apiserver's specialDefaultResourcePrefixes,
# and "<group>/<resource>" for the apiextensions and aggregator servers. Keep in step with
# gateway/storage/gw_keys.c (a unit test compares them).
STORAGE_PATHS = {
    ('', 'nodes'): 'minions',
    ('', 'services'): 'services/specs',
    ('', 'endpoints'): 'services/endpoints',
    ('', 'replicationcontrollers'): 'controllers',
    ('networking.k8s.io', 'ingresses'): 'ingress',
    ('apiextensions.k8s.io', 'customresourcedefinitions'):
        'apiextensions.k8s.io/customresourcedefinitions',
    ('apiregistration.k8s.io', 'apiservices'): 'apiregistration.k8s.io/apiservices',
}

# Registry strategies that set metadata.generation (1 on create, +1 on spec change) in v1.32.
# (HorizontalPodAutoscaler and Pod only started later, behind HPAGeneration and
# PodObservedGenerationTracking.)
KEEPS_GENERATION = {
    ('', 'replicationcontrollers'),
    ('admissionregistration.k8s.io', 'mutatingadmissionpolicies'),
    ('admissionregistration.k8s.io', 'mutatingadmissionpolicybindings'),
    ('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'),
    ('admissionregistration.k8s.io', 'validatingadmissionpolicies'),
    ('admissionregistration.k8s.io', 'validatingadmissionpolicybindings'),
    ('admissionregistration.k8s.io', 'validatingwebhookconfigurations'),
    ('apiextensions.k8s.io', 'customresourcedefinitions'),
    ('apps', 'daemonsets'),
    ('apps', 'deployments'),
    ('apps', 'replicasets'),
    ('apps', 'statefulsets'),
    ('batch', 'cronjobs'),
    ('batch', 'jobs'),
    ('discovery.k8s.io', 'endpointslices'),
    ('flowcontrol.apiserver.k8s.io', 'flowschemas'),
    ('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'),
    ('networking.k8s.io', 'ingressclasses'),
    ('networking.k8s.io', 'ingresses'),
    ('networking.k8s.io', 'networkpolicies'),
    ('policy', 'poddisruptionbudgets'),
    ('resource.k8s.io', 'deviceclasses'),
    ('resource.k8s.io', 'resourceslices'),
    ('storage.k8s.io', 'csidrivers'),
}

# Served but never stored under their own key: computed answers and create-only reviews
# (bindings writes into the pod).
VIRTUAL = {
    ('', 'bindings'),
    ('', 'componentstatuses'),
    ('authentication.k8s.io', 'selfsubjectreviews'),
    ('authentication.k8s.io', 'tokenreviews'),
    ('authorization.k8s.io', 'localsubjectaccessreviews'),
    ('authorization.k8s.io', 'selfsubjectaccessreviews'),
    ('authorization.k8s.io', 'selfsubjectrulesreviews'),
    ('authorization.k8s.io', 'subjectaccessreviews'),
}

# Stored through another group's storage: the storage version is that group's kind.
STORAGE_VERSION_OVERRIDES = {
    ('events.k8s.io', 'events'): ('', 'v1', 'Event'),
}

# Subresources registered only behind a feature gate that v1.32 leaves off.
GATED_OFF_SUBRESOURCES = {
    ('', 'pods', 'resize'),  # InPlacePodVerticalScaling (alpha)
}

# Definitions the discovery, error, delete and watch machinery needs besides the kinds' own.
EXTRA_ROOTS = [
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList',
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList',
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent',
    'io.k8s.apimachinery.pkg.version.Info',
]

# Definitions whose wire form is not what their OpenAPI type says.
SPECIAL_TYPES = {
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
    'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
    'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'time',
    'io.k8s.apimachinery.pkg.runtime.RawExtension': 'any',
    'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'any',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': 'any',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'any',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'any',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'any',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray':
        'any',
}

# Definitions whose protobuf message differs from their JSON shape (apimachinery's hand-written
# wire forms): time {seconds=1, nanos=2}; duration {duration=1}; int-or-string {type=1, intVal=2,
# strVal=3}; quantity {string=1}; raw-json {raw=1} holding a JSON document; the JSONSchemaProps
# unions {schema=1, jSONSchemas=2}, {allows=1, schema=2} and {schema=1, property=2}.
PROTO_TYPES = {
    'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
    'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'micro-time',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
    'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
    'io.k8s.apimachinery.pkg.runtime.RawExtension': 'raw-json',
    'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'raw-json',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'raw-json',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray':
        'schema-or-array',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool':
        'schema-or-bool',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray':
        'schema-or-strings',
}

# ---- versions and groups -------------------------------------------------------------------

VERSION_RE = re.compile(r'^v(\d+)(?:(alpha|beta)(\d+))?$')
STABILITY_RANK = {None: 2, 'beta': 1, 'alpha': 0}


def version_key(version):
    """Sort key putting kube's preferred versions first: GA, beta, alpha; higher numbers
    first within a level (kube-aware version ordering)."""
    m = VERSION_RE.match(version)
    if not m:
        return (1, version)
    major, level, minor = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    return (0, -STABILITY_RANK[level], -major, -minor)


def enabled_by_default(version):
    """v1.32 serves GA versions by default; every beta it has arrived after betas stopped
    being on by default (KEP-3136), and alpha is always off."""
    return VERSION_RE.match(version).group(2) is None


def group_key(group):
    if group == '':
        return (0, 0, '')
    if group == AGGREGATOR_GROUP:
        return (1, 0, '')
    return (2, -GROUP_PRIORITY[group], group)


# ---- definitions -------------------------------------------------------------------------

SCHEMA_KEYS_KEPT = {
    'type', 'format', 'required', 'enum', 'default',
    'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type',
    'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key',
    'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource',
    'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-group-version-kind',
    'x-kubernetes-unions',
}
SCHEMA_KEYS_DROPPED = {'description'}


def ref_name(ref):
    prefix = '#/definitions/'
    if not ref.startswith(prefix):
        raise ValueError(f'unexpected $ref {ref}')
    return ref[len(prefix):]


def compact_schema(schema, where):
    """The schema without prose; nested schemas compacted; $ref reduced to a name. Unknown
    keys stop the run so that a new marker in a future document is not silently lost."""
    out = {}
    for key, value in schema.items():
        if key in SCHEMA_KEYS_DROPPED:
            continue
        if key == '$ref':
            out['$ref'] = ref_name(value)
        elif key == 'properties':
            out[key] = {k: compact_schema(v, f'{where}.{k}') for k, v in value.items()}
        elif key == 'items':
            out[key] = compact_schema(value, f'{where}[]')
        elif key == 'additionalProperties':
            out[key] = compact_schema(value, f'{where}{{}}') if isinstance(value, dict) else value
        elif key in SCHEMA_KEYS_KEPT:
            out[key] = value
        else:
            raise ValueError(f'{where}: unhandled schema key {key!r}')
    return out


def refs_of(schema):
    if '$ref' in schema:
        yield schema['$ref']
    for sub in schema.get('properties', {}).values():
        yield from refs_of(sub)
    for key in ('items', 'additionalProperties'):
        if isinstance(schema.get(key), dict):
            yield from refs_of(schema[key])


def reachable(defs, roots):
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in defs:
            raise ValueError(f'missing definition {name}')
        seen.add(name)
        todo.extend(refs_of(defs[name]))
    return seen


def build_definitions(source_defs, roots):
    compacted = {n: compact_schema(s, n) for n, s in source_defs.items()}
    for name, special in SPECIAL_TYPES.items():
        compacted[name]['x-kgate-type'] = special
    keep = reachable(compacted, roots)
    return {n: compacted[n] for n in sorted(keep)}


def gvk_index(source_defs):
    """(group, version, kind) -> definition name, from the definitions' own markers."""
    index = {}
    for name, schema in source_defs.items():
        for gvk in schema.get('x-kubernetes-group-version-kind', []):
            index.setdefault((gvk['group'], gvk['version'], gvk['kind']), name)
    return index


# ---- resources from paths ----------------------------------------------------------------

# x-kubernetes-action -> verb, for the resource itself (connect is mapped by HTTP method).
ACTION_VERBS = {
    'get': 'get', 'list': 'list', 'post': 'create', 'put': 'update', 'patch': 'patch',
    'delete': 'delete', 'deletecollection': 'deletecollection',
    'watch': 'watch', 'watchlist': 'watch',
}
# kube-apiserver advertises connect subresources with these verbs (HEAD, OPTIONS dropped).
CONNECT_VERBS = {'get': 'get', 'post': 'create', 'put': 'update', 'patch': 'patch',
                 'delete': 'delete'}

PATH_RE = re.compile(r'^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/(?P<version>[^/]+))/(?P<rest>.+)$')


def parse_path(path):
    """(group, version, namespaced, plural, subresource) for a resource path, or None."""
    m = PATH_RE.match(path)
    if not m:
        return None
    group, version = ('', 'v1') if m.group('core') else (m.group('group'), m.group('version'))
    tokens = m.group('rest').split('/')
    if tokens[0] == 'watch':
        tokens = tokens[1:]
    namespaced = len(tokens) >= 3 and tokens[0] == 'namespaces' and tokens[1] == '{namespace}'
    if namespaced:
        tokens = tokens[2:]
    plural = tokens[0]
    sub = tokens[2] if len(tokens) >= 3 and tokens[1] == '{name}' else None
    return group, version, namespaced, plural, sub


def response_ref(op):
    for code in ('200', '201'):
        schema = op.get('responses', {}).get(code, {}).get('schema', {})
        if '$ref' in schema:
            return ref_name(schema['$ref'])
    return None


class Collected:
    """What the paths say about one resource or subresource."""

    def __init__(self):
        self.kinds = set()
        self.verbs = set()
        self.namespaced = False
        self.list_definition = None
        self.body_definition = None
        self.delete_definition = None
        self.connect = False


def collect_operations(paths):
    found = {}
    for path, item in paths.items():
        parsed = parse_path(path)
        if parsed is None:
            continue
        group, version, namespaced, plural, sub = parsed
        for method, op in item.items():
            if method == 'parameters' or 'x-kubernetes-action' not in op:
                continue
            entry = found.setdefault((group, version, plural, sub), Collected())
            record_operation(entry, method, op, namespaced)
    return found


def record_operation(entry, method, op, namespaced):
    action = op['x-kubernetes-action']
    gvk = op['x-kubernetes-group-version-kind']
    entry.kinds.add((gvk['group'], gvk['version'], gvk['kind']))
    entry.namespaced = entry.namespaced or namespaced
    if action == 'connect':
        entry.connect = True
        if method in CONNECT_VERBS:
            entry.verbs.add(CONNECT_VERBS[method])
        return
    entry.verbs.add(ACTION_VERBS[action])
    ref = response_ref(op)
    if action == 'list':
        entry.list_definition = ref
    elif action == 'delete':
        entry.delete_definition = ref
    elif ref is not None and action in ('get', 'post', 'put', 'patch'):
        entry.body_definition = ref


def only(values, what):
    if len(values) != 1:
        raise ValueError(f'{what}: expected one kind, found {sorted(values)}')
    return next(iter(values))


def storage_version_hash(group, version, kind):
    """kube's discovery hash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>")
    of the storage version."""
    digest = hashlib.sha256(f'{group}/{version}/{kind}'.encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def subresource_entry(name, collected):
    group, version, kind = only(collected.kinds, name)
    return {
        'name': name, 'group': group, 'version': version, 'kind': kind,
        'verbs': sorted(collected.verbs),
        'definition': collected.body_definition,
        'connect': collected.connect,
    }


def resource_entry(key, collected, subs, defs_by_gvk, storage_versions):
    group, version, plural = key
    _, _, kind = only(collected.kinds, f'{group}/{version}/{plural}')
    list_def = collected.list_definition
    gk = (group, plural)
    virtual = gk in VIRTUAL
    definition = defs_by_gvk.get((group, version, kind))
    return {
        'group': group, 'version': version, 'name': plural,
        'singular': kind.lower(), 'kind': kind,
        'listKind': list_def.rsplit('.', 1)[1] if list_def else None, 'listDefinition': list_def,
        'namespaced': collected.namespaced,
        'verbs': sorted(collected.verbs),
        'shortNames': SHORT_NAMES.get(gk, []),
        'categories': CATEGORIES.get(gk, []),
        'subresources': [subresource_entry(n, c) for n, c in sorted(subs.items())],
        'definition': definition,
        'deleteReturnsObject': collected.delete_definition == definition,
        'storagePath': STORAGE_PATHS.get(gk, plural),
        'storageVersionHash': None if virtual else storage_versions[gk],
        'keepsGeneration': gk in KEEPS_GENERATION,
        'virtual': virtual,
    }


def storage_version_hashes(found):
    """Per (group, plural): the hash of the version kube stores, which is the group's most
    preferred version serving the resource (or an override)."""
    versions = {}
    for (group, version, plural, sub), collected in found.items():
        if sub is None:
            _, _, kind = only(collected.kinds, plural)
            versions.setdefault((group, plural), []).append((version_key(version), version, kind))
    hashes = {}
    for gk, candidates in versions.items():
        _, version, kind = min(candidates)
        group, version, kind = STORAGE_VERSION_OVERRIDES.get(gk, (gk[0], version, kind))
        hashes[gk] = storage_version_hash(group, version, kind)
    return hashes


def build_resources(paths, defs_by_gvk):
    found = collect_operations(paths)
    subs = {}
    for (group, version, plural, sub), collected in found.items():
        if sub is not None and (group, plural, sub) not in GATED_OFF_SUBRESOURCES:
            subs.setdefault((group, version, plural), {})[sub] = collected
    hashes = storage_version_hashes(found)
    resources = []
    for (group, version, plural, sub), collected in found.items():
        if sub is None:
            key = (group, version, plural)
            resources.append(resource_entry(key, collected, subs.get(key, {}), defs_by_gvk,
                                            hashes))
    resources.sort(key=lambda r: (group_key(r['group']), version_key(r['version']), r['name']))
    return resources


def build_groups(resources):
    versions = {}
    for r in resources:
        versions.setdefault(r['group'], set()).add(r['version'])
    return [
        {'name': g, 'versions': [{'version': v, 'enabled': enabled_by_default(v)}
                                 for v in sorted(versions[g], key=version_key)]}
        for g in sorted(versions, key=group_key)
    ]


def definition_roots(resources):
    roots = list(EXTRA_ROOTS)
    for r in resources:
        roots.extend((r['definition'], r['listDefinition']))
        roots.extend(s['definition'] for s in r['subresources'] if s['definition'])
    return [n for n in roots if n is not None]


def build_protobuf(definitions):
    """The protobuf facts of the kept definitions, or None without proto-fields.json."""
    if not os.path.exists(PROTO_FIELDS):
        return None
    with open(PROTO_FIELDS, encoding='utf-8') as f:
        messages = json.load(f)
    return {
        'messages': {n: m for n, m in messages.items() if n in definitions},
        'types': {n: t for n, t in PROTO_TYPES.items() if n in definitions},
    }


# ---- prerelease lifecycle ------------------------------------------------------------------

def parse_release(text, where):
    m = re.match(r'^(\d+)\.(\d+)$', text)
    if not m:
        sys.exit(f'{LIFECYCLE}: {where}: bad release {text!r}')
    return [int(m.group(1)), int(m.group(2))]


def plus_three(release):
    return [release[0], release[1] + 3]


def lifecycle_entry(fields, where):
    """One table line as the v1.32 prerelease-lifecycle-gen would derive it."""
    gv, kind, tags = fields[0], fields[1], fields[2:]
    group, _, version = gv.rpartition('/')
    group = '' if group == 'core' else group
    if tags == ['none']:
        return None
    given = {}
    for tag in tags:
        key, _, value = tag.partition('=')
        if key not in ('introduced', 'deprecated', 'removed', 'replacement') or key in given:
            sys.exit(f'{LIFECYCLE}: {where}: bad tag {tag!r}')
        given[key] = value
    if 'introduced' not in given:
        sys.exit(f'{LIFECYCLE}: {where}: no introduced release')
    prerelease = VERSION_RE.match(version).group(2) is not None
    entry = {'group': group, 'version': version, 'kind': kind,
             'introduced': parse_release(given['introduced'], where),
             'deprecated': None, 'removed': None, 'replacement': None}
    if 'deprecated' in given:
        entry['deprecated'] = parse_release(given['deprecated'], where)
    elif prerelease:
        entry['deprecated'] = plus_three(entry['introduced'])
    if 'removed' in given:
        entry['removed'] = parse_release(given['removed'], where)
    elif prerelease:
        entry['removed'] = plus_three(entry['deprecated'])
    if 'replacement' in given:
        parts = given['replacement'].split(',')
        if len(parts) != 3:
            sys.exit(f'{LIFECYCLE}: {where}: bad replacement')
        entry['replacement'] = dict(zip(('group', 'version', 'kind'), parts))
    return (group, version, kind), entry


def build_lifecycle(resources):
    """The lifecycle table for the served kinds; every prerelease kind must be listed."""
    served = {(r['group'], r['version'], r['kind']) for r in resources}
    listed, entries = set(), []
    with open(LIFECYCLE, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith('#'):
                continue
            where = f'line {n}'
            if len(fields) < 3:
                sys.exit(f'{LIFECYCLE}: {where}: too few fields')
            gv, kind = fields[0], fields[1]
            group, _, version = gv.rpartition('/')
            key = ('' if group == 'core' else group, version, kind)
            if key not in served or key in listed:
                sys.exit(f'{LIFECYCLE}: {where}: {gv} {kind} not served or listed twice')
            listed.add(key)
            found = lifecycle_entry(fields, where)
            if found is not None:
                entries.append(found)
    for key in sorted(served - listed):
        if VERSION_RE.match(key[1]).group(2) is not None:
            sys.exit(f'{LIFECYCLE}: no line for {key[0]}/{key[1]} {key[2]}')
    return [e for _, e in sorted(entries, key=lambda x: x[0])]


def main(argv):
    source = argv[1] if len(argv) > 1 else DEFAULT_INPUT
    output = argv[2] if len(argv) > 2 else DEFAULT_OUTPUT
    with open(source, encoding='utf-8') as f:
        doc = json.load(f)
    defs_by_gvk = gvk_index(doc['definitions'])
    resources = build_resources(doc['paths'], defs_by_gvk)
    catalog = {
        'groups': build_groups(resources),
        'resources': resources,
        'lifecycle': build_lifecycle(resources),
        'definitions': build_definitions(doc['definitions'], definition_roots(resources)),
    }
    protobuf = build_protobuf(catalog['definitions'])
    if protobuf is not None:
        catalog['protobuf'] = protobuf
    text = json.dumps(catalog, sort_keys=True, separators=(',', ':'), ensure_ascii=True)
    with open(output, 'w', encoding='utf-8') as f:
        f.write(text + '\n')
    print(f'{output}: {len(text) + 1} bytes, {len(resources)} resources, '
          f'{len(catalog["groups"])} groups, {len(catalog["definitions"])} definitions')


if __name__ == '__main__':
    main(sys.argv)
