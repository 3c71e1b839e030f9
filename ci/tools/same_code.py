#!/usr/bin/env python3
"""Do two builds of a rung's shared object hold the same machine code?

    same_code.py OLD.so NEW.so     (exit 0 the same, 1 not, 2 bad input)
    same_code.py --self-test       (make check-freeze)

For a frozen rung whose nvcc command changes but whose code must not (ci/freeze.sh
--recompile): no cuobjdump is needed. The host side: the loaded sections that hold code
and data (.text, .rodata, .data, .data.rel.ro, .init, .fini, .gcc_except_table) byte for
byte. The device side: .nv_fatbin cut into its fat binaries (one a translation unit, and
the device link's stub), each cut into its entries (cubin or PTX, one a target); every
entry's payload (the ELF or PTX itself) must be found in the other build as often. An
entry's header may differ: the device link's stub names its inputs there (the sources
when one nvcc command compiled them, the objects when they were compiled one by one).
Sections that only hold addresses into those (.rela.dyn, .eh_frame, .nvFatBinSegment)
and the build ID are left out: they move when a header grows.
"""
import collections
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50
HOST_SECTIONS = [".text", ".rodata", ".data", ".data.rel.ro", ".init", ".fini", ".gcc_except_table"]


def sections(so, names):
    """{name: bytes} of the named sections of so (b'' for one it has not), from one readelf
    and one objcopy (a readelf and an objcopy a section made a comparison 34 processes: the
    self-test 1.9 -> 0.9 CPU s, rungs 10 and 11 compared 2.6 -> 1.0, the same lines printed).
    --dump-section, not -O binary: that writes only loaded sections, and an unloaded
    .nv_fatbin would compare as empty."""
    res = subprocess.run(["readelf", "-S", "-W", so], check=True, capture_output=True, text=True)
    present = {m.group(1) for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)", res.stdout, re.M)}
    out = {name: b"" for name in names}
    want = [name for name in names if name in present]
    if not want:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        dumps = []
        for i, name in enumerate(want):
            dumps += ["--dump-section", f"{name}={os.path.join(tmp, str(i))}"]
        subprocess.run(["objcopy", *dumps, so, os.path.join(tmp, "copy")], check=True, capture_output=True)
        for i, name in enumerate(want):
            with open(os.path.join(tmp, str(i)), "rb") as f:
                out[name] = f.read()
    return out


def fatbins(data):
    """The fat binaries in a .nv_fatbin section, each 8-byte aligned."""
    off, out = 0, []
    while off + 16 <= len(data):
        magic, _ver, hsz, fsz = struct.unpack_from("<IHHQ", data, off)
        if magic != FATBIN_MAGIC:
            # padding between fat binaries is zeros; anything else is not read as code
            if any(data[off:off + 8]):
                raise ValueError(f".nv_fatbin holds bytes at {off} that are no fat binary")
            off += 8
            continue
        if off + hsz + fsz > len(data):
            raise ValueError(f"a fat binary at {off} runs past the section's end")
        out.append(data[off:off + hsz + fsz])
        off = (off + hsz + fsz + 7) & ~7
    return out


def entries(fb):
    """(kind, payload) of each entry of one fat binary: kind 1 PTX, 2 ELF (cubin)."""
    _magic, _ver, hsz, fsz = struct.unpack_from("<IHHQ", fb, 0)
    off, out = hsz, []
    while off < hsz + fsz:
        kind, _ever, ehsz, psz = struct.unpack_from("<HHIQ", fb, off)
        if ehsz == 0 or off + ehsz + psz > len(fb):
            raise ValueError(f"a fat binary entry at {off} is cut short")
        out.append((kind, fb[off + ehsz:off + ehsz + psz]))
        off += ehsz + psz
    return out


def payloads(nv_fatbin):
    """sha256 of every entry payload of a .nv_fatbin section's fat binaries, counted."""
    count = collections.Counter()
    for fb in fatbins(nv_fatbin):
        for kind, payload in entries(fb):
            count[(kind, hashlib.sha256(payload).hexdigest())] += 1
    return count


