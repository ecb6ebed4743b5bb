"""Flags made from settings dataclasses (tdbg.infra.settings_fields), and the dataclasses built
back from the parsed flags: the one place where a library setting becomes a flag.

``add_arguments(parser, Settings)`` adds a flag for each field, in field order, going
into fields that are settings themselves; ``build(Settings, namespace)`` makes the
dataclass from what was parsed (a field the script offers no flag for keeps its default).
"""

from __future__ import annotations

import argparse
import dataclasses
import typing

from tdbg.app import cli
from tdbg.net.model import parse_hidden


def hidden_arg(text: str) -> tuple[int, ...]:
    """--hidden, --expand: hidden layer sizes, '512,512,256'."""
    try:
        return tuple(parse_hidden(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


TYPES = {"hidden_arg": hidden_arg}  # the parsers a field may name besides cli's


def parser_type(spec):
    """A field's ``type``: a callable, the name of a parser here or in cli, or (name of one
    of cli's parser makers, arguments...)."""
    if callable(spec):
        return spec
    if isinstance(spec, str):
        return TYPES.get(spec) or getattr(cli, spec)
    name, *arguments = spec
    return getattr(cli, name)(*arguments)


def _fields(cls):
    """(field, its settings class when it holds settings, else None) of a settings class."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        kind = hints[f.name]
        yield f, kind if isinstance(kind, type) and dataclasses.is_dataclass(kind) else None


def add_arguments(parser, cls, skip=(), what: str | None = None) -> None:
    """A flag for each field of ``cls`` (and of the settings within it), except those named
    in ``skip`` (a field holding settings whose flags the script adds itself), those that are
    no flag (``derived``) and those the class holds ``fixed``; an ``unlisted`` one is taken
    but not shown in --help.  ``{what}`` in a help text reads ``what``."""
    for f, inner in _fields(cls):
        meta = f.metadata
        if f.name in skip or meta.get("flag", "") is None or meta.get("fixed"):
            continue
        if inner is not None:
            add_arguments(parser, inner, skip, what)
            continue
        text = meta["help"] if what is None else meta["help"].format(what=what)
        kwargs = {"dest": f.name, "help": argparse.SUPPRESS if meta.get("unlisted") else text}
        if meta.get("negatable"):
            kwargs.update(action=argparse.BooleanOptionalAction, default=f.default)
        elif f.default is False and "type" not in meta:
            kwargs["action"] = "store_true"
        else:
            kwargs["default"] = meta.get("shown", f.default)
            if "type" in meta:
                kwargs["type"] = parser_type(meta["type"])
            kwargs.update(
                {
                    k: meta[k]
                    for k in ("choices", "metavar", "required", "nargs", "const")
                    if k in meta
                }
            )
        parser.add_argument(meta.get("flag") or "--" + f.name.replace("_", "-"), **kwargs)


def build(cls, namespace: argparse.Namespace, **given):
    """``cls`` from the parsed flags; ``given`` sets fields that are no flags (by name)."""
    values = {}
    for f, inner in _fields(cls):
        if inner is not None:
            values[f.name] = build(inner, namespace, **given)
        elif f.name in given:
            values[f.name] = given[f.name]
        elif f.name in vars(namespace):
            values[f.name] = vars(namespace)[f.name]
    return cls(**values)


def flag_given(flag: str, argv: list[str]) -> bool:
    """Whether ``flag`` is on the command line (as ``--flag X`` or ``--flag=X``)."""
    return any(a == flag or a.startswith(flag + "=") for a in argv)
