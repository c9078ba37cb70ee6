"""Wrap lines over 120 characters in .py files and notebooks (`make format`), one line at a time.

    python .ci/wrap_lines.py [--check] [--width 120] PATH...    # files, folders (*.py, *.ipynb) or notebooks

`ruff format` would fix E501 by rewriting every file in black's style (and every nbdev one-line guard
`if bad: raise ValueError(...)`). This tool touches only the lines that are too long, trying in turn:

1. a comment that makes the line long moves onto its own line(s) above the line, wrapped;
2. a one-line block `if c: stmt` (any `header: stmt`) becomes a header and an indented block;
3. a long string literal splits at a space into adjacent literals (Python joins them at compile time), wrapped
   in parentheses when it is not already inside brackets; f-strings split only outside `{...}`;
4. a long `from m import a, b, ...` wraps its names in parentheses, aligned under the first;
5. otherwise the one statement (or the compound statement's header) is formatted by `ruff format`;
6. a line of a triple-quoted docstring breaks at its last space that fits (the only edit that changes a string,
   and only its line breaks: docstrings are compared word by word).

An edit is kept only if the new source parses to the same syntax tree (positions aside; 6. aside): the
program is unchanged. Cells with IPython magics or syntax errors are left alone, and so is a line no edit shortens.
`--check` changes nothing and exits 1 when a line would be wrapped.
"""
from __future__ import annotations

import argparse, ast, io, json, re, subprocess, sys, textwrap, tokenize
from pathlib import Path

__all__ = ["wrap_source", "wrap_file"]

RUFF = str(Path(sys.executable).with_name("ruff"))


def _dump(src: str, loose_docstrings: bool) -> str:
    tree = ast.parse(src)
    if loose_docstrings:                    # a docstring's line breaks are layout: compare its words only
        for n in ast.walk(tree):
            body = getattr(n, "body", None)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and \
                    isinstance(body[0], ast.Expr) and isinstance(getattr(body[0].value, "value", None), str):
                body[0].value.value = " ".join(body[0].value.value.split())
    return ast.dump(tree)


def _same(a: str, b: str, loose_docstrings: bool = False) -> bool:
    try:
        return _dump(a, loose_docstrings) == _dump(b, loose_docstrings)
    except SyntaxError:
        return False


def _docstrings(tree) -> list[ast.Expr]:
    out = []
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and \
                isinstance(body[0], ast.Expr) and isinstance(getattr(body[0].value, "value", None), str):
            out.append(body[0])
    return out


def _fix_docstring(lines: list[str], i: int, width: int, tree) -> list[str] | None:
    "6. Break line i of a triple-quoted docstring at its last space that fits, continuing at the docstring's indent."
    for d in _docstrings(tree):
        if not d.lineno <= i + 1 <= d.end_lineno: continue
        first = lines[d.lineno - 1][d.col_offset:]
        if not re.match(r"[rRuU]?(\"\"\"|\'\'\')", first): return None
        line = lines[i]
        start = d.col_offset + 4 if i + 1 == d.lineno else _indent(line)   # never break inside the opening quotes
        cut = line.rfind(" ", start, width + 1)
        if cut <= start or not line[:cut].strip(): return None
        return lines[:i] + [line[:cut].rstrip(), " " * d.col_offset + line[cut + 1:]] + lines[i + 1:]
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _tokens(src: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(src).readline))


def _fix_comment(lines: list[str], i: int, width: int, toks) -> list[str] | None:
    "1. Move line i's trailing comment above it, wrapped to `width`."
    com = [t for t in toks if t.type == tokenize.COMMENT and t.start[0] == i + 1]
    if not com or com[0].string.startswith("#|"): return None      # nbdev directives stay as they are
    c = com[0]
    code = lines[i][:c.start[1]].rstrip()
    ind = " " * _indent(lines[i])
    text = c.string.lstrip("#").strip()
    wrapped = textwrap.wrap(text, width - len(ind) - 2, break_long_words=False, break_on_hyphens=False) or [""]
    return lines[:i] + [f"{ind}# {w}" for w in wrapped] + ([code] if code.strip() else []) + lines[i + 1:]


def _blocks(tree):
    "Every statement list in `tree` (bodies, else/finally blocks, except handlers, match cases)."
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt): yield body
        for h in getattr(node, "handlers", None) or []: yield h.body
        for c in getattr(node, "cases", None) or []: yield c.body


