"""Split `;`-chained statements onto their own lines in .py files and notebooks (`make format`).

    python .ci/split_semicolons.py [--check] PATH...      # files, folders (*.py, *.ipynb) or notebooks

ruff flags `a = 1; b = 2` (E702) and `x = f();` (E703) but fixes neither, and `ruff format` would also rewrite
every nbdev one-liner (`if bad: raise ValueError(...)`, which the house style keeps). This tool does only the
split, from the syntax tree:

* `a; b` at the start of a line -> `a` and `b` on two lines at that line's indentation;
* a one-line block with a chain, `if c: a; b` -> `if c:` and an indented block (`for`, `with`, `def`, `try`, ...);
* a trailing `;` is dropped, except after the last statement of a notebook cell (it hides the cell's output).

A rewrite is kept only if the new source parses to the same syntax tree (positions aside); cells with IPython
magics or syntax errors are left alone. Line lengths (E501) are reported, not changed: a long line needs a
person. `--check` changes nothing and exits 1 when something would be split.
"""
from __future__ import annotations

import argparse, ast, io, json, sys, tokenize
from pathlib import Path

__all__ = ["split_source", "split_file"]


def _blocks(tree: ast.AST):
    "Every statement list in `tree`, with the line whose indentation a one-line block is indented from."
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                # `if c: a; b` -> the header's first line; `else: a; b` / `finally: a; b` -> their own line
                yield (node.lineno if field == "body" and hasattr(node, "lineno") else body[0].lineno), body
        for h in getattr(node, "handlers", None) or []:
            yield h.lineno, h.body
        for c in getattr(node, "cases", None) or []:
            yield c.pattern.lineno, c.body


def _same(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def _trailing(src: str, lines: list[bytes], keep_last: bool) -> list[tuple]:
    "Edits that drop a `;` ending a logical line (all but a cell's very last one when `keep_last`)."
    toks = [t for t in tokenize.tokenize(io.BytesIO(src.encode()).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.INDENT, tokenize.DEDENT)]
    out = []
    for i, t in enumerate(toks[:-1]):
        if t.type == tokenize.OP and t.string == ";" and toks[i + 1].type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            last = all(u.type in (tokenize.NEWLINE, tokenize.ENDMARKER) for u in toks[i + 1:])
            if keep_last and last: continue
            bcol = len(lines[t.start[0] - 1].decode()[:t.start[1]].encode())
            out.append((t.start[0], bcol, bcol + 1, b""))
    return out


def split_source(src: str, keep_last_semicolon: bool = False) -> tuple[str, int]:
    """`src` with its `;` chains split (see the module docstring) and the number of edits; `src` unchanged when it
    does not parse or the result would not parse to the same tree."""
    try:
        tree = ast.parse(src)
        lines = src.encode().splitlines(keepends=True)      # ast column offsets are UTF-8 byte offsets
        edits = _trailing(src, lines, keep_last_semicolon)  # (line, start byte, end byte, replacement)
    except (SyntaxError, tokenize.TokenError):
        return src, 0

    def indent_of(line_no: int) -> bytes:
        raw = lines[line_no - 1]
        return raw[:len(raw) - len(raw.lstrip(b" \t"))]

    for header_line, body in _blocks(tree):
        if not any(b.lineno == a.end_lineno for a, b in zip(body, body[1:])): continue
        raw = lines[body[0].lineno - 1]
        prefix = raw[:body[0].col_offset].rstrip(b" \t")
        if prefix.strip():                                  # a one-line block: `header: a; b`
            if not prefix.endswith(b":") or any(s.lineno != body[0].lineno or s.end_lineno != s.lineno for s in body):
                continue                                    # only plain one-line blocks
            ind = indent_of(header_line) + b"    "
            edits.append((body[0].lineno, len(prefix), body[0].col_offset, b"\n" + ind))
        else:
            ind = None
        for a, b in zip(body, body[1:]):
            if b.lineno != a.end_lineno: continue
            gap = lines[a.end_lineno - 1][a.end_col_offset:b.col_offset]
            if gap.strip() != b";": continue
            # a chain at the start of a line continues at the indentation of the line where `a` starts
            here = ind if ind is not None else indent_of(a.lineno)
            edits.append((a.end_lineno, a.end_col_offset, b.col_offset, b"\n" + here))
    if not edits: return src, 0
    edits = sorted(set(edits), reverse=True)
    for line, a, b, rep in edits:
        raw = lines[line - 1]
        lines[line - 1] = raw[:a] + rep + raw[b:]
    new = b"".join(lines).decode()
    if not _same(src, new): return src, 0
    return new, len(edits)


def split_file(path: Path, check: bool = False) -> int:
    "Split the chains in one .py file or notebook; returns the number of splits (written unless `check`)."
    text = path.read_text()
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        n = 0
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code": continue
            src = "".join(cell["source"])
            if any(line.lstrip().startswith(("%", "!")) for line in src.splitlines()): continue
            new, k = split_source(src, keep_last_semicolon=True)
            if k:
                n += k
                cell["source"] = new.splitlines(keepends=True)
        if n and not check:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        return n
    new, n = split_source(text)
    if n and not check: path.write_text(new)
    return n


def _files(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*")
                              if q.suffix in (".py", ".ipynb") and ".ipynb_checkpoints" not in q.parts)
        else:
            yield p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when a chain would be split")
    a = ap.parse_args(argv)
    total = 0
    for f in _files(a.paths):
        n = split_file(f, check=a.check)
        if n: print(f"{f}: {n} {'to split' if a.check else 'split'}")
        total += n
    print(f"{total} statement chains {'to split' if a.check else 'split'}")
    return 1 if (a.check and total) else 0


if __name__ == "__main__":
    sys.exit(main())
