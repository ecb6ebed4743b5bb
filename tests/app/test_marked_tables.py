"""tdbg.app.marked_tables: tables kept between marker comments, remade and rewritten."""

import errno
import os

import pytest

from tdbg.app import marked_tables as mt
from tdbg.infra import fileio


def test_a_markdown_table_has_its_header_rule_and_rows():
    assert (
        mt.markdown_table(["a", "b"], [["1", "2"], ["3", "4"]])
        == "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
    )


def test_render_replaces_only_between_the_markers():
    begin, end = mt.markers("x")
    assert begin == "<!-- results_tables: x begin -->" and end == "<!-- results_tables: x end -->"
    text = f"before\n{begin}\nold\n{end}\nafter\n"
    assert mt.render(text, "x", "new") == f"before\n{begin}\nnew\n{end}\nafter\n"
    with pytest.raises(ValueError, match="markers"):
        mt.render("no markers", "x", "new")
    with pytest.raises(ValueError, match="markers"):  # the end before the begin
        mt.render(f"{end}\n{begin}\n", "x", "new")


def _file(path, names_and_bodies):
    text = "head\n"
    for name, body in names_and_bodies:
        begin, end = mt.markers(name)
        text += f"{begin}\n{body}\n{end}\nbetween\n"
    path.write_text(text)
    return str(path)


def test_remade_names_the_tables_that_differ_and_writes_nothing(tmp_path):
    one = _file(tmp_path / "one.md", [("x", "old"), ("y", "same")])
    two = _file(tmp_path / "two.md", [("z", "old")])
    before = open(one).read(), open(two).read()
    tables = {"x": lambda: "new", "y": lambda: "same", "z": lambda: "new z"}
    changed, texts = mt.remade(tables, {"x": one, "y": one, "z": two})
    assert changed == ["x", "z"]
    assert texts[one] == before[0].replace("\nold\n", "\nnew\n") and texts[two] == before[
        1
    ].replace("old", "new z")
    assert (open(one).read(), open(two).read()) == before


def test_a_failed_write_says_which_files_were_rewritten_before_it(tmp_path, monkeypatch):
    paths = [str(tmp_path / n) for n in ("a.md", "b.md", "c.md")]
    mt.write_texts(dict(zip(paths, "ABC", strict=True)), paths, str(tmp_path))
    assert [open(p).read() for p in paths] == ["A", "B", "C"]
    real = fileio.atomic_write

    def full_at(bad):
        def atomic_write(path, mode="w"):
            if path == bad:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
            return real(path, mode)

        return atomic_write

    monkeypatch.setattr(fileio, "atomic_write", full_at(paths[2]))
    with pytest.raises(
        OSError, match="No space left on device; a.md, b.md already rewritten"
    ) as failed:
        mt.write_texts(dict(zip(paths, ["A2", "B2", "C2"], strict=True)), paths, str(tmp_path))
    assert failed.value.filename == paths[2]
    assert [open(p).read() for p in paths] == ["A2", "B2", "C"]
    monkeypatch.setattr(fileio, "atomic_write", full_at(paths[0]))
    with pytest.raises(OSError, match="nothing was rewritten"):
        mt.write_texts(dict(zip(paths, ["A3", "B3", "C3"], strict=True)), paths, str(tmp_path))
    assert [open(p).read() for p in paths] == ["A2", "B2", "C"]


def test_a_marker_that_stands_twice_is_refused_naming_the_file(tmp_path):
    """A table's section pasted twice: only the first was remade and compared, so a stale
    second copy (a typed figure) passed --check."""
    begin, end = mt.markers("x")
    section = f"{begin}\nnew\n{end}\n"
    stale = section.replace("new", "old")
    for text in (section + stale, f"{begin}\n{section}", section + f"{end}\n"):
        path = tmp_path / "README.md"
        path.write_text(text)
        with pytest.raises(ValueError, match=f"{path}: '<!-- results_tables: x (begin|end) -->' "):
            mt.remade({"x": lambda: "new"}, {"x": str(path)})
        assert path.read_text() == text
