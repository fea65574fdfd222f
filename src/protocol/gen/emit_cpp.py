"""C++ emitter for one message (request, response or header) of a Mirra .msg definition.

Every struct gets read(Reader&, version), write(Writer&, version) and size(version); top-level
messages add decode()/encode() with the version check. The code follows the encodings in
src/protocol/wire.h; see src/protocol/messages/README.md for the rules it implements.
"""

from msgdef import PRIMITIVES, DefError, INF


class Ctx:
    """What the emitter needs to know about the message a struct belongs to."""

    def __init__(self, msg):
        self.msg = msg

    def cond(self, vers):
        """A C++ condition for 'version is in vers', or None when always true here."""
        if vers is None:
            return "false"
        lo, hi = vers
        mlo, mhi = self.msg.versions
        parts = []
        if lo > mlo:
            parts.append(f"version >= {lo}")
        if hi < mhi and hi != INF:
            parts.append(f"version <= {hi}")
        if lo > mhi or hi < mlo:
            return "false"
        return " && ".join(parts) or None

    def always(self, vers):
        return self.cond(vers) is None


def _and(*conds):
    conds = [c for c in conds if c]
    if not conds:
        return None
    return " && ".join(f"({c})" if "&&" in c or "||" in c else c for c in conds)


def base_type(f):
    e = f.elem
    if e in PRIMITIVES:
        return PRIMITIVES[e][0]
    return {"string": "std::string", "bytes": "Bytes", "records": "RecordsView"}.get(e, e)


def cpp_type(f):
    t = base_type(f)
    if f.is_array:
        t = f"std::vector<{t}>"
    if f.nullable is not None:
        t = f"std::optional<{t}>"
    return t


def is_null_default(f):
    """Nullable fields start as null when the definition says so; records and structs always."""
    return f.default == "null" or (f.default is None and (f.elem == "records" or
                                                          (f.elem_is_struct and not f.is_array)))


def default_init(f):
    """The member initializer (with its leading ' = '), following Kafka's default rules."""
    d = f.default
    if f.nullable is not None:
        if is_null_default(f):
            return ""
        if f.is_array:
            return f" = std::vector<{base_type(f)}>{{}}"
        if f.elem == "string":
            return f" = std::string({d})" if d else " = std::string()"
        if f.elem == "bytes":
            return " = Bytes()"
        return ""
    if f.is_array or f.elem_is_struct or f.elem in ("bytes", "records", "uuid"):
        return ""
    if f.elem == "string":
        return f" = {d}" if d else ""
    if f.elem == "bool":
        return f" = {d}" if d else " = false"
    if f.elem == "float64":
        return f" = {d}" if d else " = 0.0"
    if d is None:
        return " = 0"
    return f" = static_cast<{base_type(f)}>({d})"


def differs_from_default(f, x):
    """C++ expression: does x differ from the field's default (tagged fields are written then)."""
    if f.nullable is not None:
        if is_null_default(f):
            return f"{x}.has_value()"
        if f.is_array:
            return f"(!{x}.has_value() || !{x}->empty())"
        if f.elem == "string" and f.default:
            return f"(!{x}.has_value() || *{x} != std::string({f.default}))"
        return f"(!{x}.has_value() || *{x} != {base_type(f)}{{}})"
    if f.is_array:
        return f"!{x}.empty()"
    if f.elem_is_struct or f.elem in ("bytes", "uuid"):
        return f"{x} != {base_type(f)}{{}}"
    if f.elem == "records":
        return f"{x}.size != 0"
    init = default_init(f)
    return f"{x} != ({init[3:] if init else base_type(f) + '{}'})"


def flex_expr(f):
    return "false" if f.classic else "flex"


def min_elem_size(f):
    e = f.elem
    if e in PRIMITIVES:
        return str(PRIMITIVES[e][1])
    if e == "string":
        return "(flex ? 1 : 2)"
    if e in ("bytes", "records"):
        return "(flex ? 1 : 4)"
    return "1"


# ---- read ---------------------------------------------------------------------------------

def read_elem(f, rd):
    """One array element appended to `vec`."""
    e = f.elem
    if e in PRIMITIVES:
        return f"vec.push_back({rd}.read_{e}());"
    if e in ("string", "bytes", "records"):
        return f"{rd}.read_{e}({flex_expr(f)}, vec.emplace_back());"
    return f"vec.emplace_back().read({rd}, version);"


