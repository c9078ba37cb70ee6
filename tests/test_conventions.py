"""House rules that hold across every notebook (issue #28): one shape of per-scale config table."""
import ast, json

import pytest

from conftest import ROOT

PAPERS = sorted(p for p in (ROOT / "nbs").glob("[0-9][0-9]_*.ipynb") if p.name[:2] not in ("00", "03"))


def config_calls(nb_path):
    "Every `scale_config(...)` call in the notebook's code cells (cells with IPython magics skipped)."
    out = []
    for c in json.loads(nb_path.read_text())["cells"]:
        if c["cell_type"] != "code": continue
        try:
            tree = ast.parse("".join(c["source"]))
        except SyntaxError:
            continue
        out += [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "scale_config"]
    return out


@pytest.mark.parametrize("nb", PAPERS, ids=lambda p: p.stem)
def test_config_is_one_column_table(nb):
    "`cfg = scale_config({\"smoke\": {...}, \"demo\": {...}, \"full\": {...}}, scale)`: the table written as a literal."
    calls = config_calls(nb)
    assert len(calls) == 1, f"{nb.name}: expected one scale_config call, found {len(calls)}"
    table = calls[0].args[0]
    assert isinstance(table, ast.Dict), f"{nb.name}: pass the column table itself to scale_config, not a comprehension"
    keys = [k.value if isinstance(k, ast.Constant) else None for k in table.keys]
    assert keys == ["smoke", "demo", "full"], f"{nb.name}: the table's columns are {keys}"
