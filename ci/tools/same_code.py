#!/usr/bin/env python3
"""Do two builds of a rung's shared object hold the same machine code?

    same_code.py OLD.so NEW.so              (exit 0 the same, 1 not, 2 bad input)
    same_code.py --kernels OLD.so NEW.so    (device code only, kernel by kernel: below)
    same_code.py --self-test                (make check-freeze)

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

--kernels, for a rung whose code is compiled in another translation unit, in another
namespace (rung 10 linked from rung 11's rung10.o: ci/freeze.sh chooses it for a rung of
linked objects alone): no name is the same, so no cubin is byte-equal, and the host code
differs. The device code is compared function by function, names taken out, and matched by
body (compare_kernels); the host code is not compared, its sizes are printed.
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


# ---- kernel by kernel (--kernels) -----------------------------------------------------------
# For a rung whose code is compiled in another translation unit (rung 10 linked from rung 11's
# rung10.o, its attention.cu in namespace rung10): every mangled name differs (the namespace,
# the unit's anonymous-namespace hash), so no cubin is byte-equal, and host code differs. Each
# device image is cut into its functions; a function is its body with every name taken out,
# and functions are matched by body, as ci/tools/sass_same.py matches cuobjdump listings.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# sections of a cubin read as a function's (suffix: the function's mangled name)
FUNC_SECTIONS = (".text.", ".nv.info.", ".nv.shared.", ".nv.constant0.", ".rel.text.", ".rela.text.",
                 ".nv.local.", ".nv.constant2.")
# line tables and debug frames name the source files: not compared (nor the tables of names)
SKIP_SECTIONS = (".debug_", ".rel.debug_", ".rela.debug_", ".nv_debug", ".rel.nv_debug", ".rela.nv_debug")
NAME_SECTIONS = ("", ".shstrtab", ".strtab", ".symtab", ".symtab_shndx")
# .nv.info attributes whose first word is a symbol's index (EIATTR_PARAM_CBANK; in the global
# .nv.info: FRAME_SIZE, MIN_STACK_SIZE, MAX_STACK_SIZE, REGCOUNT and the like, each
# "index, value"); EIATTR_EXTERNS (0x0f) is a list of indices
INFO_SYM_FIRST = {0x0A, 0x11, 0x12, 0x23, 0x2F}
INFO_SYM_LIST = {0x0F}


def images(nv_fatbin):
    """(kind, target, payload) of every entry of a .nv_fatbin section, payloads decompressed;
    target as the entry's header names it (sm_90a: arch 90 with the arch-specific flag)."""
    out = []
    for fb in fatbins(nv_fatbin):
        _magic, _ver, hsz, fsz = struct.unpack_from("<IHHQ", fb, 0)
        off = hsz
        while off < hsz + fsz:
            kind, _ever, ehsz, psz = struct.unpack_from("<HHIQ", fb, off)
            if ehsz < 0x40 or off + ehsz + psz > len(fb):
                raise ValueError(f"a fat binary entry at {off} is cut short")
            head, payload = fb[off:off + ehsz], fb[off + ehsz:off + ehsz + psz]
            arch, = struct.unpack_from("<I", head, 0x1C)
            flags, = struct.unpack_from("<Q", head, 0x28)
            if payload[:4] == ZSTD_MAGIC:
                csize, = struct.unpack_from("<I", head, 0x10)
                res = subprocess.run(["zstd", "-q", "-d", "-c"], input=payload[:csize], capture_output=True)
                if res.returncode != 0:
                    raise ValueError(f"a compressed entry at {off} does not decompress: {res.stderr.decode().strip()}")
                payload = res.stdout
            target = f"{'sm' if kind == 2 else 'compute'}_{arch}{'a' if flags & 0x100000 else ''}"
            out.append((kind, target, payload))
            off += ehsz + psz
    return out


def elf_sections(elf):
    """[(name, type, flags, offset, size, link, info, entsize)] of an ELF64 little-endian file."""
    if elf[:5] != b"\x7fELF\x02" or elf[5] != 1:
        raise ValueError("a cubin that is no 64-bit little-endian ELF")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", elf, 0x3C)
    raw = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + 64 * i) for i in range(shnum)]
    base = raw[shstrndx][4]
    return [(elf[base + h[0]:elf.index(b"\0", base + h[0])].decode(), h[1], h[2], h[4], h[5], h[6], h[7], h[9])
            for h in raw]


