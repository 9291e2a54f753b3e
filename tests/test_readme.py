"""The README's Python example runs as written, and its commands stay in sync with CI."""

import re

import pytest
from _checkout import ROOT, repository_path

README = repository_path("README.md", module=True).read_text()


@pytest.mark.slow
def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README.md has no Python example"
    exec(compile(blocks[0], "README.md", "exec"), {})
    printed = capsys.readouterr().out.strip().splitlines()[-1]
    # The README says what the example prints, word for word.
    assert f"prints `{printed}`" in README
    accuracy = float(printed.rsplit(" ", 1)[-1])
    assert 0.85 < accuracy <= 1.0


def test_readme_starts_with_the_two_commands():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1).splitlines()
    commands = [line for line in first_block if not line.startswith("#")]
    assert commands[0].endswith("python scripts/reproduce_tables.py")
    assert commands[1].endswith("python -m pytest")
    # .ci/run runs the line that follows this comment.
    assert "# 2. Install and run the test suite" in first_block
    assert "# 2. Install and run the test suite" in (ROOT / ".ci" / "run").read_text()