def read_value(f, target, rd):
    e, fx = f.elem, flex_expr(f)
    if e in PRIMITIVES:
        return [f"{target} = {rd}.read_{e}();"]
    if e in ("string", "bytes", "records"):
        return [f"{rd}.read_{e}({fx}, {target});"]
    return [f"{target}.read({rd}, version);"]


def read_field(ctx, f, x, rd):
    fx = flex_expr(f)
    nullc = ctx.cond(f.nullable) if f.nullable is not None else "false"
    if f.is_array:
        vec = f"{x}.emplace()" if f.nullable is not None else x
        lines = [f"const int32_t n = {rd}.read_array_length({fx}, {min_elem_size(f)});",
                 "if (n < 0) {"]
        if f.nullable is None or nullc == "false":
            lines.append(f"  {rd}.fail(\"null where an array is required\");")
        elif nullc is None:
            lines.append(f"  {x}.reset();")
        else:
            lines += [f"  if ({nullc}) {x}.reset();",
                      f"  else {rd}.fail(\"null where an array is required\");"]
        lines += ["} else {", f"  auto& vec = {vec};", "  vec.clear();", "  vec.reserve(n);",
                  f"  for (int32_t i = 0; i < n && !{rd}.failed(); ++i) {{",
                  "    " + read_elem(f, rd), "  }", "}"]
        return ["{"] + ["  " + l for l in lines] + ["}"]
    if f.nullable is None or nullc == "false":
        if f.nullable is not None:
            return [f"{x}.emplace();"] + read_value(f, f"*{x}", rd)
        return read_value(f, x, rd)
    if f.elem_is_struct:
        present = f"if ({rd}.read_struct_present()) {x}.emplace().read({rd}, version); else {x}.reset();"
    else:
        present = (f"if (!{rd}.read_nullable_{f.elem}({fx}, {x}.emplace())) {x}.reset();")
    if nullc is None:
        return [present]
    return [f"if ({nullc}) {{", "  " + present, "} else {",
            *["  " + l for l in [f"{x}.emplace();"] + read_value(f, f"*{x}", rd)], "}"]


# ---- write --------------------------------------------------------------------------------

def write_value(f, x):
    e, fx = f.elem, flex_expr(f)
    if e in PRIMITIVES:
        return [f"w.write_{e}({x});"]
    if e in ("string", "bytes", "records"):
        return [f"w.write_{e}({fx}, {x});"]
    return [f"{x}.write(w, version);"]


def write_field(ctx, f, x):
    fx = flex_expr(f)
    nullc = ctx.cond(f.nullable) if f.nullable is not None else "false"
    val = f"value_or_empty({x})" if f.nullable is not None else x
    if f.is_array:
        body = [f"const auto& vec = {val};",
                f"w.write_array_length({fx}, static_cast<int32_t>(vec.size()));",
                "for (const auto& e : vec) {", *["  " + l for l in write_value(f, "e")], "}"]
        if f.nullable is None or nullc == "false":
            return ["{"] + ["  " + l for l in body] + ["}"]
        guard = _and(nullc, f"!{x}.has_value()")
        return [f"if ({guard}) {{", f"  w.write_array_length({fx}, -1);", "} else {",
                *["  " + l for l in body], "}"]
    if f.nullable is None or nullc == "false":
        return write_value(f, val)
    if f.elem_is_struct:
        nullable_write = [f"w.write_struct_present({x}.has_value());",
                          f"if ({x}) {x}->write(w, version);"]
    else:
        nullable_write = [f"w.write_nullable_{f.elem}({fx}, {x});"]
    if nullc is None:
        return nullable_write
    return [f"if ({nullc}) {{", *["  " + l for l in nullable_write], "} else {",
            *["  " + l for l in write_value(f, val)], "}"]


# ---- size ---------------------------------------------------------------------------------

def size_value(f, x):
    e, fx = f.elem, flex_expr(f)
    if e in PRIMITIVES:
        return str(PRIMITIVES[e][1])
    if e == "string":
        return f"string_size({fx}, {x})"
    if e == "bytes":
        return f"bytes_size({fx}, {x}.size())"
    if e == "records":
        return f"bytes_size({fx}, {x}.size)"
    return f"{x}.size(version)"


