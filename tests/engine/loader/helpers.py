"""Small builders for loader tests."""

import textwrap

from scheduler_core.loader import load_scenario_text

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  capacity: {cpu: '4', memory: 8Gi}
"""


def load(*docs: str, source: str = "scenario.yaml"):
    text = "\n---\n".join(textwrap.dedent(d) for d in docs)
    return load_scenario_text(text, source=source)


def pod(spec: str = "", name: str = "p", meta: str = "") -> str:
    spec = textwrap.indent(textwrap.dedent(spec), "  ") if spec else ""
    return (
        "apiVersion: v1\nkind: Pod\n"
        f"metadata: {{name: {name}{', ' + meta if meta else ''}}}\n"
        "spec:\n"
        f"{spec}"
        "  containers:\n  - {name: app, image: pause}\n"
    )
