"""Text to one YAML document, strictly: size, UTF-8, duplicate keys, YAML 1.1 number spellings, depth.

Problems are raised as :class:`_Invalid` (a field path and a message), which
:func:`~baseparam.model.loading.parse_robot` turns into a one-line RobotDescriptionError.
"""
from __future__ import annotations

import contextlib
import re

import yaml

from .._checks import not_utf8, shown
from ..errors import printable

MAX_BYTES = 1_000_000  # a 64-joint description with comments is a few kilobytes
_MAX_DEPTH = 32
# Collections nested deeper than this are refused while the document is parsed, before the rest is read: PyYAML's
# scanner (and libyaml's) costs time in proportion to the nesting at each token, so 100 000 brackets (200 kB) would
# take a minute of CPU, and a 1 MB file minutes, before _check_nodes could refuse them. Above _MAX_DEPTH, so that a
# document only a little too deep is still refused naming its field.
_MAX_PARSED_DEPTH = 2 * _MAX_DEPTH

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
# YAML 1.1's boolean words (PyYAML's SafeConstructor.bool_values)
_BOOL_WORDS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
# a number spelled with more characters is no measurement: Python's int() refuses 4 300 digits with advice
# about sys.set_int_max_str_digits, and no field would take the value anyway
_MAX_NUMBER_CHARS = 400


class _StrictLoader(yaml.SafeLoader):
    """Safe loader that also reads YAML 1.2 floats such as ``1e-3`` and ``1e999``, and a scalar with the
    non-specific tag ``!`` as a string, as the YAML specs say (1.1 and 1.2, "non-specific tags": ``! 90`` is
    the text "90"; PyYAML resolved it as if untagged, the number 90)."""

    _nesting = 0        # collections being composed, around the node composed now

    def compose_node(self, parent, index):
        # collections alone count (as nested_too_deeply counts them): counting scalars too would refuse a scalar in the
        # 64th as 'more than 64 levels deep'
        opens = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if opens and self._nesting >= _MAX_PARSED_DEPTH:
            raise _Invalid("", _too_deep(self.peek_event().start_mark))
        self._nesting += opens
        try:
            return super().compose_node(parent, index)
        finally:
            self._nesting -= opens

    def compose_scalar_node(self, anchor):
        if self.peek_event().tag != "!":
            return super().compose_scalar_node(anchor)
        event = self.get_event()
        node = yaml.ScalarNode(_STR_TAG, event.value, event.start_mark, event.end_mark, style=event.style)
        if anchor is not None:
            self.anchors[anchor] = node
        return node


def _too_deep(mark) -> str:
    return (f"line {mark.line + 1}, column {mark.column + 1}: invalid YAML: nested too deeply (collections more than "
            f"{_MAX_PARSED_DEPTH} levels deep)")


class _Dumper(yaml.SafeDumper):
    """Safe dumper that reads plain scalars as :class:`_StrictLoader` does, so that it quotes a string such as
    ``1e3`` (a name) which the loader would read back as a number."""


for _kind in (_StrictLoader, _Dumper):
    _kind.add_implicit_resolver(
        _FLOAT_TAG,
        re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$"),
        list("-+0123456789."),
    )


# the constructor of one tagged scalar at a time, for _check_constructed
_SCALARS = _StrictLoader("")


class _Invalid(Exception):
    """A problem at a field path; turned into a RobotDescriptionError once the file is known."""

    def __init__(self, path: str, message: str):
        super().__init__(path, message)
        self.path = path
        self.message = message

    def format(self, filename: str) -> str:
        parts = [filename] + ([self.path] if self.path else []) + [self.message]
        return printable(": ".join(parts))


