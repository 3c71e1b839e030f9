#!/usr/bin/env bash
# dev build: .dev/mk.sh SRC NAME [extra nvcc flags]  -> .dev/b/phases/NAME.so (sm_90a only)
set -e
cd /work/main
src=$1; n=$2; shift 2
/usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra --Werror all-warnings -cudart shared -Iharness -Iharness/include -Ikernels/reference -I/usr/local/cuda/include -gencode arch=compute_90a,code=sm_90a --threads 0 -Iphases -Xptxas -v -DDEV_NAME="\"$n\"" "$@" -o .dev/b/phases/$n.so $src/attention.cu 2> .dev/b/phases/$n.ptxas.txt || { cat .dev/b/phases/$n.ptxas.txt; exit 1; }
grep -A2 "latency_attention" .dev/b/phases/$n.ptxas.txt | grep -E "registers|spill" | sort | uniq -c | head
