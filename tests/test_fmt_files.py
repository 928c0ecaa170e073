"""fmt reads and writes only what is meant (issue 27, items 4 and 8): no FIFO or device is read, a
read-only file is left as it is, hard links keep naming the file, and root keeps a user's file theirs."""
from __future__ import annotations

import os
import stat

import pytest

from grimorio.interpreter.tools.cli import main

UGLY = "rule f(x):\n    return   x+1\n"


@pytest.mark.parametrize("make", [lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero")])
def test_fmt_refuses_what_is_no_regular_file_without_reading(tmp_path, capsys, make):
    target = tmp_path / "x.rules"
    make(target)
    assert main(["fmt", str(target)]) == 2
    err = capsys.readouterr().err
    assert "error[E0001]" in err and "is not a regular file" in err and "E0003" not in err


def test_fmt_leaves_a_read_only_file(tmp_path, capsys):
    target = tmp_path / "x.rules"
    target.write_text(UGLY)
    target.chmod(0o444)
    assert main(["fmt", str(target)]) == 2
    assert target.read_text() == UGLY and "is read-only; left as it is" in capsys.readouterr().err


def test_fmt_keeps_hard_links(tmp_path, capsys):
    target = tmp_path / "x.rules"
    target.write_text(UGLY)
    os.link(target, tmp_path / "otro.rules")
    assert main(["fmt", str(target)]) == 0
    assert (tmp_path / "otro.rules").read_text() == target.read_text() != UGLY
    assert os.stat(target).st_ino == os.stat(tmp_path / "otro.rules").st_ino


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="run as root: its owner changes")
def test_root_formatting_a_users_file_keeps_it_theirs(tmp_path, capsys):
    target = tmp_path / "x.rules"
    target.write_text(UGLY)
    os.chown(target, 65534, 65534)
    target.chmod(0o640)
    assert main(["fmt", str(target)]) == 0
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (65534, 65534, 0o640)
    assert target.read_text() != UGLY


def test_a_tab_indented_continuation_less_deep_than_its_opener_is_formatted(tmp_path, capsys):
    """Issue 27: a tab counts 4 columns, the formatter indents by 2: a continuation written at 2 spaces under
    a tab-indented opener came out at the margin, where it starts a declaration (E0020)."""
    target = tmp_path / "x.rules"
    target.write_text("rule f(x):\n\treturn max([x,\n  1])\n")
    assert main(["fmt", str(target)]) == 0, capsys.readouterr().err
    assert target.read_text() == "rule f(x):\n  return max([x,\n      1])\n"
