"""The operations of docs/openapi.yaml, with their parameters, bodies and credentials."""
import pathlib

from . import yaml_subset


class Parameter:
    def __init__(self, name, location, schema, required, example):
        self.name, self.location, self.schema, self.required, self.example = name, location, schema, required, example


class Operation:
    """One method on one path, with `$ref`s resolved."""

    def __init__(self, method, path, parameters, bodies, security):
        self.method, self.path = method, path
        self.parameters = parameters
        #: media type -> (schema, [example values])
        self.bodies = bodies
        #: names of the security schemes that each work alone ([] = none needed)
        self.security = security

    @property
    def name(self):
        return f"{self.method} {self.path}"

    def path_parameters(self):
        return [p for p in self.parameters if p.location == "path"]

    def query_parameters(self):
        return [p for p in self.parameters if p.location == "query"]

    def header_parameters(self):
        return [p for p in self.parameters if p.location == "header"]


class Spec:
    def __init__(self, document):
        self.document = document
        self.operations = []
        default_security = document.get("security") or []
        for path, item in (document.get("paths") or {}).items():
            shared = [self.resolve(p) for p in item.get("parameters") or []]
            for method, op in item.items():
                if method not in ("get", "put", "post", "delete", "patch", "head", "options"):
                    continue
                own = [self.resolve(p) for p in op.get("parameters") or []]
                names = {(p["name"], p["in"]) for p in own}
                parameters = [self.parameter(p) for p in own + [p for p in shared if (p["name"], p["in"]) not in names]]
                bodies = {}
                body = self.resolve(op.get("requestBody") or {})
                for media, content in (body.get("content") or {}).items():
                    examples = []
                    if "example" in content:
                        examples.append(content["example"])
                    for example in (content.get("examples") or {}).values():
                        example = self.resolve(example)
                        if "value" in example:
                            examples.append(example["value"])
                    bodies[media] = (self.resolve(content.get("schema") or {}), examples)
                security = op.get("security", default_security)
                schemes = sorted({name for requirement in security for name in requirement}) if security else []
                if security and any(not requirement for requirement in security):
                    schemes.append("")  # anonymous also allowed
                self.operations.append(Operation(method.upper(), path, parameters, bodies, schemes))

    def parameter(self, p):
        schema = self.resolve(p.get("schema") or {})
        return Parameter(p["name"], p["in"], schema, bool(p.get("required")), p.get("example", schema.get("example")))

    def resolve(self, node, depth=0):
        """`node` with a top-level `$ref` followed (recursively, to a bounded depth)."""
        while isinstance(node, dict) and "$ref" in node and depth < 32:
            target = self.document
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node, depth = target, depth + 1
        return node

    def schema(self, node):
        """`node` resolved, with `allOf` merged (enough for generating values)."""
        node = self.resolve(node)
        if isinstance(node, dict) and "allOf" in node:
            merged = {k: v for k, v in node.items() if k != "allOf"}
            for part in node["allOf"]:
                part = self.schema(part)
                for key, value in part.items():
                    if key == "properties":
                        merged.setdefault("properties", {}).update(value)
                    elif key == "required":
                        merged["required"] = list(merged.get("required", [])) + list(value)
                    else:
                        merged.setdefault(key, value)
            return merged
        return node


def load(path):
    return Spec(yaml_subset.load(pathlib.Path(path).read_text()))
