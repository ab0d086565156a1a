#!/usr/bin/env python3
"""Checks that every repository path the docs name exists; exits 1 naming each
one that does not (file:line: path).

Which files: every Markdown file git tracks (README.md, docs/**/*.md,
tools/reference/README.md, ...); without git, README.md and docs/**/*.md.

What counts as a named path:
  - a word inside `backticks` whose first component is a ROOT (below) and
    that holds a '/';
  - outside backticks (prose and fenced blocks), a ROOT/.../name.ext run of
    path characters (it must end in a file extension);
  - the target of a Markdown link [text](target) that is not a URL; with
    '#anchor', the anchor must be a heading of the target (GitHub's slugs).

How a path resolves (the first base that holds it wins; none: an error):
  - a link target: relative to the folder of the doc that holds it;
  - './x': from the repository root (the docs' commands run there); '../x'
    lies beside the repository (../shared/DESIGN.md) and is not checked;
  - a top-level folder or file of the repository (gl_delegate/, cpu_kernels/,
    tests/, tools/, scripts/, docs/, glsl/, support/, python/, ...): from the
    repository root;
  - a library layer (api/, delegate/, gl/, graph/, model/, partition/,
    runtime/, transforms/, util/): from gl_delegate/, as the #includes write
    them, so `gl/codegen/fusion.h` is gl_delegate/gl/codegen/fusion.h and
    `gl/fusion.h` is an error;
  - gldelegate/: as the #includes write it, the public headers
    (gl_delegate/include/gldelegate/) or the support library's
    (support/include/gldelegate/); or the Python package (python/gldelegate/).
Patterns: '<word>' and '*' match any name, '{a,b}' either; a pattern must
match at least one file. 'x.*' is x with any extension. A trailing
':line' or '#anchor' and trailing punctuation are dropped. Words holding
'…' or '...' are placeholders and are not checked.

Usage: scripts/check_doc_paths.py [--root DIR] [--list]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

LAYERS = ("api", "delegate", "gl", "graph", "model", "partition", "runtime", "transforms", "util")
NOT_ROOTS = {".git", ".cache", "out"}  # top-level names that are not documented paths

BACKTICKS = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
PATH_CHARS = r"[A-Za-z0-9_.+\-/*<>]"
TRAILING = ".,;:)'\""


def roots_of(root):
    tops = {name for name in os.listdir(root) if name not in NOT_ROOTS and not name.startswith("build")}
    return tops | set(LAYERS) | {"gldelegate"}


def bases_of(first, doc_dir, root):
    if first == ".":
        return [root]
    bases = []
    if os.path.exists(os.path.join(root, first)):
        bases.append(root)
    if first in LAYERS:
        bases.append(os.path.join(root, "gl_delegate"))
    if first == "gldelegate":
        bases += [os.path.join(root, "gl_delegate", "include"), os.path.join(root, "support", "include"),
                  os.path.join(root, "python")]
    return bases


def expand_braces(word):
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(word[:m.start()] + alt + word[m.end():])
    return out


def exists(base, rel):
    pattern = re.sub(r"<[^<>/]*>", "*", rel)
    if pattern.endswith(".*"):
        pattern = pattern[:-2] + "*"
    full = os.path.normpath(os.path.join(base, pattern))
    if "*" in pattern:
        return bool(glob.glob(full)), full
    return os.path.exists(full), full


def clean(word):
    word = word.strip()
    word = word.split("#", 1)[0]
    word = re.sub(r":\d+(-\d+)?$", "", word)
    while word and word[-1] in TRAILING:
        word = word[:-1]
    # a word that opens a parenthesis it does not close: "(gl/x.cc"
    word = word.lstrip("(")
    return word


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


_anchor_cache = {}


def anchors_of(path):
    if path not in _anchor_cache:
        seen = {}
        result = set()
        in_fence = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    in_fence = not in_fence
                    continue
                m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
                if m and not in_fence:
                    s = slug(m.group(2))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    result.add(s if n == 0 else f"{s}-{n}")
        _anchor_cache[path] = result
    return _anchor_cache[path]


def doc_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True, check=True)
        files = [f for f in out.stdout.split("\n") if f]
        # untracked docs of a working tree count too
        extra = subprocess.run(["git", "-C", root, "ls-files", "--others", "--exclude-standard", "*.md"],
                               capture_output=True, text=True, check=True)
        files += [f for f in extra.stdout.split("\n") if f]
        if files:
            return sorted(set(files))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "**", "*.md"),
                                                                recursive=True))
    return files


def check_word(word, doc_dir, root, roots):
    """None when word names no repository path; else (path, ok, why)."""
    if "…" in word or "..." in word or "://" in word or "/" not in word:
        return None
    word = clean(word)
    if "/" not in word:
        return None
    first = word.split("/", 1)[0]
    if first not in roots and first not in (".", ".."):
        return None
    inner = word[2:].split("/", 1) if first == "." else []
    if len(inner) == 2 and inner[0] not in roots:
        return None  # './build/x.deb': what a build makes, not the repository's
    if not re.fullmatch(r"[A-Za-z0-9_.+\-/*<>{},]+", word):
        return None
    base_list = bases_of(first, doc_dir, root)
    if first == "..":
        return None  # beside the repository (../shared/): not checked
    for variant in expand_braces(word):
        if not any(exists(b, variant)[0] for b in base_list):
            return (word, False, variant)
    return (word, True, None)


def check_doc(rel, root, roots, listing):
    path = os.path.join(root, rel)
    doc_dir = os.path.dirname(path)
    errors = []
    in_fence = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        words = []
        rest = line
        if not in_fence:
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(doc_dir, file_part)) if file_part else path
                if file_part and not os.path.exists(full):
                    errors.append(f"{rel}:{n}: link {target}: {os.path.relpath(full, root)} does not exist")
                    continue
                if listing:
                    print(f"{rel}:{n}: link {target}")
                if anchor and full.endswith(".md") and anchor not in anchors_of(full):
                    errors.append(f"{rel}:{n}: link {target}: no heading #{anchor} in {os.path.relpath(full, root)}")
            rest = LINK.sub(" ", line)
            for m in BACKTICKS.finditer(rest):
                words += m.group(1).split()
            rest = BACKTICKS.sub(" ", rest)
        # bare paths with a file extension, in prose and fenced blocks
        for m in re.finditer(r"(?<![\w./\-])(" + PATH_CHARS + r"+/" + PATH_CHARS + r"*\.[A-Za-z0-9]+)", rest):
            words.append(m.group(1))
        for word in words:
            result = check_word(word, doc_dir, root, roots)
            if result is None:
                continue
            name, ok, variant = result
            if listing:
                print(f"{rel}:{n}: {name}")
            if not ok:
                where = "" if variant == name else f" ({variant})"
                errors.append(f"{rel}:{n}: {name}{where} does not exist")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--list", action="store_true", help="print every path and link checked")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    roots = roots_of(root)
    errors = []
    docs = doc_files(root)
    for rel in docs:
        errors += check_doc(rel, root, roots, args.list)
    for e in errors:
        print(e)
    if errors:
        print(f"check_doc_paths: {len(errors)} path(s) named in the docs do not exist")
        return 1
    print(f"check_doc_paths: every path named in {len(docs)} docs exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
