"""Where the evidence store keeps its runs and each kind of study, and how such a file is
read and written (evidence/README.md says the layout). One module, so that every tool finds
the same files and opens a compressed one the same way.

    evidence/<gpu>/<stamp>_<commit>.json          runs; <stamp>_<commit>.json.gz when over
                                                  1 MB (ci/tools/compress_run.sh: gzip, which
                                                  the C harness reads as well)
    evidence/<gpu>/studies/<kind>/<name>.json     a study; <name>.json.xz or .json.gz when
                                                  compressed (a large one: samples compress
                                                  well, and only Python reads studies)
"""
import glob
import gzip
import json
import lzma
import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# kind (the folder under studies/) -> the file-name prefix its writer uses
KINDS = {
    "ab": "ab_study_",
    "planted": "ab_planted_",
    "sanitize": "sanitize_",
    "tuning": "tuning_",
    "faulty": "faulty_skip_tile_",
    "gate_reliability": "gate_reliability_",
    "headline_modes": "headline_modes_",
}
SUFFIXES = (".json", ".json.xz", ".json.gz")
XZ_PRESET = 9 | lzma.PRESET_EXTREME
# A study file larger than this is stored compressed (ci/checks/check_store.py checks it).
COMPRESS_ABOVE_BYTES = 100 * 1024


RUN_NAME = re.compile(r"^\d{8}T\d{6}Z.*\.json(\.gz)?$")
RUN_SUFFIXES = (".json.gz", ".json")


def is_run(path):
    """A run file's name: its UTC stamp first, .json or .json.gz last (the harness's rule,
    harness/core/names.c)."""
    return bool(RUN_NAME.match(os.path.basename(path)))


def is_partial_run(path):
    return path.endswith((".partial.json", ".partial.json.gz"))


def run_files(gpu_dir, include_partial=False):
    """The run files of one evidence/<gpu>/ folder, plain or compressed, sorted by name
    (so by time); partial ones only when asked."""
    names = sorted(n for n in os.listdir(gpu_dir) if is_run(n) and os.path.isfile(os.path.join(gpu_dir, n)))
    return [os.path.join(gpu_dir, n) for n in names if include_partial or not is_partial_run(n)]


def shape_text(s):
    """A run's shape object as harness/core/shapes.c's shape_format writes it: BxHxSxD, or
    BxHxSq:SkvxD, then " causal". ValueError when a field is not an integer."""
    try:
        b, h, q, k, d = (int(s[x]) for x in ("batch", "heads", "seq_q", "seq_kv", "head_dim"))
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"shape {s!r}: batch, heads, seq_q, seq_kv and head_dim must be integers")
    return (f"{b}x{h}x{q}x{d}" if q == k else f"{b}x{h}x{q}:{k}x{d}") + (" causal" if s.get("causal") else "")


def run_stem(path):
    """A run's name without .json or .json.gz: the same for both forms."""
    base = os.path.basename(path)
    for s in RUN_SUFFIXES:
        if base.endswith(s):
            return base[: -len(s)]
    return base


def study_dir(evidence_root, slug, kind):
    """The folder a writer puts a new study of this kind in (not created here)."""
    if kind not in KINDS:
        raise ValueError(f"unknown study kind {kind!r}")
    return os.path.join(evidence_root, slug, "studies", kind)


def study_files(kind, root=ROOT):
    """Every committed study of this kind, of every GPU, compressed or not, sorted by path."""
    pattern = os.path.join(root, "evidence", "*", "studies", kind, KINDS[kind] + "*")
    return sorted(p for p in glob.glob(pattern) if p.endswith(SUFFIXES))


def stem(path):
    """The study's name: its file name without .json, .json.xz or .json.gz."""
    base = os.path.basename(path)
    for s in sorted(SUFFIXES, key=len, reverse=True):
        if base.endswith(s):
            return base[: -len(s)]
    return base


def gpu_of(path):
    """The GPU slug of a file under evidence/<gpu>/ (at any depth below it)."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if parts[i - 1] == "evidence":
            return parts[i]
    raise ValueError(f"{path}: not under an evidence/<gpu>/ folder")


def open_text(path):
    """A study or run file opened for reading as text, decompressed by its suffix."""
    if path.endswith(".xz"):
        return lzma.open(path, "rt", encoding="utf-8")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def load(path):
    with open_text(path) as fh:
        return json.load(fh)


def write(path, doc, compress=None):
    """Writes doc as JSON (indent 1, as the writers always did) to a temporary file beside
    path, then renames it. compress None: compressed when the text is larger than
    COMPRESS_ABOVE_BYTES. When compressed, path gains .xz and the bytes are xz (preset 9e: the
    format holds no time stamp, so the same document gives the same bytes). Returns the
    path written."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    text = json.dumps(doc, indent=1)
    if compress is None:
        compress = len(text.encode("utf-8")) > COMPRESS_ABOVE_BYTES
    if compress and not path.endswith(".xz"):
        path += ".xz"
    tmp = path + ".tmp"
    if compress:
        with lzma.open(tmp, "wt", encoding="utf-8", preset=XZ_PRESET) as fh:
            fh.write(text)
    else:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
    os.replace(tmp, path)
    return path


def compress_if_large(path):
    """A file another program wrote (e.g. a run of the harness kept as a study), replaced by
    path + ".xz" when it is larger than COMPRESS_ABOVE_BYTES; its bytes are kept exactly.
    Returns the path that holds it now."""
    if os.path.getsize(path) <= COMPRESS_ABOVE_BYTES:
        return path
    with open(path, "rb") as fh:
        data = fh.read()
    tmp = path + ".xz.tmp"
    with open(tmp, "wb") as fh:
        fh.write(lzma.compress(data, preset=XZ_PRESET))
    os.replace(tmp, path + ".xz")
    os.remove(path)
    return path + ".xz"
