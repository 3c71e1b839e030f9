#!/usr/bin/env python3
"""abi_check.py: load ABI v1 shared objects through ctypes and check them against
PyTorch's fp64 math on the GPU. An independent cross-check of the harness (it shares
no code with it) and a quick tool while a phase is being written.

usage: python3 ci/abi_check.py build/phases/01_scalar.so [...] [--shapes B,H,Sq,Skv,D,causal ...]
exit 0 when every supported shape passes (rel-L2 <= 2e-3, max-abs <= 1e-2, all finite).
"""
import argparse, ctypes, math, sys, time
import torch

class Shape(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int), ("heads", ctypes.c_int), ("seq_q", ctypes.c_int),
                ("seq_kv", ctypes.c_int), ("head_dim", ctypes.c_int), ("causal", ctypes.c_int),
                ("scale", ctypes.c_float)]

class Args(ctypes.Structure):
    _fields_ = [("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
                ("o", ctypes.c_void_p), ("workspace", ctypes.c_void_p), ("stream", ctypes.c_void_p)]

SP = ctypes.POINTER(Shape)
class Phase(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int), ("name", ctypes.c_char_p), ("title", ctypes.c_char_p),
                ("unsupported", ctypes.CFUNCTYPE(ctypes.c_char_p, SP)),
                ("workspace_bytes", ctypes.CFUNCTYPE(ctypes.c_size_t, SP)),
                ("init", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), SP)),
                ("run", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Args))),
                ("fini", ctypes.CFUNCTYPE(None, ctypes.c_void_p)),
                ("error_string", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_int))]

DEFAULT = ["1,8,512,512,64,0", "1,8,512,512,64,1", "2,3,77,77,64,1", "1,2,1,300,128,0",
           "1,2,129,257,128,1", "1,4,1000,1000,128,0", "2,2,333,333,128,1", "1,1,2048,2048,64,1"]

def reference(q, k, v, causal, scale):
    qd, kd, vd = q.double(), k.double(), v.double()
    s = scale * qd @ kd.transpose(-1, -2)
    sq, skv = s.shape[-2], s.shape[-1]
    if causal:
        i = torch.arange(sq, device=s.device)[:, None]
        j = torch.arange(skv, device=s.device)[None, :]
        s = s.masked_fill(j > i + (skv - sq), float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)   # rows with no key: zeros
    return p @ vd

def check(lib_path, shapes, time_it):
    lib = ctypes.CDLL(lib_path)
    ph = Phase.in_dll(lib, "attn_phase_entry")
    assert ph.abi_version == 1, f"{lib_path}: abi_version {ph.abi_version}"
    ok = True
    for text in shapes:
        b, h, sq, skv, d, c = map(int, text.split(","))
        sh = Shape(b, h, sq, skv, d, c, 1.0 / math.sqrt(d))
        why = ph.unsupported(ctypes.byref(sh))
        if why:
            print(f"{ph.name.decode()} {text}: unsupported: {why.decode()}"); continue
        g = torch.Generator(device="cuda").manual_seed(1234)
        q = (torch.rand(b, h, sq, d, device="cuda", generator=g) * 2 - 1).half()
        k = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
        v = (torch.rand(b, h, skv, d, device="cuda", generator=g) * 2 - 1).half()
        o = torch.full_like(q, float("nan"))
        ws_n = ph.workspace_bytes(ctypes.byref(sh))
        ws = torch.empty(max(ws_n, 1), dtype=torch.uint8, device="cuda")
        st = ctypes.c_void_p()
        rc = ph.init(ctypes.byref(st), ctypes.byref(sh))
        if rc:
            print(f"{ph.name.decode()} {text}: init failed {rc}: {ph.error_string(rc).decode()}"); ok = False; continue
        stream = torch.cuda.current_stream().cuda_stream
        a = Args(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), ws.data_ptr() if ws_n else None, stream)
        rc = ph.run(st, ctypes.byref(a)); torch.cuda.synchronize()
        if rc:
            print(f"{ph.name.decode()} {text}: run failed {rc}: {ph.error_string(rc).decode()}"); ok = False
            ph.fini(st); continue
        ref = reference(q, k, v, c, sh.scale)
        out = o.double()
        nonfinite = int((~torch.isfinite(out)).sum())
        err = (out - ref).nan_to_num(float("inf"))
        rel = float(err.norm() / ref.norm().clamp_min(1e-30)); mx = float(err.abs().max())
        good = nonfinite == 0 and rel <= 2e-3 and mx <= 1e-2
        ok &= good
        msg = f"{ph.name.decode():24s} {text:22s} rel_l2={rel:.2e} max_abs={mx:.2e} nonfinite={nonfinite} {'PASS' if good else 'FAIL'}"
        if time_it and good:
            for _ in range(5): ph.run(st, ctypes.byref(a))
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            n = 50; e0.record()
            for _ in range(n): ph.run(st, ctypes.byref(a))
            e1.record(); torch.cuda.synchronize()
            msg += f"  {e0.elapsed_time(e1) * 1e3 / n:9.2f} us/launch (stream loop, rough)"
        print(msg, flush=True)
        ph.fini(st)
    return ok

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--shapes", nargs="*", default=DEFAULT)
    ap.add_argument("--time", action="store_true")
    a = ap.parse_args()
    res = [check(l, a.shapes, a.time) for l in a.libs]
    sys.exit(0 if all(res) else 1)
