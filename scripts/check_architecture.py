#!/usr/bin/env python3
"""Checks the library's architecture rules; exits 1 naming each break.

1. Layers point down only. Each library folder is a layer; an #include of a
   project header from another folder must go to a layer the including one
   may depend on (LAYERS below). Rooms of gl/ (gl/egl, gl/cache, gl/codegen,
   gl/) and of cpu_kernels/ (the interface at its root, micro/, ops/ and
   xnnpack/, services/) have an order of their own.
2. Calls point down too (with --build-dir): each symbol an object file of
   the library leaves undefined and another of its objects defines must be
   defined in the calling object's layer or one it may depend on. `nm` reads
   the objects of gldelegate_objects in the build tree; each object is mapped
   to its source, and so to a layer, like an #include.
3. No function is longer than MAX_FUNCTION_LINES lines (from the line of its
   opening brace to the line of its closing brace), in the library, the
   support library, the tools, the Python module, the tests and the examples.

Usage: scripts/check_architecture.py [--root DIR] [--build-dir DIR] [--nm NM] [--list-edges]
"""
import argparse
import os
import re
import subprocess
import sys

# folder -> folders it may include from (besides itself). The public
# vocabulary (gldelegate/status.hpp, gldelegate/types.hpp) is open to all;
# the rest of the public headers belong to api/.
LAYERS = {
    "util": set(),
    "graph": {"util"},
    "model": {"graph", "util"},
    # Above cpu_kernels/: its interface and ops/ headers (no micro/ or xnnpack/),
    # and services/ (no headers: the definitions of what the interface
    # declares, EvaluateNode, FindCpuKernel, ...).
    "transforms": {"graph", "util", "cpu_kernels", "cpu_kernels/ops", "cpu_kernels/services"},
    "partition": {"graph", "util"},
    # cpu_kernels/ has rooms of its own: its root is the kernel interface
    # (kernel_interface.h, kernel_helpers.h, model_services.h); micro/ the
    # microkernels, a folder each (no op kernel, no XNNPACK); ops/ the op
    # kernels and xnnpack/ the XNNPACK operators they run, one level (the
    # XNNPACK stages of CONV_2D and the integer kernels are op kernels too);
    # services/ what the runtime calls (the registry, EvaluateNode).
    "cpu_kernels": {"graph", "util"},
    "cpu_kernels/micro": {"cpu_kernels", "graph", "util"},
    "cpu_kernels/xnnpack": {"cpu_kernels/ops", "cpu_kernels/micro", "cpu_kernels", "graph", "util"},
    "cpu_kernels/ops": {"cpu_kernels/xnnpack", "cpu_kernels/micro", "cpu_kernels", "graph", "util"},
    "cpu_kernels/services": {"cpu_kernels/ops", "cpu_kernels/xnnpack", "cpu_kernels/micro", "cpu_kernels",
                             "graph", "util"},
    "gl/egl": {"graph", "util"},
    "gl/cache": {"gl/egl", "graph", "util"},
    "gl/codegen": {"gl/egl", "graph", "partition", "util"},
    "gl": {"gl/egl", "gl/cache", "gl/codegen", "graph", "partition", "util"},
    "runtime": {"gl", "gl/egl", "gl/cache", "gl/codegen", "graph", "partition", "transforms", "cpu_kernels",
                "cpu_kernels/ops", "cpu_kernels/services", "util"},
    "api": {"runtime", "gl", "gl/egl", "gl/cache", "gl/codegen", "graph", "partition", "transforms",
            "cpu_kernels", "cpu_kernels/services", "model", "util", "public"},
    # The TFLite delegate: TFLite's interpreter as another front end over the
    # runtime, beside the API (its C entry shares the API's GldOptions).
    "delegate": {"api", "runtime", "gl", "gl/egl", "gl/cache", "gl/codegen", "graph", "partition",
                 "transforms", "cpu_kernels", "cpu_kernels/services", "model", "util", "public"},
}
# gldelegate/options.hpp and its table options.inc: the one check of
# gld::Options (defined in runtime/options.cc, the lowest layer that calls
# it: its gpu_deny_ops check reads the op names of graph/).
VOCABULARY = {"gldelegate/status.hpp", "gldelegate/types.hpp", "gldelegate/custom_op.hpp",
              "gldelegate/options.hpp", "gldelegate/options.inc"}
MAX_FUNCTION_LINES = 120
LONG_FUNCTION_DIRS = ("gl_delegate", "cpu_kernels", "support", "tools", "python/src", "tests", "examples")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of_source(rel):
    """Layer of a file under the library ('gl_delegate/gl/egl/x.cc' -> 'gl/egl')."""
    parts = rel.split("/")
    if parts[0] == "cpu_kernels":  # its rooms, or the interface at its root
        if len(parts) >= 3 and parts[1] in ("micro", "xnnpack", "ops", "services"):
            return "cpu_kernels/" + parts[1]
        return "cpu_kernels"
    if parts[0] != "gl_delegate" or len(parts) < 3:
        return None
    if parts[1] == "include":
        return "public"
    if parts[1] == "gl":
        if len(parts) >= 4 and parts[2] in ("egl", "cache", "codegen"):
            return "gl/" + parts[2]
        return "gl"
    return parts[1]


