#!/usr/bin/env python3
"""gld_inspect --html in a real browser, and gld_benchmark --trace's file.

1. gld_benchmark --backend=gl --enable_op_profiling --json --trace on a
   shared model; the trace is checked against the Trace Event Format.
2. gld_inspect --backend=gl --html --profile=<that json>: headless Chromium
   loads the page (--dump-dom, after its script ran): one element per node
   with its backend class and data attributes, edges, segment boxes, times;
   nothing fetched from elsewhere. A screenshot is decoded and must not be
   blank.
3. The page of every shared model, ADD and CONCATENATION denied to the GPU
   (both backends and their crossings on one page), loads with every node
   drawn.

Exit 77 (CTest's SKIP_RETURN_CODE) where Chromium is missing, or GL is and
GLD_SKIP_GL_TESTS is set.

Usage: check_graph_page.py --inspect PATH --benchmark PATH --models DIR --workdir DIR
"""
import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
MODEL = "hand_landmark_lite.tflite"
MODELS = ["face_detection_short_range.tflite", "face_landmark.tflite", "hand_landmark_lite.tflite",
          "palm_detection_lite.tflite", "pose_detection.tflite", "selfie_segmentation.tflite"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(command, timeout=600):
    env = dict(os.environ, GLD_LOG_LEVEL="off")
    r = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    return r


def check_trace(path, dispatches):
    """The Trace Event Format's rules (JSON object form) for every event."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("%s: no traceEvents array" % path)
    last = None
    counts = {}
    for e in events:
        for key, kind in (("name", str), ("ph", str), ("pid", int), ("tid", int), ("args", dict)):
            if not isinstance(e.get(key), kind):
                fail("trace event without a %s %s: %r" % (kind.__name__, key, e))
        ph = e["ph"]
        counts[ph] = counts.get(ph, 0) + 1
        if ph == "M":
            if e["name"] not in ("process_name", "thread_name", "thread_sort_index"):
                fail("unknown metadata event %r" % e)
            continue
        if not isinstance(e.get("ts"), (int, float)):
            fail("event without ts: %r" % e)
        if last is not None and e["ts"] < last:
            fail("ts goes back at %r" % e)
        last = e["ts"]
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0 or not isinstance(e.get("cat"), str):
                fail("complete event without cat or dur >= 0: %r" % e)
        elif ph == "C":
            if not e["args"] or not all(isinstance(v, (int, float)) for v in e["args"].values()):
                fail("counter without numeric series: %r" % e)
        else:
            fail("unexpected phase %r" % e)
    gl = [e for e in events if e.get("cat") in ("gl_dispatch", "gl_conversion")]
    if len(gl) < dispatches:
        fail("%d dispatch events for %d dispatches per run" % (len(gl), dispatches))
    if counts.get("C", 0) == 0:
        fail("no counter events")
    print("trace: %d events (%s), %d dispatch events" % (len(events), counts, len(gl)))


class PageDom(html.parser.HTMLParser):
    """What the checks need of the DOM Chromium dumped."""

    def __init__(self):
        super().__init__()
        self.nodes, self.edges, self.boxes, self.body, self.external = [], [], [], {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if tag == "g" and "node" in classes:
            self.nodes.append((classes, a))
        if tag == "path" and "edge" in classes and "data-from" in a:
            self.edges.append(classes)
        if tag == "rect" and "segment-box" in classes:
            self.boxes.append(a)
        for key in ("src", "href"):
            if a.get(key):
                self.external.append((tag, a[key]))
        if tag == "link":
            self.external.append((tag, a.get("href")))


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser, args, workdir):
    profile = tempfile.mkdtemp(prefix="chromium-", dir=workdir)
    try:
        return run([browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
                    "--user-data-dir=" + profile] + args, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def check_dom(browser, page, workdir, expect_gpu, expect_times):
    r = chromium(browser, ["--dump-dom", "file://" + os.path.abspath(page)], workdir)
    if r.returncode != 0 or "<svg" not in r.stdout:
        fail("chromium --dump-dom %s: exit %d\n%s" % (page, r.returncode, r.stderr[-2000:]))
    dom = PageDom()
    dom.feed(r.stdout)
    expected = int(dom.body.get("data-nodes", "-1"))
    if expected <= 0 or len(dom.nodes) != expected:
        fail("%s: %d node elements, the page says %d nodes" % (page, len(dom.nodes), expected))
    if len(dom.edges) != int(dom.body.get("data-edges", "-1")):
        fail("%s: %d edges drawn, the page says %s" % (page, len(dom.edges), dom.body.get("data-edges")))
    indices = sorted(int(a["data-node"]) for _, a in dom.nodes)
    if indices != list(range(expected)):
        fail("%s: node elements are not one per node" % page)
    gpu = 0
    for classes, a in dom.nodes:
        backend = a.get("data-backend")
        if backend not in ("gpu", "cpu") or backend not in classes:
            fail("%s: node %s has backend %r and classes %r" % (page, a.get("data-node"), backend, classes))
        for key in ("data-op", "data-label", "data-where", "data-inputs", "data-outputs"):
            if key not in a:
                fail("%s: node %s lacks %s" % (page, a.get("data-node"), key))
        gpu += backend == "gpu"
    if expect_gpu and (gpu == 0 or not dom.boxes):
        fail("%s: no GPU node or no segment box on the GL backend" % page)
    if expect_times and not any("data-time-us" in a for _, a in dom.nodes):
        fail("%s: no node time from --profile" % page)
    if dom.external:
        fail("%s: fetches from elsewhere: %r" % (page, dom.external[:5]))
    print("%s: %d nodes (%d on the GPU), %d edges (%d crossing), %d segment boxes" % (
        os.path.basename(page), len(dom.nodes), gpu, len(dom.edges),
        sum("cross" in c for c in dom.edges), len(dom.boxes)))
    return sum("cross" in c for c in dom.edges)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        fail("%s: PNG depth %d colour type %d interlace %d not handled" % (path, depth, color, interlace))
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            corner = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def check_screenshot(browser, page, workdir):
    shot = os.path.join(workdir, "page.png")
    r = chromium(browser, ["--hide-scrollbars", "--window-size=1400,1000", "--screenshot=" + shot,
                           "file://" + os.path.abspath(page)], workdir)
    if r.returncode != 0 or not os.path.exists(shot):
        fail("chromium --screenshot: exit %d\n%s" % (r.returncode, r.stderr[-2000:]))
    width, height, bpp, rows = png_pixels(shot)
    colours = {}
    for row in rows[::4]:
        for x in range(0, width * bpp, bpp * 4):
            c = row[x:x + 3]
            colours[c] = colours.get(c, 0) + 1
    total = sum(colours.values())
    background = max(colours.values())
    if len(colours) < 8 or background > 0.98 * total:
        fail("screenshot %dx%d looks blank: %d colours, the commonest covers %.1f%%" % (
            width, height, len(colours), 100.0 * background / total))
    print("screenshot %dx%d: %d colours, background %.1f%%" % (width, height, len(colours), 100.0 * background / total))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--inspect", required=True)
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="graph_page_", dir=args.workdir)
    args.models = os.environ.get("GLD_TEST_MODELS") or args.models
    model = os.path.join(args.models, MODEL)
    if not os.path.exists(model):
        print("SKIP: the shared models are not in %s" % args.models)
        return SKIP
    bench, trace, page = (os.path.join(work, n) for n in ("bench.json", "trace.json", "page.html"))
    r = run([args.benchmark, "--graph=" + model, "--backend=gl", "--num_runs=2", "--warmup_runs=1",
             "--enable_op_profiling", "--json=" + bench, "--trace=" + trace])
    if r.returncode != 0:
        if os.environ.get("GLD_SKIP_GL_TESTS", "0") not in ("", "0"):
            print("SKIP: no GL (GLD_SKIP_GL_TESTS): " + r.stderr.strip())
            return SKIP
        fail("gld_benchmark: exit %d: %s" % (r.returncode, r.stderr))
    with open(bench, encoding="utf-8") as f:
        dispatches = json.load(f)["dispatches"]
    check_trace(trace, dispatches)
    r = run([args.inspect, "--graph=" + model, "--backend=gl", "--html=" + page, "--profile=" + bench])
    if r.returncode != 0:
        fail("gld_inspect --html: exit %d: %s" % (r.returncode, r.stderr))
    browser = chromium_binary()
    if browser is None:
        print("SKIP: Chromium is not installed (apt-get install chromium; scripts/install_deps.sh); the trace "
              "was checked, the page was not rendered")
        return SKIP
    check_dom(browser, page, work, expect_gpu=True, expect_times=True)
    check_screenshot(browser, page, work)
    # Every shared model, with ADD and CONCATENATION denied to the GPU so
    # that the pages mix both backends and mark the crossings.
    crossings = 0
    for name in MODELS:
        mixed_page = os.path.join(work, name + ".html")
        r = run([args.inspect, "--graph=" + os.path.join(args.models, name), "--backend=gl",
                 "--gpu_deny_ops=ADD,CONCATENATION", "--html=" + mixed_page])
        if r.returncode != 0:
            fail("gld_inspect --html %s: exit %d: %s" % (name, r.returncode, r.stderr))
        crossings += check_dom(browser, mixed_page, work, expect_gpu=False, expect_times=False)
    if crossings == 0:
        fail("no page marks an edge crossing between CPU and GPU")
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
