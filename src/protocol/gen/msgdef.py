"""Parser for Mirra's message definition files (src/protocol/messages/*.msg).

The format is described in src/protocol/messages/README.md. In short:

    api <key> <Name> versions <lo>-<hi> flexible <V>+|none
    request <Name>
      <Field> <type> <versions> [null=<versions>] [tag=<n>[@<versions>]] [flex=none] [default=<v>]
        <child fields, indented two more, for struct and []struct types>
      struct <CommonName> <versions>
        <fields of a struct shared by several fields of this message>
    response <Name>
      ...
    header <Name> versions <lo>-<hi> flexible <V>+

Versions are "N+", "A-B", "N" or "none".
"""

import re

PRIMITIVES = {
    "int8": ("int8_t", 1), "int16": ("int16_t", 2), "int32": ("int32_t", 4),
    "int64": ("int64_t", 8), "uint16": ("uint16_t", 2), "uint32": ("uint32_t", 4),
    "float64": ("double", 8), "bool": ("bool", 1), "uuid": ("Uuid", 16),
}
VARIABLE = ("string", "bytes", "records")
INF = 1 << 15


class DefError(Exception):
    pass


def parse_versions(text):
    if text == "none":
        return None
    if text.endswith("+"):
        return (int(text[:-1]), INF)
    if "-" in text:
        lo, hi = text.split("-")
        return (int(lo), int(hi))
    return (int(text), int(text))


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class Field:
    def __init__(self, name, type_, versions, line):
        self.name = name
        self.type = type_            # as written: "int32", "[]Topic", "Topic", "string", ...
        self.versions = versions
        self.nullable = None         # versions in which null is allowed
        self.tag = None
        self.tag_versions = None
        self.classic = False         # flex=none: classic encoding even in flexible versions
        self.default = None          # text as written
        self.children = []
        self.line = line

    @property
    def cpp_name(self):
        return snake(self.name)

    @property
    def is_array(self):
        return self.type.startswith("[]")

    @property
    def elem(self):
        return self.type[2:] if self.is_array else self.type

    @property
    def elem_is_struct(self):
        return self.elem not in PRIMITIVES and self.elem not in VARIABLE


class Message:
    def __init__(self, kind, name, versions, flexible):
        self.kind = kind              # request / response / header
        self.name = name
        self.versions = versions
        self.flexible = flexible      # (lo, INF) or None
        self.fields = []
        self.common = {}              # name -> list of fields


class Api:
    def __init__(self, key, name, versions, flexible):
        self.key = key
        self.name = name
        self.versions = versions
        self.flexible = flexible
        self.messages = []


def _parse_field(text, lineno):
    parts = text.split()
    if len(parts) < 3:
        raise DefError(f"line {lineno}: a field needs a name, a type and versions")
    f = Field(parts[0], parts[1], parse_versions(parts[2]), lineno)
    for attr in parts[3:]:
        key, _, value = attr.partition("=")
        if key == "null":
            f.nullable = parse_versions(value)
        elif key == "tag":
            tag, _, vers = value.partition("@")
            f.tag = int(tag)
            f.tag_versions = parse_versions(vers) if vers else f.versions
        elif key == "flex" and value == "none":
            f.classic = True
        elif key == "default":
            f.default = value
        else:
            raise DefError(f"line {lineno}: unknown attribute {attr!r}")
    return f


def parse(text, path="<msg>"):
    """Returns (list of Api, list of header Messages) from one .msg file."""
    apis, headers = [], []
    api = None
    msg = None
    stack = []  # (indent, children list)
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        words = line.split()
        try:
            if indent == 0:
                if words[0] == "api":
                    _, key, name, _, vers, _, flex = words
                    api = Api(int(key), name, parse_versions(vers), parse_versions(flex))
                    apis.append(api)
                elif words[0] in ("request", "response"):
                    if api is None:
                        raise DefError(f"line {lineno}: {words[0]} before api")
                    msg = Message(words[0], words[1], api.versions, api.flexible)
                    api.messages.append(msg)
                    stack = [(2, msg.fields)]
                elif words[0] == "header":
                    _, name, _, vers, _, flex = words
                    msg = Message("header", name, parse_versions(vers), parse_versions(flex))
                    headers.append(msg)
                    stack = [(2, msg.fields)]
                else:
                    raise DefError(f"line {lineno}: unknown statement {words[0]!r}")
                continue
            if msg is None:
                raise DefError(f"line {lineno}: field outside a message")
            while stack and stack[-1][0] > indent:
                stack.pop()
            if not stack or stack[-1][0] != indent:
                raise DefError(f"line {lineno}: bad indentation")
            if words[0] == "struct" and indent == 2:
                fields = []
                msg.common[words[1]] = fields
                stack.append((4, fields))
                continue
            field = _parse_field(line.strip(), lineno)
            stack[-1][1].append(field)
            stack.append((indent + 2, field.children))
        except (ValueError, IndexError) as e:
            raise DefError(f"{path}: line {lineno}: cannot parse {raw.strip()!r} ({e})")
        except DefError as e:
            raise DefError(f"{path}: {e}")
    return apis, headers