def size_field(ctx, f, x, n):
    fx = flex_expr(f)
    nullc = ctx.cond(f.nullable) if f.nullable is not None else "false"
    val = f"value_or_empty({x})" if f.nullable is not None else x
    if f.is_array:
        if f.elem in PRIMITIVES:
            body = [f"{n} += array_length_size({fx}, {val}.size()) + {val}.size() * {size_value(f, '')};"]
        else:
            body = [f"const auto& vec = {val};", f"{n} += array_length_size({fx}, vec.size());",
                    f"for (const auto& e : vec) {n} += {size_value(f, 'e')};"]
        if f.nullable is None or nullc == "false":
            return ["{"] + ["  " + l for l in body] + ["}"]
        guard = _and(nullc, f"!{x}.has_value()")
        return [f"if ({guard}) {{", f"  {n} += array_length_size({fx}, 0);", "} else {",
                *["  " + l for l in body], "}"]
    if f.nullable is None or nullc == "false":
        return [f"{n} += {size_value(f, val)};"]
    if f.elem_is_struct:
        nullable_size = f"{n} += 1 + ({x} ? {x}->size(version) : 0);"
    else:
        nullable_size = f"{n} += nullable_{f.elem}_size({fx}, {x});"
    if nullc is None:
        return [nullable_size]
    return [f"if ({nullc}) {{", "  " + nullable_size, "} else {",
            f"  {n} += {size_value(f, val)};", "}"]


# ---- structs ------------------------------------------------------------------------------

def collect_structs(msg):
    """Struct definitions in dependency order: [(name, fields)], checking name clashes."""
    order, seen = [], {}

    def visit(name, fields):
        for f in fields:
            if f.elem_is_struct:
                if f.children:
                    visit(f.elem, f.children)
                elif f.elem in msg.common:
                    visit(f.elem, msg.common[f.elem])
                else:
                    raise DefError(f"{msg.name}: line {f.line}: unknown struct {f.elem}")
        if name in seen:
            if _shape(seen[name]) != _shape(fields):
                raise DefError(f"{msg.name}: struct {name} defined twice differently")
            return
        seen[name] = fields
        order.append((name, fields))

    for name, fields in msg.common.items():
        visit(name, fields)
    for f in msg.fields:
        if f.elem_is_struct and f.children:
            visit(f.elem, f.children)
    return order


def _shape(fields):
    return [(f.name, f.type, f.versions, f.nullable, f.tag, _shape(f.children)) for f in fields]


def optional_structs(msg):
    """Names of structs held in std::optional fields. clang cannot use a nested struct's default
    member initializers before the enclosing struct is complete, so std::optional<Nested> would
    see it as not default-constructible; these get a user-provided constructor instead."""
    names = set()

    def visit(fields):
        for f in fields:
            if f.elem_is_struct and not f.is_array and f.nullable is not None:
                names.add(f.elem)
            visit(f.children)

    visit(msg.fields)
    for fields in msg.common.values():
        visit(fields)
    return names


def struct_decl(name, fields, indent, top=None, own_constructor=False):
    pad = " " * indent
    out = [f"{pad}struct {name} {{"]
    if own_constructor:
        out.append(f"{pad}  {name}();")
    if top:
        out += [f"{pad}  {l}" if l else "" for l in top]
    for f in fields:
        out.append(f"{pad}  {cpp_type(f)} {f.cpp_name}{default_init(f)};")
    out += [f"{pad}  UnknownTags unknown_tags;", "",
            f"{pad}  void read(Reader& r, int16_t version);",
            f"{pad}  void write(Writer& w, int16_t version) const;",
            f"{pad}  size_t size(int16_t version) const;",
            f"{pad}  bool operator==(const {name}&) const = default;"]
    return out


def _flex_line(ctx):
    # (void)version: single-version messages never look at it.
    if ctx.msg.flexible is None:
        return "(void)version;\n  [[maybe_unused]] constexpr bool flex = false;"
    return f"(void)version;\n  [[maybe_unused]] const bool flex = version >= {ctx.msg.flexible[0]};"


def _body_cond(ctx, f):
    if f.tag is None:
        return ctx.cond(f.versions)
    # A tagged field is in the body only in versions where it exists but is not tagged.
    untagged = _and(ctx.cond(f.versions), f"!({ctx.cond(f.tag_versions) or 'true'})")
    return untagged if f.tag_versions != f.versions else "false"