def _fix_block(lines: list[str], i: int, width: int, tree) -> list[str] | None:
    "2. `header: stmt` on line i -> `header:` and `stmt` indented one level deeper."
    for body in _blocks(tree):
        s = body[0]
        if s.lineno != i + 1 or len(body) != 1: continue
        line = lines[i]
        head = line[:s.col_offset]
        if not head.strip() or not head.rstrip().endswith(":"): continue
        ind = " " * (_indent(line) + 4)
        return lines[:i] + [head.rstrip(), ind + line[s.col_offset:]] + lines[i + 1:]
    return None


def _string_split_points(tok: str) -> list[int]:
    "Offsets in the literal `tok` just after a space where it can be cut in two (outside f-string fields)."
    m = re.match(r"([rRbBuUfF]*)('|\")", tok)
    if not m or tok[len(m.group(1)):].startswith(m.group(2) * 3): return []
    prefix, is_f = m.group(1), "f" in m.group(1).lower()
    raw = "r" in prefix.lower()
    out, depth, k = [], 0, len(prefix) + 1
    while k < len(tok) - 1:
        ch = tok[k]
        if ch == "\\" and not raw:
            k += 2
            continue
        if is_f and ch in "{}":
            if tok[k:k + 2] in ("{{", "}}"):
                k += 2
                continue
            depth += 1 if ch == "{" else -1
        elif ch == " " and depth == 0 and k + 1 < len(tok) - 1:
            out.append(k + 1)
        k += 1
    return out


def _fix_string(lines: list[str], i: int, width: int, toks) -> list[str] | None:
    "3. Split the string literal that crosses `width` on line i at its last space that fits."
    depth, best = 0, None
    for t in toks:
        if t.type == tokenize.OP and t.string in "([{": depth += 1
        if t.type == tokenize.OP and t.string in ")]}": depth -= 1
        if t.type == tokenize.STRING and t.start[0] == i + 1 and t.end[0] == i + 1 and t.end[1] > width:
            best = (t, depth)
            break
    if best is None: return None
    t, depth = best
    line, (c0, c1) = lines[i], (t.start[1], t.end[1])
    tok = line[c0:c1]
    m = re.match(r"([rRbBuUfF]*)('|\")", tok)
    prefix, q = m.group(1), m.group(2)
    wrap = depth == 0
    lim = width - c0 - (2 if wrap else 1) - 1          # room for the closing quote (and the opening paren)
    cuts = [k for k in _string_split_points(tok) if k <= lim]
    if not cuts: return None
    k = cuts[-1]
    first, rest = tok[:k] + q, tok[k:]
    plain = prefix.replace("f", "").replace("F", "")
    if "f" in prefix.lower() and "{" not in first[len(prefix):]: first = plain + first[len(prefix):]
    p2 = prefix if ("f" not in prefix.lower() or "{" in rest) else plain
    second = p2 + q + rest
    col = c0 + (1 if wrap else 0)
    new1 = line[:c0] + ("(" if wrap else "") + first
    new2 = " " * col + second + (")" if wrap else "") + line[c1:]
    return lines[:i] + [new1, new2] + lines[i + 1:]


def _fix_import(lines: list[str], i: int, width: int, tree) -> list[str] | None:
    "4a. `from m import a, b, ...` on line i -> `from m import (a, b,` with the names wrapped under the first one."
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.lineno == i + 1 and all(a.asname is None for a in n.names):
            ind = " " * n.col_offset
            if lines[i][:n.col_offset].strip(): return None
            rest = lines[n.end_lineno - 1][n.end_col_offset:]
            if rest.strip() and not rest.strip().startswith("#"): return None
            head = f"{ind}from {'.' * n.level}{n.module or ''} import ("
            body = textwrap.wrap(", ".join(a.name for a in n.names) + ")", width - len(head), break_long_words=False,
                                 break_on_hyphens=False)
            new = [head + body[0]] + [" " * len(head) + b for b in body[1:]]
            return lines[:i] + new + lines[n.end_lineno:]
    return None


