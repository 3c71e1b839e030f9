#!/usr/bin/env bash
B=.dev/b
nvidia-smi -L
for sh in "1 8 512 512 64 0" "1 8 512 512 64 1" "1 8 512 512 128 0"; do
  for r in 1 2; do for n in O10 X3 X4 X5 Z1 Z2 Z3 Z4 Z5; do $B/abitime $B/phases/$n.so $sh 300; done; done
done
cuobjdump -sass $B/phases/X5.so | awk '/Function :/{f=($0 ~ /latency_attentionILi64/)} f' > $OUT/x5.sass
cuobjdump -sass $B/phases/O10.so | awk '/Function :/{f=($0 ~ /latency_attentionILi64/)} f' > $OUT/o10.sass
