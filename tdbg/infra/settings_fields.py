"""Settings as frozen dataclasses: one field per knob, with its type, default and help.

The library takes its settings as dataclasses (learn.stage_settings' stage settings,
``backends.Backend``), never a parsed command line; the scripts' flags
are generated from the fields (tdbg.app.settings_flags).  A field made with ``option`` carries,
besides its default, what its flag needs in ``metadata``:

* ``help``: the flag's help text (required);
* ``type``: how the flag's text becomes the value: a callable (``int``), the name of a
  parser in tdbg.app (cli's ``"positive_int"``, settings_flags' ``"hidden_arg"``), or (name,
  arguments...) for one of cli's made with arguments (``("count_arg", 20_000, "games")``);
  none for text and switches;
* ``choices``, ``metavar``, ``required``, ``nargs``, ``const``: as argparse takes them;
* ``flag``: the flag's spelling when it is not the field's name with dashes
  (``lam`` is ``--lambda``); ``negatable``: a switch with a ``--no-`` form;
* ``shown``: the default as written on the command line, where the value reads
  differently (``hidden`` (80,) is ``80``);
* ``record``: learn.stage_settings: the stage records the value when it is not the default;
* ``fixed``: no flag: the script whose settings class says so takes the default (a stage's
  subclass fixes a field its learner does not use, ``fixed``, and may offer one its base
  fixes, ``variant(..., fixed=False)``); unlike ``derived``, the value is still one of the
  stage's settings;
* ``unlisted``: a flag the script takes but does not list in its --help.
"""

from __future__ import annotations

import dataclasses


def option(default, help: str, **flag):
    """A settings field with its default, help and flag details (the module notes)."""
    return dataclasses.field(default=default, metadata={"help": help, **flag})


def derived(default, help: str):
    """A settings field that is no flag of its own: the script works it out (``hidden_given``)."""
    return dataclasses.field(default=default, metadata={"help": help, "flag": None})


def variant(cls, name: str, default=dataclasses.MISSING, help: str | None = None, **flag):
    """Field ``name`` of the settings class ``cls`` as a subclass redefines it: another
    default, help or flag detail, the rest (type, choices...) as the base has it."""
    base = cls.__dataclass_fields__[name]
    metadata = {**base.metadata, **flag, **({"help": help} if help is not None else {})}
    return dataclasses.field(
        default=base.default if default is dataclasses.MISSING else default, metadata=metadata
    )


def fixed(cls, name: str):
    """Field ``name`` of the settings class ``cls`` as a subclass holds it at its default, with
    no flag: the script of that subclass's stage does not offer it."""
    return variant(cls, name, fixed=True)


def unlisted(cls, name: str):
    """Field ``name`` of the settings class ``cls`` as a subclass takes it without listing its
    flag in --help."""
    return variant(cls, name, unlisted=True)
