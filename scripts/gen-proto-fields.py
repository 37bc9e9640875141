#!/usr/bin/env python3
"""Derive gateway/catalog/proto-fields.json: the protobuf field facts of every catalog definition.

Usage: scripts/gen-proto-fields.py FACTS_DIR [CATALOG_JSON] [OUTPUT]
  FACTS_DIR     one file per Go API package, named by its OpenAPI prefix
                ("io.k8s.api.core.v1"), holding the facts read off the package's public API types
                (each field's `protobuf` tag number and its `json` tag)
  CATALOG_JSON  default gateway/catalog/catalog.json: which definitions and properties exist
  OUTPUT        default gateway/catalog/proto-fields.json

Kubernetes' protobuf wire form numbers every field of every Go API struct; field numbers are
never reused, so facts from a newer release describe an older one too (unknown names are
dropped). scripts/gen-catalog.py merges the output into catalog.json.

Fact file syntax: one struct per line (a struct may span several lines; they add up):
    TypeName field=N[flags] ... ^goField=N:InlineType ...
  field      the JSON name of the field
  N          its protobuf field number
  flags      *  the Go field is a pointer (a present zero value is kept; an absent one is omitted)
             !  the json tag has no omitempty (an absent value still appears in JSON)
             w  a list the wire form wraps in a message whose field 1 repeats (metav1.Verbs)
  ^goField=N:InlineType
             a struct embedded with `json:",inline"`: its fields appear in this object's JSON but
             travel inside a nested message numbered N (core/v1 Volume's VolumeSource); inline
             structs may nest (admissionregistration's NamedRuleWithOperations)

Output shape: {definition: [[property, N, ..., flags], ...]} sorted by property, where the
numbers are the path of message field numbers from the definition's own message (one number, or
the inline fields' numbers then the field's), and flags is a string of "p" (pointer), "r" (no
omitempty) and "w" (wrapped list). Property names are values, never keys, so that names such as
"description" do not read as prose. The output is sorted and byte-for-byte reproducible.

The script prints what it could not map (properties without facts) to stderr and exits 1 when
any definition that travels as protobuf lacks a fact.
"""
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CATALOG = os.path.join(REPO, 'gateway', 'catalog', 'catalog.json')
DEFAULT_OUTPUT = os.path.join(REPO, 'gateway', 'catalog', 'proto-fields.json')

FIELD_RE = re.compile(r'^([A-Za-z0-9_$.-]+)=(\d+)([*!w]*)$')
INLINE_RE = re.compile(r'^\^([A-Za-z0-9_]+)=(\d+):([A-Za-z0-9_]+)$')
FLAG_LETTERS = {'*': 'p', '!': 'r', 'w': 'w'}

# Definitions without a message of their own: their JSON form is special (gen-catalog.py's
# PROTO_TYPES say how they travel), or they never travel as protobuf.
NOT_MESSAGES = {
    'io.k8s.apimachinery.pkg.version.Info',
}


def parse_facts_file(path):
    """{type: {'fields': {json: (n, flags)}, 'inline': [(n, type)]}} from one fact file."""
    types = {}
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith('#'):
                continue
            entry = types.setdefault(words[0], {'fields': {}, 'inline': []})
            for word in words[1:]:
                parse_word(entry, word, f'{path}:{lineno}')
    return types


def parse_word(entry, word, where):
    m = INLINE_RE.match(word)
    if m:
        entry['inline'].append((int(m.group(2)), m.group(3)))
        return
    m = FIELD_RE.match(word)
    if not m:
        raise ValueError(f'{where}: cannot read {word!r}')
    name, number = m.group(1), int(m.group(2))
    if name in entry['fields'] and entry['fields'][name][0] != number:
        raise ValueError(f'{where}: {name} numbered twice')
    flags = ''.join(sorted(FLAG_LETTERS[c] for c in m.group(3)))
    entry['fields'][name] = (number, flags)


def load_facts(facts_dir):
    """{package prefix: types} for every fact file."""
    return {name: parse_facts_file(os.path.join(facts_dir, name))
            for name in sorted(os.listdir(facts_dir))}


def message_fields(types, type_name, where, depth=0):
    """{json: [path..., flags]} of a struct, inline structs flattened behind their numbers."""
    entry = types.get(type_name)
    if entry is None or depth > 4:
        return None
    out = {name: [n, flags] for name, (n, flags) in entry['fields'].items()}
    for number, inline_type in entry['inline']:
        inner = message_fields(types, inline_type, where, depth + 1)
        if inner is None:
            raise ValueError(f'{where}: inline {inline_type} unknown')
        for name, path in inner.items():
            out[name] = [number] + path
    return out


def is_kind(schema):
    return bool(schema.get('x-kubernetes-group-version-kind'))


def definition_facts(name, schema, facts, missing):
    """The facts of one definition's properties, recording properties without any."""
    prefix, type_name = name.rsplit('.', 1)
    fields = message_fields(facts.get(prefix, {}), type_name, name)
    props = schema.get('properties', {})
    if fields is None:
        missing.extend(f'{name}.{p}' for p in sorted(props) if not type_meta(schema, p))
        return None
    out = {}
    for prop in sorted(props):
        if prop in fields:
            out[prop] = fields[prop]
        elif not type_meta(schema, prop):
            missing.append(f'{name}.{prop}')
    check_numbers(name, out)
    return out


def check_numbers(name, fields):
    """Two properties on one field number would be a transcription slip: stop."""
    seen = {}
    for prop, path in fields.items():
        key = tuple(path[:-1])
        if key in seen:
            raise ValueError(f'{name}: {prop} and {seen[key]} share field {key}')
        seen[key] = prop
    groups = {tuple(path[:i]) for path in fields.values() for i in range(1, len(path) - 1)}
    for key in groups & set(seen):
        raise ValueError(f'{name}: {seen[key]} shares field {key} with an inline struct')


def type_meta(schema, prop):
    """apiVersion and kind of a kind travel in the envelope, not in the message."""
    return prop in ('apiVersion', 'kind') and is_kind(schema)


def build(facts, definitions):
    out, missing = {}, []
    for name in sorted(definitions):
        schema = definitions[name]
        if 'x-kgate-type' in schema or name in NOT_MESSAGES or schema.get('type') != 'object':
            continue
        if 'properties' not in schema and 'additionalProperties' not in schema:
            out[name] = {}  # an empty struct: an empty message
            continue
        got = definition_facts(name, schema, facts, missing)
        if got is not None:
            out[name] = got
    return out, missing


def as_rows(facts):
    """{property: path} as [[property, path...], ...] in property order."""
    return [[prop] + facts[prop] for prop in sorted(facts)]


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    catalog_path = argv[2] if len(argv) > 2 else DEFAULT_CATALOG
    output = argv[3] if len(argv) > 3 else DEFAULT_OUTPUT
    with open(catalog_path, encoding='utf-8') as f:
        definitions = json.load(f)['definitions']
    out, missing = build(load_facts(argv[1]), definitions)
    for m in missing:
        print(f'no protobuf facts: {m}', file=sys.stderr)
    rows = {name: as_rows(facts) for name, facts in out.items()}
    text = json.dumps(rows, sort_keys=True, separators=(',', ':'), ensure_ascii=True)
    with open(output, 'w', encoding='utf-8') as f:
        f.write(text + '\n')
    fields = sum(len(v) for v in out.values())
    print(f'{output}: {len(out)} definitions, {fields} fields, {len(missing)} without facts')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