def compare(old, new):
    same = True
    sa, sb = (sections(so, HOST_SECTIONS + [".nv_fatbin"]) for so in (old, new))
    for name in HOST_SECTIONS:
        a, b = sa[name], sb[name]
        ok = a == b
        same &= ok
        print(f"{'same' if ok else 'DIFFERENT'}  host {name}: {len(a)} and {len(b)} bytes")
    fa, fb = sa[".nv_fatbin"], sb[".nv_fatbin"]
    print(f"       .nv_fatbin: {len(fa)} and {len(fb)} bytes, sha256 {hashlib.sha256(fa).hexdigest()[:16]}"
          f" and {hashlib.sha256(fb).hexdigest()[:16]}")
    pa, pb = payloads(fa), payloads(fb)
    kinds = {1: "PTX", 2: "cubin"}
    for key in sorted(set(pa) | set(pb)):
        ok = pa[key] == pb[key]
        same &= ok
        print(f"{'same' if ok else 'DIFFERENT'}  {kinds.get(key[0], key[0])} {key[1][:16]}: "
              f"{pa[key]} and {pb[key]} times")
    print(f"same_code: {old} and {new}: {'the same machine code' if same else 'DIFFERENT machine code'}"
          f" ({sum(pa.values())} and {sum(pb.values())} device images)")
    return same


def fake_fatbin(images, ident):
    """A fat binary of the layout fatbins() and entries() read: each image an entry whose
    header carries ident (as nvcc's carry the source or object names)."""
    body = b""
    for kind, payload in images:
        head = struct.pack("<HHIQ", kind, 0x101, 16 + len(ident), len(payload)) + ident
        body += head + payload
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def self_test():
    """Builds small shared objects with gcc, adds a .nv_fatbin to each, and checks that the
    same code passes with a different ident, and that one changed cubin byte, a missing
    image, or changed host code fails."""
    with tempfile.TemporaryDirectory() as tmp:
        def build(name, ret, images, ident):
            src, so, fb = (os.path.join(tmp, name + ext) for ext in (".c", ".so", ".fatbin"))
            with open(src, "w") as f:
                f.write(f"int f(void) {{ return {ret}; }}\n")
            with open(fb, "wb") as f:
                f.write(fake_fatbin(images, ident) + b"\0" * 8 + fake_fatbin(images[:1], ident))
            subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", so, src], check=True)
            subprocess.run(["objcopy", "--add-section", ".nv_fatbin=" + fb, so], check=True)
            return so
        cubin, ptx = b"\x7fELF" + bytes(range(60)), (b".version 8.0\n" * 4).ljust(56, b"\0")
        # idents padded to 8 bytes, as nvcc pads its headers (136 and 152 bytes in rung 11's)
        src_ident, obj_ident = b"a.cu b.cu".ljust(16, b"\0"), b"build/obj/a.o b.o".ljust(24, b"\0")
        base = build("base", 1, [(2, cubin), (1, ptx)], src_ident)
        cases = [
            ("the same code, another ident", True, build("ident", 1, [(2, cubin), (1, ptx)], obj_ident)),
            ("one cubin byte changed", False, build("byte", 1, [(2, cubin[:-1] + b"\x01"), (1, ptx)], src_ident)),
            ("a PTX image missing", False, build("missing", 1, [(2, cubin)], src_ident)),
            ("other host code", False, build("host", 2, [(2, cubin), (1, ptx)], src_ident)),
        ]
        bad = 0
        with open(os.devnull, "w") as quiet:
            for what, want, so in cases:
                saved, sys.stdout = sys.stdout, quiet
                try:
                    got = compare(base, so)
                finally:
                    sys.stdout = saved
                if got != want:
                    print(f"same_code: self-test: {what}: {'same' if got else 'different'}, expected "
                          f"{'same' if want else 'different'}", file=sys.stderr)
                    bad += 1
    if bad == 0:
        print(f"same_code: self-test passed ({len(cases)} cases: an ident alone differs; a cubin byte, "
              f"a missing image, host code)")
    return 1 if bad else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        print("usage: same_code.py OLD.so NEW.so | --self-test", file=sys.stderr)
        return 2
    for so in argv[1:]:
        if not os.path.isfile(so):
            print(f"same_code: {so}: no such file", file=sys.stderr)
            return 2
    try:
        return 0 if compare(argv[1], argv[2]) else 1
    except (ValueError, struct.error, subprocess.CalledProcessError) as e:
        print(f"same_code: cannot read the shared objects: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