def info_records(data):
    """(format, attribute, value bytes) of an .nv.info section: a 4-byte header a record, the
    size of the value after it for format 4 (EIFMT_SVAL), the value itself in the header's
    last two bytes otherwise."""
    out, off = [], 0
    while off + 4 <= len(data):
        fmt, attr, short = struct.unpack_from("<BBH", data, off)
        off += 4
        if fmt == 4:
            out.append((fmt, attr, data[off:off + short]))
            off += short
        else:
            out.append((fmt, attr, struct.pack("<H", short)))
    return out


def cubin_functions(elf):
    """The functions of one cubin, each by body: {name: digest}, and what the cubin holds
    beside them (sections other than the functions', names and debug information taken out):
    a sorted list of (section kind, sha256). A body: the function's .text bytes; the type,
    flags and register count (sh_info's top byte) of each of its sections, the contents of
    its .nv.constant0 (the parameter bank) and .nv.constant2, the sizes of .nv.shared and
    .nv.local; its .nv.info records, and the global .nv.info's records for its symbols, with
    every symbol index replaced by what the symbol is; its symbol's type, binding, other
    and size; each relocation's offset, type and addend, and its target: for a function, that
    function's body (computed without its own callees), for a section, the section's kind."""
    secs = elf_sections(elf)
    data = lambda i: b"" if secs[i][1] == 8 else elf[secs[i][3]:secs[i][3] + secs[i][4]]
    symtab = next((i for i, s in enumerate(secs) if s[1] == 2), None)
    syms = []
    if symtab is not None:
        strbase = secs[secs[symtab][5]][3]
        raw = data(symtab)
        for k in range(len(raw) // 24):
            n, info, other, shndx, _value, size = struct.unpack_from("<IBBHQQ", raw, 24 * k)
            syms.append((elf[strbase + n:elf.index(b"\0", strbase + n)].decode(), info, other, shndx, size))

    def owner(secname):
        for p in FUNC_SECTIONS:
            if secname.startswith(p) and len(secname) > len(p):
                return p, secname[len(p):]
        return None, None
    funcs = {}
    for i, sec in enumerate(secs):
        prefix, fname = owner(sec[0])
        if prefix:
            funcs.setdefault(fname, {})[prefix] = i
    # a function has code; a section named as one without it (sm_90's .nv.shared.reserved.0)
    # is compared with the rest, by its name
    funcs = {f: parts for f, parts in funcs.items() if ".text." in parts}

    def sym_kind(k, self_name, bodies):
        """what symbol k is, without its name"""
        if k >= len(syms):
            return f"<no symbol {k}>"
        name, info, _other, shndx, _size = syms[k]
        if name in funcs and info & 0xF == 2:
            if name == self_name:
                return "<self>"
            return bodies.get(name, "<function>") if bodies is not None else "<function>"
        sec = secs[shndx][0] if 0 < shndx < len(secs) else f"<shndx {shndx}>"
        prefix, fname = owner(sec)
        if prefix and fname in funcs:
            sec = prefix + ("<self>" if fname == self_name else "<other>")
        return f"{info:#x} {sec}"
    global_info = []
    for i, sec in enumerate(secs):
        if sec[0] == ".nv.info":
            global_info += info_records(data(i))
    by_sym = collections.defaultdict(list)
    for fmt, attr, val in global_info:
        if fmt == 4 and attr in INFO_SYM_FIRST and len(val) >= 4:
            by_sym[struct.unpack_from("<I", val)[0]].append((attr, val[4:].hex()))

    def body(fname, bodies):
        h = hashlib.sha256()
        parts = funcs[fname]
        for prefix in FUNC_SECTIONS:
            if prefix not in parts:
                continue
            i = parts[prefix]
            _n, typ, flags, _off, size, _link, info, entsize = secs[i]
            h.update(f"{prefix} type {typ:#x} flags {flags:#x} size {size} entsize {entsize} "
                     f"regs {info >> 24 if prefix == '.text.' else '-'}\n".encode())
            if prefix in (".text.", ".nv.constant0.", ".nv.constant2."):
                h.update(data(i))
            elif prefix == ".nv.info.":
                for fmt, attr, val in info_records(data(i)):
                    if fmt == 4 and attr in INFO_SYM_FIRST and len(val) >= 4:
                        val = sym_kind(struct.unpack_from("<I", val)[0], fname, None).encode() + val[4:]
                    elif fmt == 4 and attr in INFO_SYM_LIST:
                        val = b",".join(sym_kind(k, fname, None).encode() for k in struct.unpack(f"<{len(val) // 4}I", val[:len(val) // 4 * 4]))
                    h.update(f"info {fmt} {attr:#x} ".encode() + val + b"\n")
            elif prefix in (".rel.text.", ".rela.text."):
                step = 24 if prefix == ".rela.text." else 16
                raw = data(i)
                for k in range(len(raw) // step):
                    off, rinfo = struct.unpack_from("<QQ", raw, step * k)
                    addend = struct.unpack_from("<q", raw, step * k + 16)[0] if step == 24 else 0
                    h.update(f"reloc {off} {rinfo & 0xFFFFFFFF:#x} {addend} {sym_kind(rinfo >> 32, fname, bodies)}\n".encode())
        for k, (name, info, other, _shndx, size) in enumerate(syms):
            if name == fname:
                h.update(f"symbol {info:#x} {other:#x} {size}\n".encode())
                for attr, val in sorted(by_sym.get(k, [])):
                    h.update(f"global info {attr:#x} {val}\n".encode())
        return h.hexdigest()
    first = {f: body(f, None) for f in funcs}
    bodies = {f: body(f, first) for f in funcs}
    rest = []
    for i, sec in enumerate(secs):
        if owner(sec[0])[1] in funcs or sec[0] in NAME_SECTIONS or sec[0].startswith(SKIP_SECTIONS) or sec[0] == ".nv.info":
            continue
        if sec[0] == ".nv.callgraph":   # pairs of symbol indices: caller, callee
            raw = data(i)
            edges = sorted(" -> ".join(sym_kind(k, None, first) for k in struct.unpack_from("<II", raw, 8 * j))
                           for j in range(len(raw) // 8))
            rest.append((sec[0], hashlib.sha256("\n".join(edges).encode()).hexdigest()))
            continue
        rest.append((sec[0], hashlib.sha256(f"{sec[1]:#x} {sec[2]:#x} {sec[4]} ".encode() + data(i)).hexdigest()))
    rest.append(("global .nv.info", hashlib.sha256("\n".join(sorted(
        f"{fmt} {attr:#x} {val.hex()}" for fmt, attr, val in global_info
        if not (fmt == 4 and attr in INFO_SYM_FIRST))).encode()).hexdigest()))
    return bodies, sorted(rest)


MANGLED = re.compile(rb"[A-Za-z_$][\w$]*")


def ptx_functions(ptx):
    """The functions (.entry, .func) and the rest of a PTX text, each with every mangled name
    replaced by its order of first appearance in that function, and the line information
    (.loc, .file, the .debug sections, comments) taken out: a Counter of digests."""
    text = re.sub(rb"//[^\n]*", b"", ptx.rstrip(b"\0"))
    # the debug sections (-lineinfo's .debug_str: the names again, as bytes) close the text
    text = re.sub(rb"\.section\s+\.debug\w*\s*\{.*?\n\s*\}", b"", text, flags=re.S)
    lines = [ln.strip() for ln in text.split(b"\n")
             if ln.strip() and not ln.strip().startswith((b".loc", b".file", b"@@DWARF"))]
    chunks, cur = [], []
    for ln in lines:
        if re.match(rb"(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b", ln) and cur:
            chunks.append(cur)
            cur = []
        cur.append(ln)
    chunks.append(cur)
    out = collections.Counter()
    for chunk in chunks:
        names = {}

        def canon(m):
            w = m.group(0)
            if w.startswith((b"_Z", b"$")) or w.startswith(b"__cuda_local_var") or w.startswith(b"_GLOBAL__N"):
                return names.setdefault(w, b"<name%d>" % len(names))
            return w
        out[hashlib.sha256(b"\n".join(MANGLED.sub(canon, ln) for ln in chunk)).hexdigest()] += 1
    return out


def compare_kernels(old, new):
    """Device code kernel by kernel (the functions of every cubin, the PTX), names taken out;
    host code not compared (its sizes printed). True where every target's functions and PTX
    are the same in both, as often, and the cubins hold the same beside them."""
    sa, sb = (sections(so, HOST_SECTIONS + [".nv_fatbin"]) for so in (old, new))
    for name in HOST_SECTIONS:
        print(f"not compared  host {name}: {len(sa[name])} and {len(sb[name])} bytes")
    ia, ib = images(sa[".nv_fatbin"]), images(sb[".nv_fatbin"])
    same = bool(ia)
    if not ia:
        print("no device image in the old build: nothing to compare")

    def gather(imgs):
        """per (kind, target): Counter of function bodies, Counter of the rest, {digest: name}"""
        out = collections.defaultdict(lambda: (collections.Counter(), collections.Counter(), {}, [0]))
        for kind, target, payload in imgs:
            funcs, rest, names, n = out[(kind, target)]
            n[0] += 1
            if kind == 2:
                bodies, others = cubin_functions(payload)
                for fname, digest in bodies.items():
                    funcs[digest] += 1
                    names.setdefault(digest, fname)
                rest.update(f"{k} {d}" for k, d in others)
            else:
                funcs.update(ptx_functions(payload))
        return out
    ga, gb = gather(ia), gather(ib)
    for key in sorted(set(ga) | set(gb)):
        (fa, ra, na, ca), (fb, rb, nb, cb) = ga[key], gb[key]
        what = "cubin" if key[0] == 2 else "PTX"
        ok = fa == fb and ra == rb and ca == cb
        same &= ok
        parts = "functions" if key[0] == 2 else "parts (its functions, and the declarations before them)"
        print(f"{'same' if ok else 'DIFFERENT'}  {what} {key[1]}: {ca[0]} and {cb[0]} images, "
              f"{sum(fa.values())} and {sum(fb.values())} {parts}, {sum((fa & fb).values())} the same"
              + (f"; {sum(ra.values())} and {sum(rb.values())} other sections, {sum((ra & rb).values())} the same"
                 if key[0] == 2 else ""))
        for d in fa - fb:
            print(f"    only in the old build: {na.get(d, 'a PTX function ' + d[:16])}")
        for d in fb - fa:
            print(f"    only in the new build: {nb.get(d, 'a PTX function ' + d[:16])}")
        for r in sorted((ra - rb) + (rb - ra)):
            print(f"    {'old' if r in ra - rb else 'new'} build only: section {r[:-48]}")
    print(f"same_code --kernels: {old} and {new}: "
          f"{'the same device code, kernel by kernel' if same else 'DIFFERENT device code'}"
          f" ({len(ia)} and {len(ib)} device images; host code not compared)")
    return same


def fake_fatbin(images, ident):
    """A fat binary of the layout fatbins() and entries() read: each image an entry whose
    header carries ident (as nvcc's carry the source or object names)."""
    body = b""
    for kind, payload in images:
        head = struct.pack("<HHIQ", kind, 0x101, 16 + len(ident), len(payload)) + ident
        body += head + payload
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def failed_cases(label, cases, check):
    """How many of cases ((what, want, so): so checked against the base should give want)
    check() answers otherwise; each named on stderr. check()'s own output is silenced, and a
    crash counts as a wrong answer."""
    bad = 0
    with open(os.devnull, "w") as quiet:
        for what, want, so in cases:
            saved, sys.stdout = sys.stdout, quiet
            try:
                got = check(so)
            except Exception as e:
                got = f"an error ({type(e).__name__}: {e})"
            finally:
                sys.stdout = saved
            if got is not want:
                print(f"same_code: {label}: {what}: {got if isinstance(got, str) else 'same' if got else 'different'}, "
                      f"expected {'same' if want else 'different'}", file=sys.stderr)
                bad += 1
    return bad


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
        bad = failed_cases("self-test", cases, lambda so: compare(base, so))
    if bad == 0:
        print(f"same_code: self-test passed ({len(cases)} cases: an ident alone differs; a cubin byte, "
              f"a missing image, host code)")
    return 1 if bad else 0


def fake_cubin(funcs, order=None, flags=0x5A04):
    """A cubin (ELF64) of the layout cubin_functions() reads: each function of funcs (name,
    text, regs, shared, params, relocs [(offset, type, target name)]) with its .text, .nv.info,
    .nv.shared and .nv.constant0 sections, its relocations, its symbol, and its register count
    in the global .nv.info and in its .text's sh_info; symbols in the given order."""
    order = order or [f["name"] for f in funcs]
    byname = {f["name"]: f for f in funcs}
    sym_index = {name: 1 + i for i, name in enumerate(order)}
    shstr, strtab = bytearray(b"\0"), bytearray(b"\0")

    def intern(table, name):
        table.extend(name.encode() + b"\0")
        return len(table) - len(name) - 1
    secs = [(0, 0, 0, 0, 0, b"", 0)]   # name offset, type, flags, link, info, data (or size), entsize

    def add(name, typ, flags, data, link=0, info=0, entsize=0):
        secs.append((intern(shstr, name), typ, flags, link, info, data, entsize))
        return len(secs) - 1
    text_idx = {}
    add(".shstrtab", 3, 0, None)
    add(".strtab", 3, 0, None)
    add(".symtab", 2, 0, None, link=2, entsize=24)
    add(".nv.info", 0x70000000, 0, b"".join(
        struct.pack("<BBHII", 4, 0x2F, 8, sym_index[f["name"]], f["regs"]) for f in funcs), link=3)
    for f in funcs:
        name, i = f["name"], sym_index[f["name"]]
        text_idx[name] = add(".text." + name, 1, 6, f["text"], link=3, info=(f["regs"] << 24) | i)
        add(".nv.info." + name, 0x70000000, 0x40, struct.pack("<BBHII", 4, 0x0A, 8, i, f["params"] << 16),
            link=3, info=text_idx[name])
        add(".nv.shared." + name, 8, 3, f["shared"], info=text_idx[name])
        add(".nv.constant0." + name, 1, 0x42, b"\0" * f["params"], info=text_idx[name])
        add(".rel.text." + name, 9, 0x40, b"".join(struct.pack("<QQ", off, (sym_index[t] << 32) | typ)
                                                  for off, typ, t in f["relocs"]), link=3, info=text_idx[name])
    syms = b"\0" * 24 + b"".join(struct.pack("<IBBHQQ", intern(strtab, n), 0x12, 0x10, text_idx[n], 0,
                                             len(byname[n]["text"])) for n in order)
    body, headers = bytearray(), []
    for (nameoff, typ, fl, link, info, data, entsize), idx in zip(secs, range(len(secs))):
        if idx == 1:
            data = bytes(shstr)
        elif idx == 2:
            data = bytes(strtab)
        elif idx == 3:
            data = syms
        size = data if isinstance(data, int) else len(data)
        off = 64 + len(body)
        if not isinstance(data, int):
            body += data + b"\0" * (-len(data) % 8)
        headers.append(struct.pack("<IIQQQQIIQQ", nameoff, typ, fl, 0, off, size, link, info, 8, entsize))
    head = bytearray(64)
    head[:4] = b"\x7fELF"
    head[4:7] = b"\x02\x01\x01"
    struct.pack_into("<Q", head, 0x28, 64 + len(body))
    struct.pack_into("<I", head, 0x30, flags)
    struct.pack_into("<HHH", head, 0x3A, 64, len(secs), 1)
    return bytes(head) + bytes(body) + b"".join(headers)


def fake_entry_fatbin(images, ident):
    """A fat binary whose entries carry nvcc's header fields that the kernel-by-kernel mode
    reads: the arch at 0x1c, the flags at 0x28 (0x100000 an arch-specific target, 0x8000 a
    compressed payload), the compressed size at 0x10; images (kind, arch, arch-specific, payload,
    compress)."""
    body = b""
    for kind, arch, specific, payload, compress in images:
        flags = 0x11 | (0x100000 if specific else 0)
        size, data = len(payload), payload
        if compress:
            data = subprocess.run(["zstd", "-q", "-c"], input=payload, check=True, capture_output=True).stdout
            flags |= 0x8000
        head = bytearray(64)
        struct.pack_into("<HHIQ", head, 0, kind, 0x101, 64 + len(ident), len(data) + (-len(data) % 8))
        struct.pack_into("<II", head, 0x10, len(data), 0)
        struct.pack_into("<I", head, 0x1C, arch)
        struct.pack_into("<Q", head, 0x28, flags)
        struct.pack_into("<Q", head, 0x38, size)
        body += bytes(head) + ident + data + b"\0" * (-len(data) % 8)
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def self_test_kernels():
    """The kernel-by-kernel mode (--kernels): the same functions under other names, their
    symbols in another order, compressed or not, with other host code, pass; one changed
    instruction byte, register count, shared size, relocation (type, offset, the function
    called), PTX instruction, a function missing or one more, fail."""
    def fn(name, text, regs=40, shared=1024, params=64, relocs=()):
        return {"name": name, "text": text, "regs": regs, "shared": shared, "params": params,
                "relocs": list(relocs)}
    t1, t2, t3 = (bytes([k]) * 8 + bytes(range(k, k + 56)) for k in (1, 2, 3))
    ptx = ".version 8.8\n.target sm_90\n.visible .entry %s(\n.param .u64 p\n)\n{\ncall %s;\nret;\n}\n"

    def funcs(prefix, **change):
        a, b, c = prefix + "kA", prefix + "kB", prefix + "dC"
        fs = [fn(a, t1, relocs=[(16, 0x2B, c)]), fn(b, t2, regs=96, shared=0), fn(c, t3, regs=24, shared=0)]
        for key, value in change.items():
            name, field = key.split("_", 1)
            f = {"A": fs[0], "B": fs[1], "C": fs[2]}[name]
            f[field] = value(f[field]) if callable(value) else value
        return fs

    def image_set(prefix, ptx_text=None, order=None, compress=False, drop=None, extra=False, **change):
        fs = funcs(prefix, **change)
        if drop:
            fs = [f for f in fs if not f["name"].endswith(drop)]
        if extra:
            fs.append(fn(prefix + "kE", t1[::-1]))
        order = [prefix + n for n in order] if order else None
        p = (ptx_text or ptx % (prefix + "kA", prefix + "dC")).encode()
        return [(2, 90, True, fake_cubin(fs, order), compress), (2, 80, False, fake_cubin(fs, order, 0x5004), False),
                (1, 90, False, p, compress)]
    with tempfile.TemporaryDirectory() as tmp:
        hosts = {}   # one gcc a host code, objcopy writes each case's copy

        def build(name, ret, images, ident=b"a.cu".ljust(8, b"\0")):
            so, fb = (os.path.join(tmp, name + ext) for ext in (".so", ".fatbin"))
            if ret not in hosts:
                hosts[ret] = os.path.join(tmp, f"host{ret}.so")
                subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-x", "c", "-o", hosts[ret], "-"],
                               input=f"int f(void) {{ return {ret}; }}\n".encode(), check=True)
            with open(fb, "wb") as f:
                f.write(fake_entry_fatbin(images, ident))
            subprocess.run(["objcopy", "--add-section", ".nv_fatbin=" + fb, hosts[ret], so], check=True)
            return so
        base = build("base", 1, image_set("_ZN3old"))
        other = "_ZN6rung103old"
        cases = [
            ("other names, symbols in another order, compressed, other host code", True,
             build("names", 2, image_set(other, order=["dC", "kB", "kA"], compress=True), b"b.o".ljust(8, b"\0"))),
            ("one instruction byte changed", False, build("byte", 1, image_set(other, B_text=t2[:-1] + b"\x01"))),
            ("a register count changed", False, build("regs", 1, image_set(other, B_regs=97))),
            ("a shared size changed", False, build("shared", 1, image_set(other, A_shared=2048))),
            ("a parameter bank's size changed", False, build("params", 1, image_set(other, A_params=72))),
            ("a relocation's type changed", False, build("rtype", 1, image_set(other, A_relocs=[(16, 0x2C, other + "dC")]))),
            ("a relocation moved", False, build("roff", 1, image_set(other, A_relocs=[(24, 0x2B, other + "dC")]))),
            ("another function called", False, build("rtarget", 1, image_set(other, A_relocs=[(16, 0x2B, other + "kB")]))),
            ("a PTX instruction changed", False, build("ptx", 1, image_set(
                other, ptx_text=(ptx % (other + "kA", other + "dC")).replace("ret;", "exit;")))),
            ("a function missing", False, build("missing", 1, image_set(other, drop="kB"))),
            ("one function more", False, build("extra", 1, image_set(other, extra=True))),
        ]
        bad = failed_cases("self-test (--kernels)", cases, lambda so: compare_kernels(base, so))
    if bad == 0:
        print(f"same_code: self-test (--kernels) passed ({len(cases)} cases: other names, symbol order, "
              f"compression and host code alone differ; an instruction byte, registers, shared size, parameter "
              f"bank, a relocation's type, offset or callee, PTX, a function missing or added)")
    return bad


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 1 if self_test() or self_test_kernels() else 0
    check = compare
    if argv[1:2] == ["--kernels"]:
        check, argv = compare_kernels, argv[1:]
    if len(argv) != 3:
        print("usage: same_code.py [--kernels] OLD.so NEW.so | --self-test", file=sys.stderr)
        return 2
    for so in argv[1:]:
        if not os.path.isfile(so):
            print(f"same_code: {so}: no such file", file=sys.stderr)
            return 2
    try:
        return 0 if check(argv[1], argv[2]) else 1
    except (ValueError, struct.error, subprocess.CalledProcessError) as e:
        print(f"same_code: cannot read the shared objects: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
