"""Ping-pong turn windows in the SASS of rung 07 (measuring only): now ci/tools/sass_loops.py,
which reports, for each kernel's innermost loop of 8 or more HGMMA, its R2UR and STL/LDL
counts and each turn's window (named BAR.SYNC to the first HGMMA / to the BAR.ARV).
Runs 41-48's turns_*.txt came from this file's earlier, standalone version (git history),
which listed every such loop of up to 1400 instructions, not only the innermost.
usage: python3 turns.py SASS.txt
"""
import os
import sys

tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'ci', 'tools', 'sass_loops.py')
os.execv(sys.executable, [sys.executable, os.path.normpath(tool)] + sys.argv[1:])
