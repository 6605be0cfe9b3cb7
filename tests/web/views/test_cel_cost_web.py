"""Issue 38's nested selector through the web: the API server's cost estimate refuses it at the
upload (400 naming document, kind and field), so no run of it ever reaches a worker."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.engine.dra.test_dra_cel_limits import CLASS, numbers
from tests.web.selectors.test_malformed_web import errors_of, snapshot

pytestmark = pytest.mark.django_db

NODE = """---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: '8', memory: 32Gi}}
"""


def test_the_n1000_nested_selector_is_refused_at_upload_with_the_api_servers_cost_message(client: Client) -> None:
    text = CLASS.replace("EXPR", f"[{numbers(1000)}].all(l, l.all(x, l.all(y, true)))") + NODE
    before = snapshot()
    response = client.post("/scenarios/", {"name": "n1000", "description": "", "seed": "0",
                                           "file": SimpleUploadedFile("n1000.yaml", text.encode())})
    assert response.status_code == 400
    errors = errors_of(response.content.decode())
    assert "document 1 (DeviceClass gpu.example.com): spec.selectors[0].cel.expression" in errors, errors[:600]
    assert "Forbidden: too complex, exceeds cost limit" in errors
    assert snapshot() == before
