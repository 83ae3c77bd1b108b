"""The text of an XML file's bytes, in the encoding XML parsers take it in (XML 1.0, appendix F).

A byte-order mark says UTF-8, UTF-16 or UTF-32; without one, the first character ``<`` written in UTF-16 or
UTF-32 says which; otherwise the XML declaration's ``encoding`` (``ISO-8859-1``, ``windows-1252``, …) or, without
one, UTF-8. Only bytes that do not decode so are refused. The text returned is a ``str``: its declaration, if it
names an encoding, is made to name UTF-8, the encoding every writer of the package writes the text back in (a file
written in UTF-8 that still declared ISO-8859-1 would be read back garbled).
"""
from __future__ import annotations

import codecs
import re

from .._checks import not_utf8
from .._warnings import ignored

# byte-order marks, UTF-32's before UTF-16's (FF FE 00 00 begins as UTF-16LE's FF FE)
_MARKS = ((codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF8, "utf-8"),
          (codecs.BOM_UTF16_BE, "utf-16-be"), (codecs.BOM_UTF16_LE, "utf-16-le"))
# no mark: the first '<' as UTF-32 or UTF-16 write it (expat's reading too; in UTF-8, no '<' has a NUL beside it),
# after the blanks a file may begin with (XML's S: space, tab, CR, LF), written in the same encoding
_UNMARKED = ("utf-32-be", "utf-32-le", "utf-16-be", "utf-16-le")
_BLANKS = " \t\r\n"
_UNMARKED_SCAN = 4096           # bytes of leading blanks looked through
_DECLARED = re.compile(r"""<\?xml[ \t\r\n][^>]*?\bencoding[ \t\r\n]*=[ \t\r\n]*(["'])([^"']*)\1""")


def xml_encoding(data: bytes):
    """(codec name, bytes of a byte-order mark to skip, whether the declaration chose it) of an XML file's bytes."""
    for mark, codec in _MARKS:
        if data.startswith(mark):
            return codec, len(mark), False
    for codec in _UNMARKED:
        if _starts_with_markup(data, codec):
            return codec, 0, False
    declared = _DECLARED.match(data[:1024].decode("latin-1"))   # the declaration: ASCII, the file's first bytes
    return (declared.group(2), 0, True) if declared else ("utf-8", 0, False)


def _starts_with_markup(data: bytes, codec: str) -> bool:
    """Whether ``data`` begins, after blanks, with '<' written in ``codec`` (UTF-16 or UTF-32 without a mark):
    without it, a file beginning with a newline would be read as UTF-8, NUL-riddled, and refused as "not well-formed
    at line 2"."""
    width = len("<".encode(codec))
    blanks = {c.encode(codec) for c in _BLANKS}
    at = 0
    while at < _UNMARKED_SCAN and data[at:at + width] in blanks:
        at += width
    return data[at:at + width] == "<".encode(codec)


def decoded_xml(data: bytes):
    """``(text, None)``, or ``(None, problem)`` for a one-line message: bytes that do not decode in the file's
    encoding, or a declared encoding Python does not know or that the file is not written in."""
    codec, skip, declared = xml_encoding(data)
    info = _text_codec(codec)
    if info is None:
        return None, f"its XML declaration names encoding {codec!r}, which is not one known here; save it as UTF-8"
    if declared and not _keeps_ascii(info):
        return None, (f"its XML declaration names encoding {codec!r}, which does not read ASCII as ASCII "
                      "(expat, the reader of urdfdom, refuses it); save it as UTF-8")
    if declared and info.name.startswith(("utf-16", "utf-32")):    # declared, but written with 8-bit characters
        return None, (f"its XML declaration names encoding {codec!r}, but the file is not written in it (no "
                      "byte-order mark, 8-bit characters); save it as UTF-8")
    try:
        text = data[skip:].decode(info.name)
    except UnicodeDecodeError as exc:
        if info.name == "utf-8":
            return None, not_utf8(data, exc)
        start = exc.start + skip
        line = data[:start].decode(info.name, "replace").count("\n") + 1      # the line as the file's encoding counts
        return None, (f"line {line}: not {codec} text (byte 0x{data[start]:02x} at offset "
                      f"{start}); save the file as UTF-8")
    except UnicodeError:            # a codec failing without a byte to blame (undefined, punycode, idna)
        return None, (f"its XML declaration names encoding {codec!r}, which the file does not decode in; "
                      "save it as UTF-8")
    if declared and not text.startswith("<?xml"):   # a codec reading the markup otherwise in context (_keeps_ascii
        # tries it alone; EBCDIC and the escaping codecs are refused there)
        return None, f"its XML declaration names encoding {codec!r}, which it is not written in; save it as UTF-8"
    return as_utf8_declared(text), None


def as_utf8_declared(text: str) -> str:
    """``text`` with its XML declaration's encoding, if it names one other than UTF-8, made to name UTF-8. A name
    of UTF-8 other than ``UTF-8`` in any case (``UTF8``, ``utf_8``) is renamed too: expat knows no such alias and
    reads the file as 8-bit text, refusing every non-ASCII byte."""
    declared = _DECLARED.match(text, 1 if text.startswith("\ufeff") else 0)   # a str may keep its byte-order mark
    if declared is None or declared.group(2).lower() == "utf-8":
        return text
    return text[:declared.start(2)] + "UTF-8" + text[declared.end(2):]


# printable ASCII and the sequences an escaping codec reads otherwise: unicode_escape's "\\a" (a mesh path's
# "C:\\assets" read as a bell), raw_unicode_escape's "\\u0041", UTF-7's "+AGE-" (an 'a')
_ASCII_PROBE = bytes(range(0x20, 0x7F)).replace(b"\\", b"") + b"\t\r\n\\a\\n\\u0041+AGE-A.B"
# the characters XML's markup and a URDF's numbers ("1e+3") are written in; the rest of ASCII some real encodings
# read otherwise, as iconv (libxml2's reader) does too: Shift_JIS-2004 and Shift_JISX0213 read "\\" as a yen sign
# and "~" as an overline, IBM864 reads "%" as the Arabic percent sign
_MARKUP = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t\r\n<>/?=!\"'-_.:;#&[]+,()")


def _keeps_ascii(info) -> bool:
    """Whether the codec of ``info`` reads ASCII bytes one character each, XML's markup as the same characters
    (UTF-16/32 aside, whose mark or first '<' chose them); ``unicode_escape``, ``raw_unicode_escape`` and ``utf-7``
    do not (they read several bytes as one character)."""
    if info.name.startswith(("utf-16", "utf-32")):
        return True
    try:
        with ignored():         # unicode_escape's invalid-escape DeprecationWarning
            text = info.decode(_ASCII_PROBE)[0]
    except (UnicodeError, ValueError):
        return False
    ascii_text = _ASCII_PROBE.decode("ascii")
    return len(text) == len(ascii_text) and all(read == char for read, char in zip(text, ascii_text)
                                                if char in _MARKUP)


def _text_codec(codec: str):
    """The :class:`codecs.CodecInfo` of a text encoding, or None for a name Python does not know or a codec that
    is no text encoding (``hex``, ``base64``, ``rot13``, ``zlib``: ``bytes.decode`` raises LookupError for them)."""
    try:
        info = codecs.lookup(codec)
        b"<".decode(info.name)      # not b"": decoding no bytes skips the text-encoding check
    except LookupError:
        return None
    except UnicodeError:            # a text encoding that a lone '<' does not decode in (UTF-16, undefined)
        pass
    return info
