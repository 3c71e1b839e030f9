#!/usr/bin/env python3
"""Do two builds of a rung's shared object hold the same machine code?

    same_code.py OLD.so NEW.so     (exit 0 the same, 1 not, 2 bad input)

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
import struct
import subprocess
import sys
import tempfile

FATBIN_MAGIC = 0xBA55ED50
HOST_SECTIONS = [".text", ".rodata", ".data", ".data.rel.ro", ".init", ".fini", ".gcc_except_table"]


def section(so, name):
    """The bytes of one section of so ('' when it has none)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sec")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=" + name, so, out],
                       check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


def fatbins(data):
    """The fat binaries in a .nv_fatbin section, each 8-byte aligned."""
    off, out = 0, []
    while off + 16 <= len(data):
        magic, _ver, hsz, fsz = struct.unpack_from("<IHHQ", data, off)
        if magic != FATBIN_MAGIC:
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


def payloads(so):
    """sha256 of every entry payload of so's fat binaries, counted."""
    count = collections.Counter()
    for fb in fatbins(section(so, ".nv_fatbin")):
        for kind, payload in entries(fb):
            count[(kind, hashlib.sha256(payload).hexdigest())] += 1
    return count


def compare(old, new):
    same = True
    for name in HOST_SECTIONS:
        a, b = section(old, name), section(new, name)
        ok = a == b
        same &= ok
        print(f"{'same' if ok else 'DIFFERENT'}  host {name}: {len(a)} and {len(b)} bytes")
    fa, fb = section(old, ".nv_fatbin"), section(new, ".nv_fatbin")
    print(f"       .nv_fatbin: {len(fa)} and {len(fb)} bytes, sha256 {hashlib.sha256(fa).hexdigest()[:16]}"
          f" and {hashlib.sha256(fb).hexdigest()[:16]}")
    pa, pb = payloads(old), payloads(new)
    kinds = {1: "PTX", 2: "cubin"}
    for key in sorted(set(pa) | set(pb)):
        ok = pa[key] == pb[key]
        same &= ok
        print(f"{'same' if ok else 'DIFFERENT'}  {kinds.get(key[0], key[0])} {key[1][:16]}: "
              f"{pa[key]} and {pb[key]} times")
    print(f"same_code: {old} and {new}: {'the same machine code' if same else 'DIFFERENT machine code'}"
          f" ({sum(pa.values())} and {sum(pb.values())} device images)")
    return same


def main(argv):
    if len(argv) != 3:
        print("usage: same_code.py OLD.so NEW.so", file=sys.stderr)
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