def layer_of_include(path):
    parts = path.split("/")
    if parts[0] == "gldelegate":
        if path in VOCABULARY or path.endswith("_generated.h"):
            return None  # vocabulary and generated schema code: open to all
        return "public"
    if parts[0] == "cpu_kernels":  # its rooms, or the interface at its root
        if len(parts) >= 3 and parts[1] in ("micro", "xnnpack", "ops", "services"):
            return "cpu_kernels/" + parts[1]
        return "cpu_kernels"
    if parts[0] == "gl":
        if len(parts) >= 3 and parts[1] in ("egl", "cache", "codegen"):
            return "gl/" + parts[1]
        return "gl"
    if parts[0] in LAYERS:
        return parts[0]
    return None


def include_edges(root):
    for top in ("gl_delegate", "cpu_kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".inc", ".hpp")):
                    continue
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, root)
                src = layer_of_source(rel)
                if src is None:
                    continue
                with open(full, encoding="utf-8") as fh:
                    for lineno, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if m:
                            yield rel, lineno, src, m.group(1), layer_of_include(m.group(1))


def check_layers(root, list_edges):
    breaks = []
    for rel, lineno, src, inc, dst in include_edges(root):
        if dst is None or dst == src:
            continue
        if list_edges:
            print(f"{src} -> {dst}  ({rel}:{lineno} {inc})")
        if src == "public":
            if dst != "public":
                breaks.append(f"{rel}:{lineno}: public header includes internal '{inc}'")
            continue
        if dst not in LAYERS.get(src, set()):
            breaks.append(f"{rel}:{lineno}: {src}/ may not include '{inc}' ({dst}/ is not below it)")
    return breaks


CODE_SPECIAL = re.compile(r"//|/\*|R\"|[\"']")
RAW_STRING = re.compile(r'R"([^(]*)\(')


