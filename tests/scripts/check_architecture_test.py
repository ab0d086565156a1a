#!/usr/bin/env python3
"""Breaks scripts/check_architecture.py must name, made in a temporary tree:
a function one line over the limit (in the library, the tools and the tests),
and a call from gl/cache/ to a function defined in api/ (objects compiled
here, read with nm), which passes once the definition moves to util/.

Usage: check_architecture_test.py [--cxx C++ compiler] [--nm nm]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "..", "..", "scripts", "check_architecture.py")
sys.path.insert(0, os.path.dirname(CHECKER))
import check_architecture as ca  # noqa: E402

TOOLS = {"cxx": os.environ.get("CXX", "c++"), "nm": "nm"}
OBJECTS = os.path.join("build", ca.OBJECT_DIR)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def function_of(lines, name="Long"):
    """A function whose braces span `lines` lines."""
    body = "".join(f"  x += {i};\n" for i in range(lines - 3))
    return f"int {name}(int x) {{\n{body}  return x;\n}}\n"


def run_checker(root, *args):
    p = subprocess.run([sys.executable, CHECKER, "--root", root, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class FunctionLength(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="gld_arch_")
        self.addCleanup(shutil.rmtree, self.root)

    def test_limit_holds_everywhere(self):
        for rel in ("gl_delegate/api/a.cc", "tools/b.cc", "tests/model/c_test.cc", "support/d.cc", "examples/e.cc"):
            write(self.root, rel, function_of(ca.MAX_FUNCTION_LINES) + function_of(ca.MAX_FUNCTION_LINES + 1, "Over"))
        rc, out = run_checker(self.root)
        self.assertEqual(rc, 1, out)
        for rel in ("gl_delegate/api/a.cc", "tools/b.cc", "tests/model/c_test.cc", "support/d.cc", "examples/e.cc"):
            self.assertIn(f"{rel}:{ca.MAX_FUNCTION_LINES + 1}: function of {ca.MAX_FUNCTION_LINES + 1} lines "
                          f"(limit {ca.MAX_FUNCTION_LINES}): Over", out)
        self.assertNotIn(": Long", out)
        self.assertIn("check_architecture: 5 break(s)", out)

    def test_at_the_limit_passes(self):
        write(self.root, "gl_delegate/gl/a.cc", function_of(ca.MAX_FUNCTION_LINES))
        write(self.root, "tests/b_test.cc", function_of(ca.MAX_FUNCTION_LINES))
        rc, out = run_checker(self.root)
        self.assertEqual(rc, 0, out)

    def test_names_a_qualified_function(self):
        body = "".join(f"  x += {i};\n" for i in range(ca.MAX_FUNCTION_LINES))
        write(self.root, "tools/q.cc", f"StatusOr<int> Reader::Read(const Shape& s,\n    int x) const {{\n{body}}}\n")
        self.assertEqual([(n, start) for n, start, _ in ca.long_functions(os.path.join(self.root, "tools/q.cc"))],
                         [("Reader::Read", 2)])


class Calls(unittest.TestCase):
    """gl/cache/user.cc calls PrecisionName; where it is defined decides."""

    def setUp(self):
        if not (shutil.which(TOOLS["cxx"]) and shutil.which(TOOLS["nm"])):
            self.skipTest(f"no {TOOLS['cxx']} or {TOOLS['nm']}")
        self.root = tempfile.mkdtemp(prefix="gld_arch_")
        self.addCleanup(shutil.rmtree, self.root)
        write(self.root, "gl_delegate/util/inline.h",
              "#pragma once\ninline int Twice(int x) { return 2 * x; }\n")
        write(self.root, "gl_delegate/gl/cache/user.cc",
              '#include "util/inline.h"\nconst char* PrecisionName(int p);\n'
              "const char* CacheKey(int p) { return Twice(p) ? PrecisionName(p) : \"\"; }\n")

    def define_in(self, layer_dir):
        """PrecisionName in gl_delegate/<layer_dir>/names.cc (any other copy removed)."""
        for d in ("api", "util"):
            path = os.path.join(self.root, "gl_delegate", d, "names.cc")
            if os.path.exists(path):
                os.remove(path)  # its object stays in the build tree, stale
        write(self.root, f"gl_delegate/{layer_dir}/names.cc",
              '#include "util/inline.h"\nconst char* PrecisionName(int p) { return Twice(p) ? "fp16" : "fp32"; }\n')
        self.compile(f"gl_delegate/{layer_dir}/names.cc")

    def compile(self, rel):
        obj = os.path.join(self.root, OBJECTS, os.path.relpath(rel, "gl_delegate").replace("..", "__") + ".o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run([TOOLS["cxx"], "-std=c++17", "-fPIC", "-c", "-I", os.path.join(self.root, "gl_delegate"),
                        os.path.join(self.root, rel), "-o", obj], check=True)

    def check(self):
        return run_checker(self.root, "--build-dir", os.path.join(self.root, "build"), "--nm", TOOLS["nm"])

    def test_a_call_up_is_named(self):
        self.compile("gl_delegate/gl/cache/user.cc")
        self.define_in("api")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("gl_delegate/gl/cache/user.cc: gl/cache/ calls PrecisionName(int), defined in api/ "
                      "(gl_delegate/api/names.cc), which is not below it", out)
        self.assertNotIn("Twice", out)  # inline: in both objects, weak
        self.assertIn("check_architecture: 1 break(s)", out)

    def test_a_call_down_passes_and_stale_objects_do_not_count(self):
        self.compile("gl_delegate/gl/cache/user.cc")
        self.define_in("api")
        self.define_in("util")
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertIn("(includes and calls)", out)

    def test_cpu_kernels_objects_are_mapped(self):
        write(self.root, "cpu_kernels/kernel.cc",
              "const char* PrecisionName(int p);\nconst char* KernelName() { return PrecisionName(0); }\n")
        self.compile("gl_delegate/gl/cache/user.cc")
        self.compile("gl_delegate/../cpu_kernels/kernel.cc")
        self.define_in("api")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"cpu_kernels/kernel\.cc: \S+/ calls PrecisionName\(int\), defined in api/")

    def test_a_source_without_object_is_a_break(self):
        self.define_in("util")  # user.cc is not compiled
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("no object of 1 library source(s)", out)
        self.assertIn("gl_delegate/gl/cache/user.cc", out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default=TOOLS["cxx"])
    ap.add_argument("--nm", default=TOOLS["nm"])
    args, rest = ap.parse_known_args()
    TOOLS.update(cxx=args.cxx, nm=args.nm)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