def _ruff(src: str, width: int) -> str | None:
    r = subprocess.run([RUFF, "format", "--isolated", "--line-length", str(width), "--config",
                        'format.quote-style="preserve"', "-"], input=src, capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def _fix_statement(lines: list[str], i: int, width: int, tree) -> list[str] | None:
    "4. `ruff format` the innermost statement on line i (a compound statement: only its header)."
    best = None
    for n in ast.walk(tree):
        if isinstance(n, ast.stmt) and n.lineno <= i + 1 <= n.end_lineno:
            if best is None or (n.lineno, -n.end_lineno) >= (best.lineno, -best.end_lineno): best = n
    if best is None: return None
    n = best
    body = getattr(n, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        a, b = n.lineno - 1, body[0].lineno - 1        # header lines [a, b)
        if not a <= i < b or body[0].lineno == n.lineno: return None
        while b > a + 1 and (not lines[b - 1].strip() or lines[b - 1].strip().startswith("#")): b -= 1
        stub = True
    else:
        a, b, stub = n.lineno - 1, n.end_lineno, False
        rest = lines[b - 1][n.end_col_offset:] if n.end_lineno == b else ""
        if rest.strip() and not rest.strip().startswith("#"): return None
    ind = _indent(lines[a])
    if n.col_offset != ind: return None
    chunk = lines[a:b]
    if any(l.strip() and _indent(l) < ind for l in chunk): return None
    src = "\n".join(l[ind:] for l in chunk) + "\n" + ("    pass\n" if stub else "")
    out = _ruff(src, width - ind)
    if out is None: return None
    new = out.rstrip("\n").split("\n")
    if stub:
        if new[-1].strip() != "pass": return None
        new = new[:-1]
    return lines[:a] + [(" " * ind + l) if l else l for l in new] + lines[b:]


def wrap_source(src: str, width: int = 120) -> tuple[str, int]:
    """`src` with its lines over `width` wrapped (see the module docstring) and the number of edits; `src`
    unchanged when it does not parse. Every kept edit leaves the syntax tree as it was."""
    try:
        ast.parse(src)
    except SyntaxError:
        return src, 0
    n_edits, skip = 0, set()
    for _ in range(2000):
        lines = src.split("\n")
        long = [i for i, l in enumerate(lines) if len(l) > width and i not in skip]
        if not long: break
        i = long[0]
        tree, toks = ast.parse(src), _tokens(src)
        fixes = (lambda: _fix_comment(lines, i, width, toks), lambda: _fix_block(lines, i, width, tree),
                    lambda: _fix_string(lines, i, width, toks), lambda: _fix_import(lines, i, width, tree),
                    lambda: _fix_statement(lines, i, width, tree), lambda: _fix_docstring(lines, i, width, tree))
        for fix in fixes:
            try:
                new = fix()
            except (SyntaxError, tokenize.TokenError, ValueError, IndexError):
                new = None
            if new is None: continue
            cand = "\n".join(new)
            if cand != src and _same(src, cand, loose_docstrings=fix is fixes[-1]):
                src, n_edits = cand, n_edits + 1
                break
        else:
            skip.add(i)
            continue
        # line numbers move: forget the skipped ones that could be the same line
        skip = {s for s in skip if s < i}
    return src, n_edits


def _is_magic(src: str) -> bool:
    return any(l.lstrip().startswith(("%", "!", "?")) for l in src.split("\n"))


def wrap_file(path: Path, width: int = 120, check: bool = False) -> int:
    "Wrap the long lines of one .py file or notebook in place; return the number of edits (none made if `check`)."
    text = path.read_text()
    total = 0
    if path.suffix == ".ipynb":
        nb = json.loads(text)
        for c in nb["cells"]:
            src = "".join(c["source"])
            if c["cell_type"] != "code" or _is_magic(src): continue
            new, n = wrap_source(src, width)
            if n:
                total += n
                parts = new.split("\n")
                c["source"] = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        if total and not check: path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    else:
        new, total = wrap_source(text, width)
        if total and not check: path.write_text(new)
    return total


def _files(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(
                q for q in p.rglob("*") if q.suffix in (".py", ".ipynb") and ".ipynb_checkpoints" not in q.parts
            )
        else:
            yield p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a line would be wrapped")
    ap.add_argument("--width", type=int, default=120, help="the longest line allowed (ruff's line-length)")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args(argv)
    changed = 0
    for f in _files(args.paths):
        n = wrap_file(f, args.width, args.check)
        if n:
            changed += 1
            print(f"{f}: {n} line(s) {'would be ' if args.check else ''}wrapped")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
