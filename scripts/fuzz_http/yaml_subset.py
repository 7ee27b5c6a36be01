"""A YAML reader for the subset docs/openapi.yaml uses (standard library only).

Block mappings and sequences, `|` / `>` block scalars, flow `{...}` / `[...]` collections,
single- and double-quoted scalars, plain scalars (also continued on more-indented lines), `#`
comments. No anchors, tags or multiple documents. `scripts/openapi-check.py` compares the
result with PyYAML's whenever PyYAML is installed, so a document outside the subset is noticed.
"""
import re

_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][-+]?[0-9]+)?$")


class YAMLError(ValueError):
    pass


def load(text):
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YAMLError(f"line {number}: tab in indentation")
        lines.append(raw)
    parser = _Block(lines)
    value = parser.node(0)
    parser.skip_blank()
    if parser.i < len(lines):
        raise YAMLError(f"line {parser.i + 1}: unexpected content")
    return value


def _strip_comment(text):
    """`text` without a trailing ` # comment` outside quotes."""
    quote = None
    for k, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (k == 0 or text[k - 1] in " [{,:"):
            quote = c
        elif c == "#" and (k == 0 or text[k - 1] == " "):
            return text[:k].rstrip()
    return text.rstrip()


def _scalar(text):
    if text in ("null", "~", ""):
        return None
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _split_key(content):
    """(key, rest) when `content` is `key: rest` (key plain or quoted), else None."""
    if content[:1] in "'\"":
        value, end = _quoted(content, 0)
        if content[end:end + 1] == ":" and (end + 1 == len(content) or content[end + 1] == " "):
            return value, content[end + 1:].strip()
        return None
    m = re.match(r"^([^\s#'\"{\[][^:#]*?|[^\s#'\"{\[][^#]*?[^\s]):(\s|$)", content)
    if not m:
        return None
    return m.group(1).strip(), content[m.end():].strip()


def _quoted(text, start):
    quote = text[start]
    k, out = start + 1, []
    while k < len(text):
        c = text[k]
        if quote == "'" and c == "'":
            if text[k + 1:k + 2] == "'":
                out.append("'")
                k += 2
                continue
            return "".join(out), k + 1
        if quote == '"' and c == "\\":
            esc = text[k + 1:k + 2]
            table = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", "r": "\r"}
            if esc == "u":
                out.append(chr(int(text[k + 2:k + 6], 16)))
                k += 6
                continue
            out.append(table.get(esc, esc))
            k += 2
            continue
        if quote == '"' and c == '"':
            return "".join(out), k + 1
        out.append(c)
        k += 1
    raise YAMLError(f"unterminated string: {text}")


def _flow(text):
    value, end = _flow_value(text, 0)
    if text[end:].strip():
        raise YAMLError(f"trailing text after flow value: {text}")
    return value


def _skip_spaces(text, k):
    """The index of the first non-space at or after `k`; the end of an unclosed flow is an error."""
    while k < len(text) and text[k] == " ":
        k += 1
    if k >= len(text):
        raise YAMLError(f"unterminated flow collection: {text}")
    return k


def _flow_value(text, k):
    k = _skip_spaces(text, k)
    if text[k] in "'\"":
        return _quoted(text, k)
    if text[k] in "[{":
        closer, out, k = ("]", [], k + 1) if text[k] == "[" else ("}", {}, k + 1)
        while True:
            k = _skip_spaces(text, k)
            if text[k] == closer:
                return out, k + 1
            item, k = _flow_value(text, k)
            if closer == "}":
                k = _skip_spaces(text, k)
                if text[k] in ",}":
                    value = None  # a key without a value, as in "{a: 1, b}"
                elif text[k] != ":":
                    raise YAMLError(f"expected ':' in {text}")
                else:
                    value, k = _flow_value(text, k + 1)
                out[item] = value
            else:
                out.append(item)
            k = _skip_spaces(text, k)
            if text[k] == ",":
                k += 1
    end = k
    while end < len(text) and text[end] not in ",]}" and not (text[end] == ":" and text[end + 1:end + 2] in (" ", "")):
        end += 1
    return _scalar(text[k:end].strip()), end