def _decode(data: bytes) -> str:
    if len(data) > MAX_BYTES:
        raise _Invalid("", f"description too large (more than {MAX_BYTES} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Invalid("", not_utf8(data, exc)) from None


def _load_yaml(text: str):
    """Parse one YAML document, refusing duplicate keys and ambiguous integers."""
    if len(text) > MAX_BYTES:
        raise _Invalid("", f"description too large (more than {MAX_BYTES} characters)")
    loader = None
    try:
        loader = _StrictLoader(text)
        node = loader.get_single_node()
        if node is None:
            raise _Invalid("", "empty description: expected a YAML mapping with at least `joints`")
        _check_nodes(node)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _Invalid("", _yaml_message(exc)) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise _Invalid("", f"line {line}: unacceptable character U+{exc.character:04X} ({exc.reason})") from None
    except yaml.YAMLError as exc:
        raise _Invalid("", f"invalid YAML: {exc}") from None
    except RecursionError:
        raise _Invalid("", "invalid YAML: nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as exc:
        # A constructor rejecting an explicitly tagged scalar, e.g. `!!float abc`.
        raise _Invalid("", f"invalid YAML value: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()


_OPENING = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSING = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class _TooDeep(Exception):
    """Collections nested past :data:`_MAX_PARSED_DEPTH` (:func:`_bounded_events`)."""


def _bounded_events(text):
    """libyaml's events of YAML ``text`` (str or bytes; pure Python without libyaml), one at a time, for the passes
    that look at a document before (or instead of) composing it; :class:`_TooDeep` once collections nest more than
    :data:`_MAX_PARSED_DEPTH` deep, where the scanner's time per token has grown with the nesting. A malformed
    document raises yaml.YAMLError. Use it in ``contextlib.closing``: the parser is disposed of when it closes."""
    parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        nesting = 0
        while parser.check_event():
            event = parser.get_event()
            nesting += isinstance(event, _OPENING) - isinstance(event, _CLOSING)
            if nesting > _MAX_PARSED_DEPTH:
                raise _TooDeep
            yield event
    finally:
        parser.dispose()


def _top_sequence_exceeds(text: str, key: str, limit: int) -> bool:
    """Whether the top-level mapping's sequence ``key`` has more than ``limit`` items.

    A pass over libyaml's events (:func:`_bounded_events`) that stops once the count passes ``limit``:
    composing a 1 MB document of 20 000 joints takes seconds before its joint count can be refused.
    A malformed document, or one nested deeper than :data:`_MAX_PARSED_DEPTH`, is left to the full loader, which
    words its error (and refuses the nesting before it costs time).
    """
    opening, closing = _OPENING, _CLOSING
    try:
        with contextlib.closing(_bounded_events(text)) as events:
            depth, expect_key, in_key, count = 0, False, False, None      # count: the sequence's items, once in it
            for event in events:
                if count is not None:                 # in the sequence, whose items are at depth 0
                    count += depth == 0 and not isinstance(event, closing)
                    depth += isinstance(event, opening) - isinstance(event, closing)
                    if count > limit:
                        return True
                    if depth < 0:                     # the sequence ended
                        return False
                elif in_key and depth == 1 and isinstance(event, yaml.SequenceStartEvent):
                    depth, count = 0, 0
                elif isinstance(event, opening + closing):
                    depth += 1 if isinstance(event, opening) else -1
                    # a key comes first in the top-level mapping, and after each value that is a collection
                    expect_key, in_key = depth == 1 and not isinstance(event, yaml.SequenceStartEvent), False
                elif depth == 1 and isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                    in_key = expect_key and isinstance(event, yaml.ScalarEvent) and event.value == key
                    expect_key = not expect_key
            return False
    except (yaml.YAMLError, _TooDeep):
        return False


def nested_too_deeply(text) -> bool:
    """Whether YAML ``text`` (str or bytes) nests collections more than :data:`_MAX_PARSED_DEPTH` deep: a pass over
    libyaml's events (:func:`_bounded_events`) that stops there, for a document another parser reads (a bag's
    metadata.yaml, by ruamel: 100 000 brackets took it 2.3 s of CPU before its RecursionError). A malformed document
    is left to that parser (False)."""
    try:
        with contextlib.closing(_bounded_events(text)) as events:
            for _ in events:
                pass
    except _TooDeep:
        return True
    except yaml.YAMLError:
        return False
    return False


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    context = f" ({exc.context})" if exc.context else ""
    return f"{where}invalid YAML: {exc.problem or 'syntax error'}{context}"


def _check_nodes(root) -> None:
    """Walk the node graph once: duplicate keys, integer spellings, nesting depth.

    Done on nodes rather than on constructed data because PyYAML silently keeps the
    last of two equal keys, and because nodes carry line numbers and the raw spelling.
    """
    seen = set()
    stack = [(root, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if id(node) in seen:  # aliases: each node once, so alias bombs stay linear
            continue
        seen.add(id(node))
        if depth > _MAX_DEPTH:
            raise _Invalid(path, "nested too deeply")
        if isinstance(node, yaml.MappingNode):
            first_line = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    # '<<' twice is a duplicate key too: PyYAML merged both, the later one's values winning (a
                    # YAML 1.2 reader refuses it)
                    line = key_node.start_mark.line + 1
                    if _MERGE_TAG in first_line:
                        where = (f"twice on line {line}" if line == first_line[_MERGE_TAG]
                                 else f"lines {first_line[_MERGE_TAG]} and {line}")
                        raise _Invalid(path, f"duplicate merge key << ({where}); merge several mappings with one: "
                                             "<<: [*a, *b]")
                    first_line[_MERGE_TAG] = line
                    stack.append((value_node, path, depth + 1))
                    continue
                label = key_node.value if isinstance(key_node, yaml.ScalarNode) else "<complex key>"
                child = f"{path}.{label}" if path else str(label)
                key = (key_node.tag, label)
                line = key_node.start_mark.line + 1
                if isinstance(key_node, yaml.ScalarNode) and key in first_line:
                    where = (f"twice on line {line}" if line == first_line[key]
                             else f"lines {first_line[key]} and {line}")
                    raise _Invalid(child, f"duplicate key ({where})")
                first_line[key] = line
                stack.append((value_node, child, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node.value, start=1))
        elif node.tag in (_INT_TAG, _FLOAT_TAG):
            _check_spelling(node.value, node.tag, path)
            if node.tag == _FLOAT_TAG:
                _check_constructed(node, path, "number")
        elif node.tag == _TIMESTAMP_TAG:
            _check_constructed(node, path, "date")
        elif node.tag == _BOOL_TAG and node.value.lower() not in ("true", "false"):
            # YAML 1.1 reads yes/no/on/off as booleans: `rotor_inertia: yes` would silently mean true
            word = node.value.lower()
            if word not in _BOOL_WORDS:              # '!!bool 1': no boolean of any YAML
                raise _Invalid(path, f"expected true or false, got {shown(node.value)}")
            meaning = "true" if _BOOL_WORDS[word] else "false"
            raise _Invalid(path, f"expected true or false, got {shown(node.value)} (YAML 1.1 reads it as {meaning}); "
                                 f"write {meaning}")


def _check_constructed(node, path: str, what: str) -> None:
    """Refuse a scalar tagged !!float or !!timestamp that PyYAML's constructor cannot read, at its field: the
    constructor fails with an IndexError (``!!float ''``) or an AttributeError (``!!timestamp 0.5``), and its
    ValueError named no field."""
    try:
        _SCALARS.yaml_constructors[node.tag](_SCALARS, node)
    except Exception:                     # noqa: BLE001 - any failure of the constructor is the value's
        tag = "!!" + node.tag.rsplit(":", 1)[-1]
        raise _Invalid(path, f"expected a {what}, got {shown(node.value)} (tagged {tag}: no {what} YAML "
                             "reads)") from None


def _check_spelling(text: str, tag: str, path: str) -> None:
    """Refuse the YAML 1.1 number spellings whose value differs from what a reader sees, and huge spellings."""
    if len(text) > _MAX_NUMBER_CHARS:
        raise _Invalid(path, f"expected a finite number, got one spelled with {len(text)} characters, {shown(text)}")
    if ":" in text:
        reading = "base 60"
    elif "_" in text:
        # YAML 1.1 drops the separators ('1_0' is 10), YAML 1.2 reads the word as text, and baseparam's other
        # grammars (URDF, CSV, the command line: _numbers.plain_float) refuse it: a mistyped digit, not a number
        reading = f"{_without_separators(text, tag)}, YAML 1.2 as text"
    elif tag == _INT_TAG and not _PLAIN_INT.fullmatch(text):
        digits = text.lstrip("+-").lower()
        if not re.fullmatch(r"0(?:x[0-9a-f]+|b[01]+|[0-7]+)", digits):
            # '!!int 1.5', '!!int 08', '!!int 1e3': no integer YAML 1.1 spells (PyYAML's int() fails on each; the
            # readings below would be a false claim, and '08' or '1e3' are whole numbers, in other spellings)
            raise _Invalid(path, f"expected a plain decimal number, got {shown(text)} (tagged !!int: no integer "
                                 "YAML reads)")
        reading = {"0x": "hexadecimal", "0b": "binary"}.get(digits[:2], "octal")
    else:
        return
    raise _Invalid(path, f"expected a plain decimal number, got {shown(text)} (YAML 1.1 reads it as {reading})")


def _without_separators(text: str, tag: str) -> str:
    """What YAML 1.1 reads a decimal number spelled with '_' as, for a message ('1_0' → 10); else "a number"."""
    try:
        return str(int(text.replace("_", "")) if tag == _INT_TAG else float(text.replace("_", "")))
    except ValueError:          # '0x1_0' (hexadecimal), or no number
        return "a number"
