#!/usr/bin/env python3
"""Checks the library's architecture rules; exits 1 naming each break.

1. Layers point down only. Each library folder is a layer; an #include of a
   project header from another folder must go to a layer the including one
   may depend on (LAYERS below). Rooms of gl/ (gl/egl, gl/cache, gl/codegen,
   gl/) have an order of their own.
2. No function in gl/ or runtime/ is longer than MAX_FUNCTION_LINES lines
   (from the line of its opening brace to the line of its closing brace).

Usage: scripts/check_architecture.py [--root DIR] [--list-edges]
"""
import argparse
import os
import re
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
VOCABULARY = {"gldelegate/status.hpp", "gldelegate/types.hpp", "gldelegate/custom_op.hpp"}
MAX_FUNCTION_LINES = 120
LONG_FUNCTION_DIRS = ("gl_delegate/gl", "gl_delegate/runtime")

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


def strip_code(text):
    """Blanks comments, strings and character literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = ")" + (m.group(1) if m else "") + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j + 1))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


FUNC_HEAD = re.compile(r"\)\s*(const\s*)?(override\s*)?(noexcept\s*)?(->\s*[\w:<>,\s*&]+)?\s*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\(")


def long_functions(path):
    """(name, first line, lines) of top-level function bodies over the limit."""
    text = strip_code(open(path, encoding="utf-8").read())
    found = []
    depth = 0
    stack = []  # (is_function, start_line, head)
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            head = text[max(0, i - 300):i]
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
                    name = re.sub(r"\s+", " ", head)[-100:]
                    found.append((name, start, line - start + 1))
            depth -= 1
    return found


def check_function_lengths(root):
    breaks = []
    for d in LONG_FUNCTION_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(".cc"):
                    full = os.path.join(dirpath, f)
                    for name, start, n in long_functions(full):
                        breaks.append(f"{os.path.relpath(full, root)}:{start}: function of {n} lines "
                                      f"(limit {MAX_FUNCTION_LINES}): {name}")
    return breaks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--list-edges", action="store_true", help="print every include edge between layers")
    args = ap.parse_args()
    breaks = check_layers(args.root, args.list_edges) + check_function_lengths(args.root)
    for b in breaks:
        print(b)
    if breaks:
        print(f"check_architecture: {len(breaks)} break(s)")
        return 1
    print("check_architecture: layers point down only; no function in gl/ or runtime/ is over "
          f"{MAX_FUNCTION_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