class _Block:
    def __init__(self, lines):
        self.lines, self.i = lines, 0

    def skip_blank(self):
        while self.i < len(self.lines) and _strip_comment(self.lines[self.i]).strip() == "":
            self.i += 1

    def indent_here(self):
        self.skip_blank()
        if self.i >= len(self.lines):
            return -1
        line = self.lines[self.i]
        return len(line) - len(line.lstrip(" "))

    def node(self, indent):
        """The block node starting at the next line whose indentation is ≥ `indent`."""
        here = self.indent_here()
        if here < indent:
            return None
        content = _strip_comment(self.lines[self.i]).strip()
        if content == "-" or content.startswith("- "):
            return self.sequence(here)
        return self.mapping(here)

    def sequence(self, indent):
        items = []
        while self.indent_here() == indent:
            content = _strip_comment(self.lines[self.i]).strip()
            if not (content == "-" or content.startswith("- ")):
                break
            rest = content[1:].strip()
            if not rest:
                self.i += 1
                items.append(self.node(indent + 1))
                continue
            # "- key: value" starts a mapping whose keys sit at the dash's indent + 2.
            offset = indent + (len(content) - len(rest))
            self.lines[self.i] = " " * offset + self.lines[self.i].lstrip(" ")[len(content) - len(rest):]
            if _split_key(rest) and rest[:1] not in "[{":
                items.append(self.mapping(offset))
            else:
                items.append(self.inline(rest, indent))
        return items

    def mapping(self, indent):
        result = {}
        while self.indent_here() == indent:
            content = _strip_comment(self.lines[self.i]).strip()
            pair = _split_key(content)
            if pair is None:
                if not result:
                    return self.inline(content, indent - 1)
                raise YAMLError(f"line {self.i + 1}: expected 'key: value'")
            key, rest = pair
            if key in result:
                raise YAMLError(f"line {self.i + 1}: duplicate key {key}")
            if rest == "":
                self.i += 1
                child = self.indent_here()
                if child > indent:
                    result[key] = self.node(child)
                elif child == indent and _strip_comment(self.lines[self.i]).strip().startswith("- "):
                    result[key] = self.sequence(child)
                else:
                    result[key] = None
            else:
                result[key] = self.inline(rest, indent)
        return result

    def inline(self, rest, indent):
        """A value after `key:` or `- ` on the current line (may continue on later lines)."""
        if rest[:1] in "|>":
            return self.block_scalar(rest, indent)
        self.i += 1
        if rest[:1] in "[{":
            return _flow(rest)
        if rest[:1] in "'\"":
            value, end = _quoted(rest, 0)
            if rest[end:].strip():
                raise YAMLError(f"line {self.i}: text after a quoted string")
            return value
        if ": " in rest or rest.endswith(":"):
            raise YAMLError(f"line {self.i}: ': ' inside a plain scalar (quote it): {rest[:60]}")
        parts = [rest]
        while self.i < len(self.lines):
            line = self.lines[self.i]
            stripped = _strip_comment(line).strip()
            if not stripped or len(line) - len(line.lstrip(" ")) <= indent:
                break
            parts.append(stripped)
            self.i += 1
        return _scalar(" ".join(parts)) if len(parts) > 1 else _scalar(rest)

    def block_scalar(self, header, indent):
        folded, chomp = header[0] == ">", header[1:2]
        self.i += 1
        body, block_indent = [], None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() == "":
                body.append("")
                self.i += 1
                continue
            here = len(line) - len(line.lstrip(" "))
            if block_indent is None:
                block_indent = here
            if here < block_indent or here <= indent:
                break
            body.append(line[block_indent:])
            self.i += 1
        while body and body[-1] == "":
            body.pop()
        text = ("\n".join(body) if not folded else _fold(body))
        if chomp == "-":
            return text
        return text + "\n" if body else ""


def _fold(lines):
    out, paragraph = [], []
    for line in lines:
        if line == "":
            out.append(" ".join(paragraph))
            paragraph = []
        else:
            paragraph.append(line)
    out.append(" ".join(paragraph))
    return "\n".join(out)
