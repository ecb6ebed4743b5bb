"""tdbg.infra.settings_fields: a settings field carries its default and what its flag needs, and a
subclass redefines one detail of a field while keeping the rest."""

import dataclasses

import pytest

from tdbg.infra.settings_fields import derived, option, variant


@dataclasses.dataclass(frozen=True)
class Base:
    size: int = option(3, "how many", type="positive_int", metavar="N", choices=(1, 3, 5))
    given: bool = derived(False, "--size was given")


@dataclasses.dataclass(frozen=True)
class Wider(Base):
    size: int = variant(Base, "size", 5, "how many (wider)")


@dataclasses.dataclass(frozen=True)
class SameDefault(Base):
    size: int = variant(Base, "size", metavar="COUNT")


def meta(cls, name):
    return dict(cls.__dataclass_fields__[name].metadata)


def test_an_option_is_a_field_with_its_default_and_flag_details():
    assert Base().size == 3
    assert meta(Base, "size") == {
        "help": "how many",
        "type": "positive_int",
        "metavar": "N",
        "choices": (1, 3, 5),
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        Base().size = 5


def test_a_derived_field_has_no_flag_of_its_own():
    assert meta(Base, "given") == {"help": "--size was given", "flag": None}


def test_a_variant_keeps_what_it_does_not_redefine():
    assert Wider().size == 5
    assert meta(Wider, "size") == {**meta(Base, "size"), "help": "how many (wider)"}
    assert SameDefault().size == 3
    assert meta(SameDefault, "size") == {**meta(Base, "size"), "metavar": "COUNT"}
    assert meta(Base, "size")["metavar"] == "N"  # the base is not changed
