#!/usr/bin/env python3
"""The sanitizer verdict on logs shaped like the ones the H100 runs produced: the banner
is no finding, a race inside cuDNN's kernel is vendor, the same race in a phase's kernel
fails, and the harness's own failure (exit 1) fails whatever the tool found."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workflow"))
from sanitize_verdict import verdict  # noqa: E402

BANNER = "========= COMPUTE-SANITIZER\n"
DONE = "evidence: /tmp/x.json\n"
SUMMARY = "========= ERROR SUMMARY: 0 errors\n"
RACE = ("========= Error: Race reported between Read access at {k}+0x2e0\n"
        "=========     and Write access at {k}+0x6920 [16 hazards]\n")
CUDNN = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_32_64x256x64_4x1x1_cga1x1x1_kernel0_0"
OURS = "flash_fwd_kernel<64, 64>"
PROC = ("========= Error: process didn't terminate successfully\n"
        "=========     The application may have hit an error when dereferencing Unified Memory from the host.\n"
        "========= Target application returned an error\n")

cases = [
    ("banner only, clean run", BANNER + DONE + SUMMARY, 0, "clean"),
    ("race inside cuDNN", BANNER + RACE.format(k=CUDNN) + DONE + "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", 99, "vendor"),
    ("race inside cuDNN, process note too", BANNER + RACE.format(k=CUDNN) + PROC + DONE, 99, "vendor"),
    ("race in a phase kernel", BANNER + RACE.format(k=OURS) + DONE, 99, "fail"),
    ("race in cuDNN and in a phase", BANNER + RACE.format(k=CUDNN) + RACE.format(k=OURS) + DONE, 99, "fail"),
    ("harness check failed, tool silent", BANNER + DONE + SUMMARY, 1, "fail"),
    ("vendor race but the harness failed", BANNER + RACE.format(k=CUDNN) + DONE, 1, "fail"),
    ("vendor race and the harness did not finish", BANNER + RACE.format(k=CUDNN) + PROC, 99, "fail"),
    ("tool warning without a location", BANNER + "========= Warning: Detected overflow of tracked cuda::barrier structures.\n" + DONE, 99, "fail"),
    ("memcheck invalid read in a phase", BANNER + "========= Invalid __global__ read of size 16 bytes\n=========     at flash_fwd+0x10\n" + DONE, 99, "fail"),
]
BARRIERS = BANNER + "========= Warning: Detected overflow of tracked cuda::barrier structures.\n" + DONE
cases = [c + (False,) for c in cases] + [
    ("tool limit in the baseline's (vendor-only) run", BARRIERS, 99, "vendor", True),
    ("baseline run whose harness failed", BANNER + DONE, 1, "fail", True),
]
bad = 0
for name, text, status, want, vendor_impl in cases:
    got = verdict(text, status, vendor_impl)["verdict"]
    if got != want:
        print(f"test_sanitize_verdict: {name}: expected {want}, got {got}", file=sys.stderr)
        bad += 1
if not bad:
    print(f"test_sanitize_verdict: {len(cases)} logs judged as expected (banner, vendor, own, exit status)")
sys.exit(1 if bad else 0)