def _wrap(cond, lines):
    if cond == "false":
        return []
    if cond is None:
        return lines
    return [f"if ({cond}) {{"] + ["  " + l for l in lines] + ["}"]


def struct_defs(ctx, qual, fields):
    tagged = sorted([f for f in fields if f.tag is not None], key=lambda f: f.tag)
    out = []
    # read
    out += [f"void {qual}::read(Reader& r, int16_t version) {{", "  " + _flex_line(ctx)]
    for f in fields:
        out += ["  " + l for l in _wrap(_body_cond(ctx, f), read_field(ctx, f, f.cpp_name, "r"))]
    out += ["  if (flex) {", "    const uint32_t ntags = r.read_uvarint();",
            "    for (uint32_t i = 0; i < ntags && !r.failed(); ++i) {",
            "      const uint32_t tag = r.read_uvarint();",
            "      const uint32_t len = r.read_uvarint();",
            "      Reader sub = r.sub_reader(len);",
            "      if (r.failed()) break;"]
    if tagged:
        out.append("      switch (tag) {")
        for f in tagged:
            c = ctx.cond(f.tag_versions)
            body = read_field(ctx, f, f.cpp_name, "sub") + [
                "if (sub.failed()) r.fail(\"malformed tagged field\");"]
            out.append(f"        case {f.tag}:")
            if c is None:
                out += ["          " + l for l in body]
            else:
                out += [f"          if ({c}) {{", *["            " + l for l in body],
                        "          } else {",
                        "            r.read_unknown_tag(tag, sub, unknown_tags);", "          }"]
            out.append("          break;")
        out += ["        default:", "          r.read_unknown_tag(tag, sub, unknown_tags);",
                "      }"]
    else:
        out.append("      r.read_unknown_tag(tag, sub, unknown_tags);")
    out += ["    }", "  }", "}", ""]
    # write
    out += [f"void {qual}::write(Writer& w, int16_t version) const {{", "  " + _flex_line(ctx)]
    for f in fields:
        out += ["  " + l for l in _wrap(_body_cond(ctx, f), write_field(ctx, f, f.cpp_name))]
    out += ["  if (flex) {", "    uint32_t ntags = static_cast<uint32_t>(unknown_tags.size());"]
    for f in tagged:
        c = _and(ctx.cond(f.tag_versions), differs_from_default(f, f.cpp_name))
        out += [f"    const bool has_tag{f.tag} = {c};", f"    ntags += has_tag{f.tag} ? 1 : 0;"]
    out += ["    w.write_uvarint(ntags);", "    size_t next_unknown = 0;"]
    for f in tagged:
        out += [f"    if (has_tag{f.tag}) {{", "      size_t t = 0;"]
        out += ["      " + l for l in size_field(ctx, f, f.cpp_name, "t")]
        out += [f"      w.write_unknown_tags_below(unknown_tags, next_unknown, {f.tag});",
                f"      w.write_uvarint({f.tag});", "      w.write_uvarint(static_cast<uint32_t>(t));"]
        out += ["      " + l for l in write_field(ctx, f, f.cpp_name)]
        out += ["    }"]
    out += ["    w.write_unknown_tags_below(unknown_tags, next_unknown, UINT32_MAX);", "  }", "}", ""]
    # size
    out += [f"size_t {qual}::size(int16_t version) const {{", "  " + _flex_line(ctx), "  size_t n = 0;"]
    for f in fields:
        out += ["  " + l for l in _wrap(_body_cond(ctx, f), size_field(ctx, f, f.cpp_name, "n"))]
    out += ["  if (flex) {", "    size_t ntags = unknown_tags.size();"]
    for f in tagged:
        c = _and(ctx.cond(f.tag_versions), differs_from_default(f, f.cpp_name))
        out += [f"    if ({c}) {{", "      size_t t = 0;"]
        out += ["      " + l for l in size_field(ctx, f, f.cpp_name, "t")]
        out += [f"      n += uvarint_size({f.tag}) + uvarint_size(static_cast<uint32_t>(t)) + t;",
                "      ++ntags;", "    }"]
    out += ["    n += uvarint_size(static_cast<uint32_t>(ntags)) + unknown_tags_size(unknown_tags);",
            "  }", "  return n;", "}", ""]
    return out