def strip_code(text):
    """Blanks comments, strings and character literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        m = CODE_SPECIAL.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        i = m.start()
        token = m.group()
        if token == "//":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif token == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif token == 'R"':
            m = RAW_STRING.match(text, i)
            end = ")" + (m.group(1) if m else "") + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append("\n" * text.count("\n", i, j))
            i = j
        else:
            j = i + 1
            while j < n and text[j] != token:
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j + 1))
            i = j + 1
    return "".join(out)


FUNC_HEAD = re.compile(r"\)\s*(const\s*)?(override\s*)?(noexcept\s*)?(->\s*[\w:<>,\s*&]+)?\s*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\(")


BRACE = re.compile(r"[{}]")
FUNC_NAME = re.compile(r"((?:[A-Za-z_]\w*::)*~?[A-Za-z_]\w*)\s*\(")


def function_name(head):
    """'StatusOr<int> Reader::Read(const X& x) const' -> 'Reader::Read' (the head, shortened, without one)."""
    flat = re.sub(r"\s+", " ", head).strip()
    m = FUNC_NAME.search(flat)
    return m.group(1) if m else flat[-100:]


def long_functions(path):
    """(name, first line, lines) of top-level function bodies over the limit."""
    text = strip_code(open(path, encoding="utf-8").read())
    found = []
    depth = 0
    stack = []  # (is_function, start_line, head)
    line, counted = 1, 0
    for m in BRACE.finditer(text):
        i, c = m.start(), m.group()
        line += text.count("\n", counted, i)
        counted = i
        if c == "{":
            head = text[max(0, i - 600):i]
            head_line = head.split(";")[-1].split("}")[-1].split("{")[-1]
            is_func = bool(FUNC_HEAD.search(head_line.rstrip())) and not CONTROL.search(head_line.split("\n")[-1])
            # A function inside a function (a lambda) counts towards the outer one.
            if any(s[0] for s in stack):
                is_func = False
            stack.append((is_func, line, head_line.strip()))
            depth += 1
        elif c == "}":
            if stack:
                is_func, start, head = stack.pop()
                if is_func and line - start + 1 > MAX_FUNCTION_LINES:
                    found.append((function_name(head), start, line - start + 1))
            depth -= 1
    return found


def long_function_sources(root):
    """The hand-written .cc files the length limit covers (generated code is not)."""
    for d in LONG_FUNCTION_DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(root, d)):
            dirs[:] = sorted(x for x in dirs if x != "generated")
            for f in sorted(files):
                if f.endswith(".cc") and "_generated" not in f:
                    yield os.path.join(dirpath, f)


def check_function_lengths(root):
    breaks = []
    for full in long_function_sources(root):
        rel = os.path.relpath(full, root).replace(os.sep, "/")
        for name, start, n in long_functions(full):
            breaks.append(f"{rel}:{start}: function of {n} lines (limit {MAX_FUNCTION_LINES}): {name}")
    return breaks


# ---- Calls: the symbols each object of the library uses, by layer ----

# nm's letters for a global symbol an object defines once for the whole
# program (code, data, read-only data, bss, small data, an ifunc). Weak and
# unique symbols (W, V, u: inline functions, templates, vtables of classes
# without a key function) are made by every object that uses them, from a
# header: the include check covers those.
STRONG_DEFINED = set("TDRBGSi")
OBJECT_DIR = "gl_delegate/CMakeFiles/gldelegate_objects.dir"
NM_BATCH = 400  # objects per nm call (the command line stays short)


def object_sources(root, build_dir):
    """{object path: source path relative to root} of the library's objects
    whose source is in the tree (a stale object of a moved source is not)."""
    top = os.path.join(build_dir, OBJECT_DIR)
    found = {}
    for dirpath, _, files in os.walk(top):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            obj = os.path.join(dirpath, f)
            # CMake names an object by its source's path from gl_delegate/,
            # with ".." as "__" (cpu_kernels/x.cc -> __/cpu_kernels/x.cc.o).
            parts = [".." if p == "__" else p for p in os.path.relpath(obj, top)[:-2].split(os.sep)]
            src = os.path.normpath(os.path.join("gl_delegate", *parts)).replace(os.sep, "/")
            if os.path.isfile(os.path.join(root, src)):
                found[obj] = src
    return found


def read_symbols(nm, objects):
    """{object: (strong symbols it defines, symbols it leaves undefined)}, mangled."""
    table = {obj: (set(), set()) for obj in objects}
    objects = sorted(objects)
    for i in range(0, len(objects), NM_BATCH):
        batch = objects[i:i + NM_BATCH]
        out = subprocess.run([nm, "-g", "-A", "--no-sort"] + batch, check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) < 3:
                continue
            obj = fields[0].rsplit(":", 1)[0]  # "obj.o:0000 T name", "obj.o:    U name"
            kind, name = fields[-2], fields[-1]
            if obj not in table:
                continue
            if kind == "U":
                table[obj][1].add(name)
            elif kind in STRONG_DEFINED:
                table[obj][0].add(name)
    return table


def demangle(names):
    if not names:
        return {}
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}
    return dict(zip(names, out.splitlines()))


def sources_without_objects(root, sources):
    """Library sources (gl_delegate/**.cc, cpu_kernels/**.cc) the build tree has no object of."""
    have = set(sources)
    missing = []
    for top in ("gl_delegate", "cpu_kernels"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(".cc"):
                    rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                    if rel not in have:
                        missing.append(rel)
    return sorted(missing)


def symbol_breaks(sources, table, list_edges=False):
    """Each (object's source, layer, symbol, defining source, its layer) that points up."""
    defined_in = {}
    for obj, (defined, _) in table.items():
        for name in defined:
            defined_in.setdefault(name, []).append(sources[obj])
    found = []
    for obj in sorted(table, key=lambda o: sources[o]):
        src = sources[obj]
        layer = layer_of_source(src)
        if layer is None:
            continue
        for name in sorted(table[obj][1]):
            owners = [(o, layer_of_source(o)) for o in defined_in.get(name, [])]
            owners = [(o, l) for o, l in owners if l is not None]
            if not owners:
                continue  # defined outside the library's objects (libstdc++, EGL, ...)
            if any(l == layer or l in LAYERS.get(layer, set()) for _, l in owners):
                continue
            found.append((src, layer, name, owners[0][0], owners[0][1]))
    return found


def check_symbols(root, build_dir, nm="nm"):
    """Breaks of rule 2; an empty or partial build is a break too (build the library first)."""
    sources = object_sources(root, build_dir)
    missing = sources_without_objects(root, sources.values())
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        return [f"{build_dir}: no object of {len(missing)} library source(s) under {OBJECT_DIR} ({shown}): "
                f"build gldelegate_objects before the check"]
    table = read_symbols(nm, list(sources))
    found = symbol_breaks(sources, table)
    names = demangle(sorted({f[2] for f in found}))
    return [f"{src}: {layer}/ calls {names.get(name, name)}, defined in {def_layer}/ ({def_src}), "
            f"which is not below it" for src, layer, name, def_src, def_layer in found]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--build-dir", help="a build tree of the library: also check the calls between its objects (nm)")
    ap.add_argument("--nm", default="nm", help="the nm to read the objects with (default: nm)")
    ap.add_argument("--list-edges", action="store_true", help="print every include edge between layers")
    args = ap.parse_args()
    breaks = check_layers(args.root, args.list_edges)
    if args.build_dir:
        breaks += check_symbols(args.root, args.build_dir, args.nm)
    breaks += check_function_lengths(args.root)
    for b in breaks:
        print(b)
    if breaks:
        print(f"check_architecture: {len(breaks)} break(s)")
        return 1
    calls = "includes and calls" if args.build_dir else "includes"
    print(f"check_architecture: layers point down only ({calls}); no function is over {MAX_FUNCTION_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
