"""Name, label and selector checks shared by the manifest loaders.

These mirror apimachinery's util/validation (IsQualifiedName, IsValidLabelValue, IsDNS1123Label,
IsDNS1123Subdomain, IsDNS1035Label) so a scenario the apiserver would reject is rejected here with
the same explanation. Each check returns an error string or None, and is cached because the same
label keys and values repeat across thousands of nodes.
"""

from __future__ import annotations

import re
from functools import lru_cache

_QNAME_CHAR = r"[A-Za-z0-9]"
_QNAME_EXT = r"[-A-Za-z0-9_.]"
_QUALIFIED_NAME_RE = re.compile(rf"^({_QNAME_CHAR}{_QNAME_EXT}*)?{_QNAME_CHAR}$")
_LABEL_VALUE_RE = re.compile(rf"^(({_QNAME_CHAR}{_QNAME_EXT}*)?{_QNAME_CHAR})?$")
_DNS1123_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN_RE = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)
_DNS1035_LABEL_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

_QNAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@lru_cache(maxsize=8192)
def qualified_name_error(value: str) -> str | None:
    """IsQualifiedName: optional DNS-subdomain prefix and '/', then a name of at most 63 chars."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        err = dns1123_subdomain_error(prefix)
        if err:
            return "prefix part " + err
    else:
        return (
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character with an optional DNS subdomain prefix "
            "and '/' (e.g. 'example.com/MyName')"
        )
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _QUALIFIED_NAME_RE.match(name):
        return _QNAME_MSG
    return None


@lru_cache(maxsize=8192)
def label_value_error(value: str) -> str | None:
    """IsValidLabelValue: empty, or at most 63 alphanumerics with '-', '_', '.' inside."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _LABEL_VALUE_RE.match(value):
        return (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character"
        )
    return None


@lru_cache(maxsize=8192)
def dns1123_label_error(value: str) -> str | None:
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _DNS1123_LABEL_RE.match(value):
        return (
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
            "'-', and must start and end with an alphanumeric character"
        )
    return None


@lru_cache(maxsize=8192)
def dns1123_subdomain_error(value: str) -> str | None:
    if len(value) > 253:
        return "must be no more than 253 characters"
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        return (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character"
        )
    return None


@lru_cache(maxsize=1024)
def dns1035_label_error(value: str) -> str | None:
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _DNS1035_LABEL_RE.match(value):
        return (
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            "with an alphabetic character, and end with an alphanumeric character"
        )
    return None
